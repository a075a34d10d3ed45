/**
 * The SQLite store's cache of search hits' JSON (src/store/sqlite/json-cache.ts): a read never
 * shows a listing as it was before a change, whichever connection (process) made it; what
 * changes without a change-feed entry (a probe's figures) is served from the cache until then.
 */
import { test } from 'tap'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { SqliteCatalogStore, STORE_FILE } from '../../../src/store/sqlite/store.js'
import { toServiceJson, type ServiceRecord } from '../../../src/domain/service.js'
import { demoRecords } from '../../contract/catalog-store.contract.js'
import { tempDataDir } from '../../support/basics.js'

const jsonOf = async (store: SqliteCatalogStore, ids: readonly string[]): Promise<Array<[string, unknown]>> =>
  (await store.getServiceJson(ids)).map((item) => [item.id, JSON.parse(Buffer.from(item.json).toString())])

test('SQLite store: cached hit JSON follows every change, from this connection or another', async (t) => {
  const dir = tempDataDir(t)
  const api = new SqliteCatalogStore(dir)
  const other = new SqliteCatalogStore(dir)
  t.teardown(async () => { await api.close(); await other.close() })
  const records = demoRecords().slice(0, 12)
  await api.insertServices(records)
  const ids = records.map((r) => r.id)
  const expected = (current: readonly ServiceRecord[]): Array<[string, unknown]> =>
    current.map((r) => [r.id, JSON.parse(toServiceJson(r))])

  t.same(await jsonOf(api, ids), expected(records), 'read as stored, in the order asked')
  t.same(await jsonOf(api, [...ids].reverse()), expected([...records].reverse()), 'again from the cache, in the order asked')

  const renamed = { ...(records[2] as ServiceRecord), name: 'Renamed here', updatedAt: new Date().toISOString() }
  await api.updateService(renamed)
  let current = records.map((r) => (r.id === renamed.id ? renamed : r))
  t.same(await jsonOf(api, ids), expected(current), 'an update through this connection shows at once')

  const moved = { ...(records[5] as ServiceRecord), description: 'Changed by another process', priceAtomic: 7 }
  await other.updateService(moved)
  await other.deleteService((records[7] as ServiceRecord).id)
  current = current.map((r) => (r.id === moved.id ? moved : r)).filter((r) => r.id !== records[7]?.id)
  t.same(await jsonOf(api, ids), expected(current), "another connection's update and deletion show at the next read")

  // More changes than are read one by one: everything cached goes.
  const many = demoRecords().slice(12)
  await other.insertServices(many)
  let updated = 0
  for (let n = 0; n < 1001; n++) if (await other.updateService(many[n % many.length] as ServiceRecord)) updated++
  t.equal(updated, 1001, 'each a change')
  const touched = { ...(records[0] as ServiceRecord), name: 'Touched after a thousand changes' }
  await other.updateService(touched)
  current = current.map((r) => (r.id === touched.id ? touched : r))
  t.same(await jsonOf(api, ids), expected(current), 'after over a thousand changes elsewhere, nothing stale')
})

test('SQLite store: a rewrite of the kept JSON without a change (a probe\'s figures) is seen once the listing changes', async (t) => {
  const dir = tempDataDir(t)
  const api = new SqliteCatalogStore(dir)
  t.teardown(() => api.close())
  const record = demoRecords()[0] as ServiceRecord
  await api.insertServices([record])
  const before = await jsonOf(api, [record.id])
  // As a probe that changes nothing listed writes it: the row's JSON, no change-feed entry.
  const raw = new Database(join(dir, STORE_FILE))
  const probed = { ...record, lastChecked: '2026-11-29T00:00:00.000Z' }
  raw.prepare('UPDATE services SET service_json = ? WHERE id = ?').run(toServiceJson(probed), record.id)
  raw.close()
  t.same(await jsonOf(api, [record.id]), before, 'the cached figures until the listing changes (the response cache\'s rule)')
  const renamed = { ...probed, name: 'Renamed' }
  await api.updateService(renamed)
  t.same(await jsonOf(api, [record.id]), [[record.id, JSON.parse(toServiceJson(renamed))]], 'then the row as it is')
})
