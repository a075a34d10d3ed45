/**
 * Opening a store file made by an earlier build: the layout is brought up to this one's and
 * nothing the earlier build stored is lost.
 */
import { test } from 'tap'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { SqliteCatalogStore, STORE_FILE } from '../../../src/store/sqlite/store.js'
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
