/** Updates and deletions flow through the change feed, so the search index follows them. */
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { test } from 'tap'
import { Indexer } from '../../indexer/indexer.js'
import { readSeedFile, seedRecords } from '../../src/domain/seed.js'
import { loadTokenizer } from '../../src/search/analysis/tokenizer.js'
import { EmbeddedSearchEngine } from '../../src/search/embedded/engine.js'
import { splitQueryWords } from '../../src/search/analysis/analyzer.js'
import { DuplicateEndpointError } from '../../src/errors.js'
import { SqliteCatalogStore, STORE_FILE } from '../../src/store/sqlite/store.js'
import { build, tempDataDir } from '../helper.js'

const silent = { info: () => {}, error: () => {}, debug: () => {} }
const records = seedRecords(readSeedFile('demo').slice(0, 3), '2026-01-01T00:00:00.000Z')

test('update and delete advance the feed; a deleted service becomes a tombstone', async (t) => {
  const store = new SqliteCatalogStore(tempDataDir(t))
  t.teardown(() => store.close())
  await store.insertServices(records)
  const [a, b, c] = records as [typeof records[0], typeof records[0], typeof records[0]]
  t.equal(await store.latestSeq(), 3)

  t.ok(await store.updateService({ ...a, name: 'Renamed', supportedChains: ['eip155:8453', 'eip155:999999'] }))
  t.equal((await store.getService(a.id))?.name, 'Renamed')
  const onChain = await store.listServices({ chain: 'eip155:999999' }, { field: 'name', order: 'asc' }, { limit: 10, offset: 0 })
  t.same(onChain.items.map((r) => r.id), [a.id], 'chains are replaced with the record')
  await t.rejects(store.updateService({ ...b, endpoint: c.endpoint, resource: c.resource, method: c.method }), DuplicateEndpointError, 'an update cannot take another service\'s identity')
  t.notOk(await store.updateService({ ...a, id: 'svc_missing' }), 'no service, no update')

  t.ok(await store.deleteService(b.id))
  t.notOk(await store.deleteService(b.id), 'deleting twice finds nothing the second time')
  t.equal(await store.getService(b.id), null)
  t.equal(await store.countServices(), 2)

  const feed = await store.changesSince(3, 10)
  t.same(feed.map((change) => [change.seq, change.id, change.service === null]), [[4, a.id, false], [5, b.id, true]])
  t.equal(await store.latestSeq(), 5)
  t.same((await store.changesSince(0, 2)).map((change) => change.seq), [3, 4], 'the feed is ordered and limited across services and tombstones')

  // The deleted service held the highest live seq once: the next write must still move forward.
  await store.deleteService(a.id)
  await store.insertService({ ...b, endpoint: 'https://example.com/new' })
  t.equal(await store.latestSeq(), 7)
  t.same((await store.changesSince(5, 10)).map((change) => [change.seq, change.id, change.service === null]), [[6, a.id, true], [7, b.id, false]], 'a returning id is live again')
})

test('a store written before method and payment requirements existed gains the columns', async (t) => {
  const dir = tempDataDir(t)
  const db = new Database(join(dir, STORE_FILE))
  db.exec(`CREATE TABLE services (id TEXT PRIMARY KEY, seq INTEGER NOT NULL UNIQUE, name TEXT NOT NULL, name_sort TEXT NOT NULL,
    description TEXT NOT NULL, endpoint TEXT NOT NULL UNIQUE, category TEXT NOT NULL, currency TEXT NOT NULL,
    price_atomic INTEGER NOT NULL, free_quota INTEGER NOT NULL, payment_address TEXT NOT NULL, network TEXT NOT NULL,
    supported_chains TEXT NOT NULL, status TEXT NOT NULL, trust_score INTEGER NOT NULL, uptime_score REAL, last_checked TEXT,
    tx_count INTEGER NOT NULL, total_revenue TEXT NOT NULL, owner_id TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL) STRICT`)
  db.prepare(`INSERT INTO services VALUES ('svc_old', 1, 'Old', 'old', 'An old row', 'https://old.example/x', 'weather', 'USDC', 1000, 0,
    '0x1111111111111111111111111111111111111111', 'eip155:8453', '["eip155:8453"]', 'unverified', 10, NULL, NULL, 0, '0', NULL,
    '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`).run()
  db.close()
  const store = new SqliteCatalogStore(dir)
  t.teardown(() => store.close())
  const old = await store.getService('svc_old')
  t.equal(old?.method, 'GET')
  t.equal(old?.paymentRequirements, null)
})

test('the indexer removes deleted services from search and follows updates', async (t) => {
  const dataDir = tempDataDir(t)
  const store = new SqliteCatalogStore(dataDir)
  const engine = new EmbeddedSearchEngine(dataDir)
  t.teardown(async () => { await engine.close(); await store.close() })
  await store.insertServices(records)
  const indexer = new Indexer({ store, engine, tokenizer: await loadTokenizer(), logger: silent })
  await indexer.catchUp()
  const [a, b] = records as [typeof records[0], typeof records[0]]
  const find = async (text: string): Promise<string[]> =>
    (await engine.search({ words: splitQueryWords(text), filter: {}, page: { limit: 10, offset: 0 }, prefixLastWord: false })).hits.map((hit) => hit.id)

  t.ok((await find(a.name)).includes(a.id))
  await store.updateService({ ...a, name: 'Zyxwvut Quokka Oracle' })
  await store.deleteService(b.id)
  await indexer.catchUp()
  t.same(await find('quokka'), [a.id], 'the new name is searchable')
  t.notOk((await find(b.name)).includes(b.id), 'the deleted service is gone')
  t.equal((await engine.stats()).documents, records.length - 1)

  await engine.apply([], await store.latestSeq(), [b.id, 'svc_never_indexed'])
  t.equal((await engine.stats()).documents, records.length - 1, 'replaying a removal, or removing an unknown id, is harmless')
  await indexer.reindex()
  t.equal((await engine.stats()).documents, records.length - 1, 'and leaves the deleted service out')
})

test('a store emptied by deletions is not seeded again on restart', async (t) => {
  const dataDir = tempDataDir(t)
  const first = await build(t, { dataDir })
  const ids = (await first.store.listServices({}, { field: 'name', order: 'asc' }, { limit: 1000, offset: 0 })).items.map((r) => r.id)
  t.ok(ids.length > 0, 'the demo catalog was loaded')
  for (const id of ids) await first.store.deleteService(id)
  await first.close()
  const second = await build(t, { dataDir })
  t.equal(await second.store.countServices(), 0)
})

test('registration accepts a method and shows it; GET by default', async (t) => {
  const app = await build(t, { seed: 'none' })
  const { register, validBody } = await import('../helper.js')
  const post = await register(app, validBody({ method: 'POST' }))
  t.equal(post.statusCode, 201)
  t.equal(post.json().method, 'POST')
  t.equal((await register(app, validBody())).json().method, 'GET')
  const bad = await register(app, validBody({ method: 'TRACE' }))
  t.equal(bad.statusCode, 400)
  t.match(bad.json().message, /method/)
})
