/**
 * Origin sources against a real @x402/express v2 server publishing an OpenAPI document: each
 * paid operation becomes an unowned listing from its own live 402 answer; a resource that stops
 * answering keeps its source; one the document drops is retired; a bad document fails the pass.
 */
import { test, type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { syncSource } from '../../src/application/sync-source.js'
import { canonicalSourceUrl, newSourceId, type SourceRecord } from '../../src/domain/sources.js'
import { build } from '../helper.js'
import { startX402Server } from '../support/x402-servers.js'

const PAY_TO = '0x3333333333333333333333333333333333333333'

function openApi (origin: string, paid: string[]): string {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const entry of paid) {
    const [method, path] = entry.split(' ') as [string, string]
    paths[path] ??= {}
    ;(paths[path] as Record<string, unknown>)[method.toLowerCase()] = {
      summary: entry,
      'x-payment-info': { protocols: ['x402'], price: { mode: 'fixed', currency: 'USD', amount: '0.001' } },
      responses: { 200: { description: 'ok' } }
    }
  }
  return JSON.stringify({ openapi: '3.1.0', info: { title: 'paid API', version: '1.0.0' }, servers: [{ url: origin }], paths })
}

async function originSource (t: Test, app: FastifyInstance, origin: string): Promise<() => ReturnType<typeof syncSource>> {
  const source: SourceRecord = { id: newSourceId(), kind: 'origin', url: canonicalSourceUrl(origin, 'origin'), createdAt: new Date().toISOString(), lastSync: null, lastCompleteAt: null }
  await app.store.insertSource(source)
  return async () => await syncSource({
    store: app.store,
    readJson: async (url, maxBytes) => await app.prober.fetchOriginDocument(url, maxBytes),
    readEndpoint: async (endpoint, method, options) => await app.prober.read(endpoint, method, options),
    inferCategory: app.inferCategory
  }, await app.store.getSource(source.id) as SourceRecord)
}

test('an origin source lists the paid operations of its OpenAPI document from their live 402 answers', async (t) => {
  const docs: { root?: string } = {}
  const server = await startX402Server({ payTo: PAY_TO, path: '/paid', price: '$0.002', description: '東京の天気予報を返します。', serviceName: 'Tokyo Weather', tags: ['weather'], also: [{ method: 'POST', price: '$0.005' }], documents: { '/openapi.json': () => docs.root } })
  t.teardown(server.close)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  docs.root = openApi(server.origin, ['GET /paid', 'POST /paid', 'GET /missing', 'GET /users/{id}'])
  const sync = await originSource(t, app, server.origin)

  const first = await sync()
  t.match(first, { complete: true, seen: 4, added: 2, refusedCount: 2, error: null })
  t.match(first.refused.find(({ item }) => item.endsWith('/missing'))?.reason, /no valid x402 402 answer: answered 404/)
  t.match(first.refused.find(({ item }) => item.includes('{id}'))?.reason, /path with parameters/)
  const get = await app.store.findServiceByResource(`${server.origin}/paid`, 'GET')
  const post = await app.store.findServiceByResource(`${server.origin}/paid`, 'POST')
  t.match(get, { name: 'Tokyo Weather', description: '東京の天気予報を返します。', priceAtomic: 2000, paymentAddress: PAY_TO, ownerId: null, status: 'unverified' }, 'terms and text from the live answer')
  t.match(post, { priceAtomic: 5000, method: 'POST' })
  const detail = (await app.inject(`/api/services/${get?.id as string}`)).json()
  t.match(detail.sources, [{ url: server.origin }])

  const seq = await app.store.latestSeq()
  t.match(await sync(), { complete: true, added: 0, updated: 0, unchanged: 2, retired: 0 })
  t.equal(await app.store.latestSeq(), seq, 'an unchanged origin writes nothing')

  // The document drops POST: it is retired. GET stops answering for a moment: it keeps its source.
  docs.root = openApi(server.origin, ['GET /paid'])
  await server.close()
  const down = await sync()
  t.match(down, { complete: false, error: new RegExp(`^${server.origin} lists no paid resource`) }, 'no document read: the pass fails, naming the origin')
  t.equal((await app.store.getServices([post?.id as string]))[0]?.status, 'unverified', 'an incomplete pass retires nothing')
})

test('a resource the document still lists keeps its source while it does not answer; one it drops is retired', async (t) => {
  const docs: { root?: string } = {}
  const server = await startX402Server({ payTo: PAY_TO, path: '/paid', also: [{ method: 'POST' }], documents: { '/openapi.json': () => docs.root } })
  t.teardown(server.close)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  docs.root = openApi(server.origin, ['GET /paid', 'POST /paid'])
  const sync = await originSource(t, app, server.origin)
  t.match(await sync(), { complete: true, added: 2 })
  const post = await app.store.findServiceByResource(`${server.origin}/paid`, 'POST')

  docs.root = openApi(server.origin, ['POST /paid', 'GET /gone'])
  const next = await sync()
  t.match(next, { complete: true, added: 0, retired: 1, refusedCount: 1 })
  const get = await app.store.findServiceByResource(`${server.origin}/paid`, 'GET')
  t.match(get, { status: 'inactive', prefill: { removed: { reason: `no longer listed by ${server.origin}` } } })
  t.equal((await app.store.getServices([post?.id as string]))[0]?.status, 'unverified')
})

test('an origin source is an origin alone', async (t) => {
  t.equal(canonicalSourceUrl('https://API.example.com/', 'origin'), 'https://api.example.com')
  t.throws(() => canonicalSourceUrl('https://api.example.com/v1', 'origin'), { field: 'url', message: /an origin source is an origin alone \(https:\/\/api\.example\.com\)/ })
  t.equal(canonicalSourceUrl('https://facilitator.example.com/v1/', 'bazaar'), 'https://facilitator.example.com/v1')
})
