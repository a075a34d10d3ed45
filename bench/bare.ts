/**
 * The ceiling of an HTTP benchmark: a bare Fastify process answering each URL with the bytes
 * and headers the catalog answered it with (captured once), so a ratio to it measures what
 * the catalog's own work costs on this machine and HTTP stack.
 *
 *   node dist/bench/bare.js FIXTURE.json   (prints "bare listening at URL")
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import Fastify from 'fastify'
import { HOST, log, startChild, waitUntil, type Child } from './support.js'

export interface Captured { status: number, headers: Record<string, string>, body: string }

/** Headers the bare server repeats: the content type and the totals a list carries. */
const REPLAYED = /^(content-type|x-total-.*)$/

export async function captureFixture (base: string, paths: readonly string[]): Promise<Record<string, Captured>> {
  const fixture: Record<string, Captured> = {}
  for (const path of paths) {
    const res = await fetch(base + path)
    const headers: Record<string, string> = {}
    res.headers.forEach((value, name) => { if (REPLAYED.test(name)) headers[name] = value })
    fixture[path] = { status: res.status, headers, body: await res.text() }
  }
  return fixture
}

/** Starts the bare server on a fixture file. */
export async function startBare (fixtureFile: string): Promise<{ child: Child, url: string }> {
  const child = startChild('bare', [fileURLToPath(import.meta.url), fixtureFile], {})
  const url = await waitUntil(child, 'a listening line', async () => /bare listening at (http:\/\/[\d.:]+)/.exec(child.output())?.[1])
  return { child, url }
}

async function serveBare (fixtureFile: string): Promise<void> {
  const fixture = new Map(Object.entries(JSON.parse(readFileSync(fixtureFile, 'utf8')) as Record<string, Captured>))
  const app = Fastify({ logger: false })
  app.get('/*', (request, reply) => {
    const answer = fixture.get(request.url)
    if (answer === undefined) { void reply.code(404).send(); return }
    void reply.code(answer.status).headers(answer.headers).send(answer.body)
  })
  const address = await app.listen({ port: 0, host: HOST })
  process.stdout.write(`bare listening at ${address}\n`)
  const stop = (): void => { void app.close().then(() => process.exit(0)) }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  serveBare(process.argv[2] ?? '').catch((err: unknown) => {
    log(`bare server failed: ${String(err)}`)
    process.exit(1)
  })
}
