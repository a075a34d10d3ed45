/**
 * Opening a store file made by an earlier build: the layout is brought up to this one's and
 * nothing the earlier build stored is lost.
 */
import { test } from 'tap'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { SqliteCatalogStore, STORE_FILE } from '../../../src/store/sqlite/store.js'
import type { ServiceRecord } from '../../../src/domain/service.js'
import { demoRecords } from '../../contract/catalog-store.contract.js'
import { tempDataDir } from '../../helper.js'

test('a store from before usage figures opens: tx_count and total_revenue go, services keep everything else', async (t) => {
  const dir = tempDataDir(t)
  const records = demoRecords().slice(0, 5)
  const fresh = new SqliteCatalogStore(dir)
  await fresh.insertServices(records)
  await fresh.close()

  // The earlier layout: the fixture's figures in two columns, no usage column.
  const db = new Database(join(dir, STORE_FILE))
  db.exec('ALTER TABLE services DROP COLUMN usage')
  db.exec('ALTER TABLE services ADD COLUMN tx_count INTEGER NOT NULL DEFAULT 0')
  db.exec("ALTER TABLE services ADD COLUMN total_revenue TEXT NOT NULL DEFAULT '0'")
  db.exec("UPDATE services SET tx_count = 184320, total_revenue = '715.16'")
  db.close()

  const store = new SqliteCatalogStore(dir)
  t.teardown(async () => { await store.close() })
  const columns = (new Database(join(dir, STORE_FILE), { readonly: true }).pragma('table_info(services)') as Array<{ name: string }>).map((c) => c.name)
  t.notOk(columns.includes('tx_count') || columns.includes('total_revenue'), 'the invented figures are gone')
  t.ok(columns.includes('usage'))
  for (const record of records) t.same(await store.getService(record.id), { ...record, usage: null }, `${record.id}: as stored, never measured`)
  const before = await store.latestSeq()
  const usage = { txCount: 3, revenueAtomic: '3000', uniquePayers: 2, lastPaymentAt: '2026-11-01T00:00:00.000Z', txCount30d: 3, revenue30dAtomic: '3000', uniquePayers30d: 2, scope: 'service' as const, computedAt: '2026-11-02T00:00:00.000Z' }
  t.match(await store.recordUsage((records[0] as typeof records[number]).id, usage), { usage }, 'and takes usage figures')
  t.ok(await store.latestSeq() > before)
})

test('a store from before listing identities opens: each resource is its endpoint, and the endpoint alone is no longer unique', async (t) => {
  const dir = tempDataDir(t)
  const records = demoRecords().slice(0, 5)
  const fresh = new SqliteCatalogStore(dir)
  await fresh.insertServices(records)
  await fresh.close()

  // The earlier layout: no resource column, the endpoint unique.
  const db = new Database(join(dir, STORE_FILE))
  db.exec('DROP INDEX services_resource_method')
  db.exec('ALTER TABLE services DROP COLUMN resource')
  db.exec('CREATE UNIQUE INDEX old_endpoint_unique ON services(endpoint)')
  db.close()

  const store = new SqliteCatalogStore(dir)
  t.teardown(async () => { await store.close() })
  for (const record of records) t.same(await store.getService(record.id), record, `${record.id}: as stored, its endpoint its resource`)
  const [first, second] = records as [typeof records[number], typeof records[number]]
  const post = { ...second, id: 'svc_zzzzzzzzzzzzzzzzzzzzzzzz', endpoint: first.endpoint, resource: first.resource, method: first.method === 'POST' ? 'GET' as const : 'POST' as const }
  await store.insertService(post)
  t.same(await store.getService(post.id), post, 'another method at a stored endpoint is another listing')
  await t.rejects(store.insertService({ ...post, id: 'svc_yyyyyyyyyyyyyyyyyyyyyyyy' }), { code: 'DUPLICATE_ENDPOINT' }, 'the same identity is refused')
  const chain = first.supportedChains[0] as string
  t.ok((await store.listServices({ chain }, { field: 'createdAt', order: 'desc' }, { limit: 50, offset: 0 })).items.some((s) => s.id === first.id), 'the chain filter still finds it')
})

test('a store from before the origin column opens: each listing gets its origin, indexed, and a proof finds them by it', async (t) => {
  const dir = tempDataDir(t)
  const [a, b, c] = demoRecords() as [ServiceRecord, ServiceRecord, ServiceRecord]
  const origin = 'https://old.example:8443'
  const onOrigin = [{ ...a, endpoint: `${origin}/x`, resource: `${origin}/x`, ownerId: 'key_squatter' }, { ...b, endpoint: `${origin}/y?q=1`, resource: `${origin}/y?q=1`, ownerId: null }]
  const fresh = new SqliteCatalogStore(dir)
  await fresh.insertServices([...onOrigin, c])
  await fresh.close()

  const db = new Database(join(dir, STORE_FILE))
  db.exec('DROP INDEX services_origin')
  db.exec('ALTER TABLE services DROP COLUMN origin')
  db.close()

  const store = new SqliteCatalogStore(dir)
  t.teardown(async () => { await store.close() })
  const check = new Database(join(dir, STORE_FILE), { readonly: true })
  t.teardown(() => check.close())
  t.same(check.prepare('SELECT id, origin FROM services ORDER BY id').all(),
    [...onOrigin, c].map((record) => ({ id: record.id, origin: new URL(record.endpoint).origin })).sort((x, y) => (x.id < y.id ? -1 : 1)), 'every origin filled')
  t.match(check.pragma('index_info(services_origin)'), [{ name: 'origin' }], 'the column has its index')
  await store.issueClaim({ origin, ownerId: 'key_provider', token: 'x402c_t', createdAt: a.createdAt, provenAt: null })
  t.same((await store.proveClaim(origin, 'key_provider', '2026-02-01T00:00:00.000Z', 'published'))?.map((r) => r.id).sort(), onOrigin.map((r) => r.id).sort())
  t.match(await store.getService(c.id), { ownerId: c.ownerId, claimed: false }, 'another origin untouched')
})
