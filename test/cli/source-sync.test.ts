/**
 * npm run sources as real processes on a shared SQLite DATA_DIR, reading a Bazaar list served on
 * loopback: passes without being asked, one process at a time under the lease, a clean stop.
 */
import { spawn } from 'node:child_process'
import type { ServerResponse } from 'node:http'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { test, type Test } from 'tap'
import { newSourceId, type SourceRecord } from '../../src/domain/sources.js'
import { PROJECT_ROOT } from '../../src/paths.js'
import { LEASE_NAME } from '../../src/sources/scheduler.js'
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js'
import { build, register, tempDataDir, validBody } from '../helper.js'
import { startHttpServer } from '../support/x402-servers.js'

const ENTRY = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'source-sync.js')

function run (env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, [ENTRY, ...args], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', CATALOG_PROBE_ALLOW_PRIVATE: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)))
  return { child, exited, output: () => output }
}

const item = (path: string): Record<string, unknown> => ({
  resource: `https://api.example.com${path}`,
  type: 'http',
  x402Version: 2,
  accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: '0x3333333333333333333333333333333333333333', maxTimeoutSeconds: 60 }],
  description: `Tide tables for harbour ${path}`
})

/** A Bazaar list of `count` items, paged as the discovery endpoint pages them. */
function listPage (url: string | undefined, count: number): string {
  const query = new URL(url ?? '/', 'http://x').searchParams
  const offset = Number(query.get('offset') ?? 0)
  const limit = Number(query.get('limit') ?? 100)
  const items = Array.from({ length: Math.max(0, Math.min(limit, count - offset)) }, (_, i) => item(`/harbour/${offset + i}`))
  return JSON.stringify({ x402Version: 2, items, pagination: { limit, offset, total: count } })
}

async function withSource (t: Test, dataDir: string, url: string): Promise<{ store: SqliteCatalogStore, source: SourceRecord }> {
  const store = new SqliteCatalogStore(dataDir, { listThread: false })
  t.teardown(async () => { await store.close() })
  const source: SourceRecord = { id: newSourceId(), kind: 'bazaar', url, createdAt: new Date().toISOString(), lastSync: null, lastCompleteAt: null }
  await store.insertSource(source)
  return { store, source }
}

async function until (condition: () => Promise<boolean> | boolean, ms = 30_000): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await condition()) return true
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return await condition()
}

/** Who holds the source-sync lease now, read beside the processes. */
function leaseHolderIn (dataDir: string): string | null {
  const db = new Database(join(dataDir, 'catalog.sqlite'), { readonly: true })
  try {
    return (db.prepare('SELECT holder FROM leases WHERE name = ?').pluck().get(LEASE_NAME) as string | undefined) ?? null
  } finally {
    db.close()
  }
}

test('npm run sources passes over a due source by itself; SIGTERM stops it and gives the lease up', async (t) => {
  const upstream = await startHttpServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end(listPage(req.url, 3)) })
  t.teardown(upstream.close)
  const dataDir = tempDataDir(t)
  const { store, source } = await withSource(t, dataDir, upstream.origin)

  const sources = run({ DATA_DIR: dataDir, CATALOG_SOURCE_SYNC_INTERVAL_S: '3600' })
  t.teardown(() => { sources.child.kill('SIGKILL') })
  t.ok(await until(async () => (await store.getSource(source.id))?.lastSync?.complete === true), `a pass ran: ${sources.output()}`)
  t.match((await store.getSource(source.id))?.lastSync, { complete: true, seen: 3, added: 3 })
  const listed = await store.getServices(await store.servicesOfSource(source.id))
  t.same(listed.map((record) => record.endpoint).sort(), [0, 1, 2].map((i) => `https://api.example.com/harbour/${i}`))
  t.ok(listed.every((record) => record.ownerId === null && record.status === 'unverified'), 'unowned listings, unverified until probed')
  t.equal(await store.acquireLease(LEASE_NAME, 'another-process', 60_000, Date.now()), false, 'the lease is held while it runs')
  t.equal(sources.child.exitCode, null, 'idle, it keeps running for the next interval')

  sources.child.kill('SIGTERM')
  t.equal(await sources.exited, 0, `stops cleanly ${sources.output()}`)
  t.equal(leaseHolderIn(dataDir), null, 'and gives its lease up')
})

test('two processes on one store: one passes, the other waits for the lease and takes over when the first stops', async (t) => {
  // The first page of the first pass is held until released: a pass in progress.
  const held: ServerResponse[] = []
  let release = false
  let requests = 0
  const upstream = await startHttpServer((req, res) => {
    requests++
    const answer = (): void => { res.writeHead(200, { 'content-type': 'application/json' }).end(listPage(req.url, 150)) }
    if (release) answer()
    else held.push(Object.assign(res, { answer }))
  })
  t.teardown(upstream.close)
  const dataDir = tempDataDir(t)
  const { store, source } = await withSource(t, dataDir, upstream.origin)
  const env = { DATA_DIR: dataDir, CATALOG_SOURCE_SYNC_INTERVAL_S: '1', CATALOG_PROBE_TIMEOUT_MS: '60000', LOG_LEVEL: 'info' }

  const first = run(env)
  t.teardown(() => { first.child.kill('SIGKILL') })
  t.ok(await until(() => held.length === 1), `the first process reads the first page: ${first.output()}`)
  t.match(leaseHolderIn(dataDir), `:${first.child.pid as number}:`, 'holding the lease')

  const second = run(env)
  t.teardown(() => { second.child.kill('SIGKILL') })
  t.ok(await until(() => second.output().includes('source sync started')), second.output())
  // The second process looks for due sources every second: over two looks, it reads nothing.
  await new Promise((resolve) => setTimeout(resolve, 2_500))
  t.equal(requests, 1, 'the second process waits for the lease instead of passing over the source too')
  t.match(leaseHolderIn(dataDir), `:${first.child.pid as number}:`)

  first.child.kill('SIGTERM')
  t.ok(await until(() => first.output().includes('"closing"')), first.output())
  release = true
  for (const res of held) (res as ServerResponse & { answer: () => void }).answer()
  t.equal(await first.exited, 0, `the first stops cleanly after its current page ${first.output()}`)
  t.match(first.output(), /"error":"[^"]*stopped \(the catalog is shutting down\) after 100 items","msg":"source pass incomplete"/, 'its pass left incomplete (retiring nothing)')

  t.ok(await until(async () => (await store.getSource(source.id))?.lastSync?.complete === true), `the second takes over: ${second.output()}`)
  t.match(leaseHolderIn(dataDir), `:${second.child.pid as number}:`)
  t.equal((await store.servicesOfSource(source.id)).length, 150, 'and reads the whole list')
  second.child.kill('SIGTERM')
  t.equal(await second.exited, 0)
  t.equal(leaseHolderIn(dataDir), null)
})

test('with CATALOG_SOURCE_SYNC=external the API runs no pass; npm run sources does, and the API serves what it added', async (t) => {
  let pages = 0
  const upstream = await startHttpServer((req, res) => {
    pages++
    res.writeHead(200, { 'content-type': 'application/json' }).end(listPage(req.url, 2))
  })
  t.teardown(upstream.close)
  const dataDir = tempDataDir(t)
  const app = await build(t, { dataDir, seed: 'none', probeAllowPrivate: true, sourceSyncIntervalS: 1, sourceSync: 'external', probeIntervalS: 3600, prober: 'external' })
  await app.ready()
  const source: SourceRecord = { id: newSourceId(), kind: 'bazaar', url: upstream.origin, createdAt: new Date().toISOString(), lastSync: null, lastCompleteAt: null }
  await app.store.insertSource(source)
  // An embedded scheduler passes over a due source as the app is ready (test/plugins/source-sync.test.ts).
  await new Promise((resolve) => setTimeout(resolve, 500))
  t.equal(pages, 0, 'the API reads no source')
  t.equal((await app.store.getSource(source.id))?.lastSync, null)

  const sources = run({ DATA_DIR: dataDir, CATALOG_SOURCE_SYNC_INTERVAL_S: '3600' })
  t.teardown(() => { sources.child.kill('SIGKILL') })
  let found = 0
  t.ok(await until(async () => {
    await app.searchReady()
    found = (await app.inject('/api/catalog/search?q=harbour')).json().results.length
    return found === 2
  }), `searchable in the API: ${sources.output()}`)

  // A key's registration is due for a probe at once, whatever the sources process does.
  const id = (await register(app, validBody())).json().id as string
  t.ok((await app.store.dueForProbe(new Date().toISOString(), 100, false)).some((candidate) => candidate.id === id), 'a key\'s registration is due at once')
  sources.child.kill('SIGTERM')
  t.equal(await sources.exited, 0)
})

test('check answers for the store; with scheduled passes off, or a bad command line, it does not start', async (t) => {
  const [ok, off, usage, help] = [
    run({ DATA_DIR: tempDataDir(t) }, ['check']),
    run({ DATA_DIR: tempDataDir(t), CATALOG_SOURCE_SYNC_INTERVAL_S: '0' }),
    run({ DATA_DIR: tempDataDir(t) }, ['status']),
    run({ DATA_DIR: tempDataDir(t) }, ['--help'])
  ]
  t.equal(await ok.exited, 0, ok.output())
  t.match(ok.output(), /sources: the store answers/)
  t.equal(await off.exited, 1, 'a configuration problem, not a usage error')
  t.match(off.output(), /^x402-catalog: CATALOG_SOURCE_SYNC_INTERVAL_S is 0/)
  t.equal(await usage.exited, 2)
  t.match(usage.output(), /unknown command "status"[\s\S]*usage: npm run sources/)
  t.equal(await help.exited, 0)
  t.match(help.output(), /^usage: npm run sources[\s\S]*CATALOG_SOURCE_SYNC=external/)
})
