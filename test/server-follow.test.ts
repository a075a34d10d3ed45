/**
 * Two catalog processes, the second following the first through a `catalog` source: a
 * registration on the first appears on the second by itself (detail and search), and its
 * deletion retires the copy. The operator adds the source with the CLI, as docs/sources.md says.
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { test } from 'tap'
import { PROJECT_ROOT } from '../src/paths.js'
import { API_KEY, tempDataDir, validBody } from './support/basics.js'
import { startServer, type RunningServer } from './server-process.js'

const run = promisify(execFile)
const CATALOG_CLI = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'catalog.js')
/** A give-up bound for the polls below, far above the follow interval: not a speed target (bench:sources measures that). */
const PATIENCE_MS = 30_000

/** Polls until `check` gives a value; fails the test after PATIENCE_MS. */
async function eventually<T> (what: string, check: () => Promise<T | undefined>): Promise<T> {
  const until = Date.now() + PATIENCE_MS
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > until) throw new Error(`gave up waiting: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

function stop (server: RunningServer): () => Promise<void> {
  return async () => {
    server.child.kill('SIGTERM')
    await server.exited
  }
}

test('a catalog process follows another: registrations arrive by themselves, deletions retire them', async (t) => {
  // No probing: the listings' endpoints are made up.
  const quiet = { CATALOG_SEED: 'none', CATALOG_PROBE_INTERVAL_S: '0', CATALOG_API_KEYS: API_KEY }
  const upstream = await startServer({ ...quiet, DATA_DIR: tempDataDir(t) })
  t.teardown(stop(upstream))

  const followerDir = tempDataDir(t)
  const added = await run(process.execPath, [CATALOG_CLI, 'sources', 'add', upstream.url, '--kind', 'catalog', '--json'], { env: { PATH: process.env.PATH ?? '', DATA_DIR: followerDir, LOG_LEVEL: 'silent' } })
  const source = JSON.parse(added.stdout) as { id: string, kind: string }
  t.equal(source.kind, 'catalog')
  const follower = await startServer({ ...quiet, DATA_DIR: followerDir, CATALOG_PROBE_ALLOW_PRIVATE: '1', CATALOG_SOURCE_FOLLOW_INTERVAL_S: '1' })
  t.teardown(stop(follower))

  const registered = await fetch(`${upstream.url}/api/services`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(validBody({ name: '為替レート速報', description: '主要通貨の為替レートを毎秒更新します。', endpoint: 'https://fx.rates.invalid/v1/latest' }))
  })
  t.equal(registered.status, 201)
  const { id } = await registered.json() as { id: string }

  const copy = await eventually('the registration on the follower', async () => {
    const res = await fetch(`${follower.url}/api/services/${id}`)
    return res.status === 200 ? await res.json() as { name: string, status: string, sources: Array<{ id: string, url: string }> } : undefined
  })
  t.match(copy, { name: '為替レート速報', status: 'unverified', sources: [{ id: source.id, url: upstream.url }] })
  const found = await eventually('the copy in the follower\'s search', async () => {
    const body = await (await fetch(`${follower.url}/api/catalog/search?q=${encodeURIComponent('為替')}`)).json() as { results: Array<{ service: { id: string } }> }
    return body.results.some((result) => result.service.id === id) ? true : undefined
  })
  t.ok(found)

  const deleted = await fetch(`${upstream.url}/api/services/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${API_KEY}` } })
  t.equal(deleted.status, 204)
  const retired = await eventually('the copy retired', async () => {
    const body = await (await fetch(`${follower.url}/api/services/${id}`)).json() as { status: string, retired: { reason: string } | null }
    return body.status === 'inactive' ? body : undefined
  })
  t.match(retired, { retired: { reason: `no longer listed by ${upstream.url}` } })

  const sources = await (await fetch(`${follower.url}/api/sources`)).json() as Array<{ id: string, lastSync: { complete: boolean, feed: { next: string } } }>
  t.match(sources, [{ id: source.id, lastSync: { complete: true } }])
})
