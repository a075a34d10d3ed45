/**
 * The requests a process is answering (src/plugins/requests-in-flight.ts), which long loops
 * on its thread keep their share for (src/lib/time-slices.ts): counted from the request's
 * arrival until its answer is sent or its connection closes, however it ends.
 */
import { request } from 'node:http'
import Fastify from 'fastify'
import { test } from 'tap'
import { background } from '../../src/lib/time-slices.js'
import requestsInFlightPlugin from '../../src/plugins/requests-in-flight.js'
import { build } from '../helper.js'

test('a request counts while it is answered, and no longer once it is answered or given up', async (t) => {
  const app = Fastify()
  await app.register(requestsInFlightPlugin)
  const release: Array<() => void> = []
  const seen: number[] = []
  app.get('/slow', async () => {
    seen.push(background.inFlight)
    await new Promise<void>((resolve) => release.push(resolve))
    return { ok: true }
  })
  app.get('/fails', async () => { throw new Error('boom') })
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(async () => { await app.close() })
  const before = background.inFlight

  const answered = fetch(`${url}/slow`)
  while (release.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
  t.equal(seen[0], before + 1, 'counted while the route works')
  release.shift()?.()
  t.equal((await answered).status, 200)
  t.equal(background.inFlight, before, 'not counted once answered')

  t.equal((await fetch(`${url}/fails`)).status, 500)
  t.equal(background.inFlight, before, 'an error answer ends it too')

  // A client that gives up before the answer: the closed connection ends it.
  const gone = request(`${url}/slow`)
  gone.on('error', () => {})
  gone.end()
  while (release.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
  t.equal(background.inFlight, before + 1)
  gone.destroy()
  const until = Date.now() + 5000
  while (background.inFlight !== before && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 5))
  t.equal(background.inFlight, before, 'a connection closed before the answer ends it')
  release.shift()?.()
})

test('the app counts its requests, those it answers itself (/mcp) as well', async (t) => {
  const app = await build(t)
  const before = background.inFlight
  t.equal((await app.inject('/api/categories')).statusCode, 200)
  t.equal((await app.inject('/no/such/route')).statusCode, 404)
  const mcp = await app.inject({ method: 'POST', url: '/mcp', headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' }, payload: { jsonrpc: '2.0', id: 1, method: 'ping' } })
  t.equal(mcp.statusCode, 200)
  t.equal(background.inFlight, before, 'none left counted')
})
