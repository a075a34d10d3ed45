/**
 * Scheduled source passes in the API process: a due source is read without anyone asking, its
 * listings become searchable, and closing the app gives the lease up.
 */
import { test } from 'tap'
import { newSourceId } from '../../src/domain/sources.js'
import { LEASE_NAME } from '../../src/sources/scheduler.js'
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js'
import { build, tempDataDir } from '../helper.js'
import { startHttpServer } from '../support/x402-servers.js'

const item = {
  resource: 'https://api.example.com/tides',
  type: 'http',
  x402Version: 2,
  accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: '0x3333333333333333333333333333333333333333', maxTimeoutSeconds: 60 }],
  lastUpdated: '2026-11-01T00:00:00.000Z',
  description: 'Tide tables for every harbour'
}

test('with CATALOG_SOURCE_SYNC_INTERVAL_S, the API passes over due sources by itself, under the lease', async (t) => {
  let pages = 0
  const upstream = await startHttpServer((_req, res) => {
    pages++
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ x402Version: 2, items: [item], pagination: { limit: 100, offset: 0, total: 1 } }))
  })
  t.teardown(upstream.close)
  const dataDir = tempDataDir(t)
  const app = await build(t, { dataDir, seed: 'none', probeAllowPrivate: true, sourceSyncIntervalS: 1 })
  const source = { id: newSourceId(), kind: 'bazaar' as const, url: upstream.origin, createdAt: new Date().toISOString(), lastSync: null, lastCompleteAt: null }
  await app.store.insertSource(source)

  let found: Array<{ service: { id: string, name: string } }> = []
  for (let i = 0; i < 100 && found.length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    await app.searchReady()
    found = (await app.inject('/api/catalog/search?q=tide')).json().results
  }
  t.equal(found.length, 1, 'searchable without a pass being asked for')
  // The listing is searchable once written; the pass records its report after its last step.
  let lastSync = (await app.store.getSource(source.id))?.lastSync ?? null
  for (let i = 0; i < 100 && lastSync === null; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    lastSync = (await app.store.getSource(source.id))?.lastSync ?? null
  }
  t.match(lastSync, { complete: true, added: 1 })
  t.equal(await app.store.acquireLease(LEASE_NAME, 'another-process', 60_000, Date.now()), false, 'the lease is held while the API runs')
  t.ok(pages >= 1)

  await app.close()
  const store = new SqliteCatalogStore(dataDir)
  t.teardown(async () => { await store.close() })
  t.equal(await store.acquireLease(LEASE_NAME, 'another-process', 60_000, Date.now()), true, 'closing gave it up')
})

test('a catalog source is followed every CATALOG_SOURCE_FOLLOW_INTERVAL_S from its cursor, and read whole once per sync interval', async (t) => {
  const asked: string[] = []
  const upstream = await startHttpServer((req, res) => {
    const since = new URL(req.url ?? '/', 'http://x').searchParams.get('since') ?? ''
    asked.push(since)
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ changes: [], next: since === '0' ? '41' : since }))
  })
  t.teardown(upstream.close)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true, sourceSyncIntervalS: 3600, sourceFollowIntervalS: 1 })
  const source = { id: newSourceId(), kind: 'catalog' as const, url: upstream.origin, createdAt: new Date().toISOString(), lastSync: null, lastCompleteAt: null }
  await app.store.insertSource(source)
  await app.ready()
  for (let i = 0; i < 100 && asked.length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 100))
  t.ok(asked.length >= 3, 'followed again and again without being asked')
  t.same(asked.slice(0, 3), ['0', '41', '41'], 'read whole first, then from the cursor it reached')
  t.match((await app.store.getSource(source.id))?.lastSync, { complete: true, feed: { since: '41', next: '41' } })
})
