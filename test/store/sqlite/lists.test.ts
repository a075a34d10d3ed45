/**
 * The SQLite store's use of the list index (src/lib/service-index.ts): another
 * connection's writes show in the next list, the kept JSON, and the list thread.
 */
import { test } from 'tap'
import Database from 'better-sqlite3'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SqliteCatalogStore, STORE_FILE } from '../../../src/store/sqlite/store.js'
import { toService, toServiceJson, type ServiceRecord } from '../../../src/domain/service.js'
import { SORT_FIELDS, type ServiceFilter, type ServiceSort } from '../../../src/domain/catalog-query.js'
import { demoRecords, referenceList } from '../../contract/catalog-store.contract.js'
import { tempDataDir } from '../../support/basics.js'

test('SQLite store: lists follow writes made through another connection (another process)', async (t) => {
  const dir = tempDataDir(t)
  const api = new SqliteCatalogStore(dir)
  const cli = new SqliteCatalogStore(dir)
  t.teardown(async () => { await api.close(); await cli.close() })
  const records = demoRecords()
  await cli.insertServices(records.slice(0, 40))
  const sort: ServiceSort = { field: 'price', order: 'asc' }
  const ids = async (filter: ServiceFilter = {}, s = sort): Promise<string[]> => (await api.listServices(filter, s, { limit: 100, offset: 0 })).items.map((r) => r.id)
  t.same(await ids(), referenceList(records.slice(0, 40), {}, sort), 'built from what the other connection stored')
  let current = records.slice(0, 40)
  await cli.insertServices(records.slice(40))
  current = records
  const cheap = { ...(records[3] as typeof records[number]), priceAtomic: 0, name: '!!! first by name', category: 'maps', supportedChains: ['eip155:1'] }
  await cli.updateService(cheap)
  current = current.map((r) => (r.id === cheap.id ? cheap : r))
  await cli.deleteService((records[7] as typeof records[number]).id)
  current = current.filter((r) => r.id !== (records[7] as typeof records[number]).id)
  for (const field of SORT_FIELDS) {
    for (const order of ['asc', 'desc'] as const) {
      for (const filter of [{}, { category: 'maps' }, { chain: 'eip155:1' }, { maxPriceAtomic: 1000 }]) {
        t.same(await ids(filter, { field, order }), referenceList(current, filter, { field, order }), `${field} ${order} ${JSON.stringify(filter)} after the other connection's writes`)
      }
    }
  }
  t.equal((await api.listServices({}, sort, { limit: 1, offset: 0 })).total, current.length)
})

test('the SQLite store keeps each service\'s JSON current: remade on open when its format changes', async (t) => {
  const dataDir = tempDataDir(t)
  const records = demoRecords()
  const first = new SqliteCatalogStore(dataDir)
  await first.insertServices(records)
  await first.close()
  const sort: ServiceSort = { field: 'name', order: 'asc' }
  const byId = new Map(records.map((record) => [record.id, record]))
  const firstTen = referenceList(records, {}, sort).slice(0, 10).map((id) => byId.get(id) as ServiceRecord)
  const expected = `[${firstTen.map(toServiceJson).join(',')}]`
  const raw = new Database(join(dataDir, STORE_FILE))
  t.teardown(() => { if (raw.open) raw.close() })
  const text = (page: { json: Uint8Array }): string => Buffer.from(page.json).toString()
  const kept = (): string[] => raw.prepare('SELECT service_json FROM services ORDER BY rowid').pluck().all() as string[]

  // Texts made by another format (an older build's toService): all remade on open.
  raw.exec("UPDATE services SET service_json = '{\"old\":true}'; UPDATE store_meta SET value = 'old' WHERE key = 'service_json_format'")
  const store = new SqliteCatalogStore(dataDir)
  t.teardown(() => store.close())
  t.notOk(kept().some((text) => text.includes('"old"')), 'every text remade')
  t.equal(text(await store.listServiceJson({}, sort, { limit: 10, offset: 0 })), expected)
  t.equal(text(await store.listServiceJson({}, { field: 'createdAt', order: 'desc' }, { limit: 100, offset: 0 })),
    JSON.stringify((await store.listServices({}, { field: 'createdAt', order: 'desc' }, { limit: 100, offset: 0 })).items.map(toService)))
})

test('the list thread: another thread\'s writes show at once; a closed store lists nothing', async (t) => {
  const store = new SqliteCatalogStore(tempDataDir(t), { listThread: true })
  t.teardown(() => store.close())
  const records = demoRecords()
  const sort: ServiceSort = { field: 'createdAt', order: 'desc' }
  await store.insertServices(records.slice(0, 5))
  t.equal((await store.listServices({}, sort, { limit: 100, offset: 0 })).total, 5)
  // Written on this thread, listed on the other: the insert has committed before the list is asked.
  await store.insertService(records[5] as ServiceRecord)
  t.same((await store.listServices({}, sort, { limit: 100, offset: 0 })).items.map((r) => r.id).sort(), records.slice(0, 6).map((r) => r.id).sort())

  await store.close()
  await t.rejects(store.listServices({}, sort, { limit: 100, offset: 0 }), { name: 'StoreUnavailableError', message: /closed/ }, 'a closed store lists nothing')
})

/** The write-ahead log's last frame and how far it was copied back into the file (the WAL-index header in `-shm`). */
function walFrames (dir: string): { written: number, checkpointed: number } {
  const shm = readFileSync(join(dir, `${STORE_FILE}-shm`))
  return { written: shm.readUInt32LE(16), checkpointed: shm.readUInt32LE(96) }
}

test('the list thread checkpoints the API thread\'s writes, which no longer do it on commit', async (t) => {
  const write = async (listThread: boolean): Promise<{ written: number, checkpointed: number }> => {
    const dir = tempDataDir(t)
    const store = new SqliteCatalogStore(dir, { listThread })
    t.teardown(() => store.close())
    for (const record of demoRecords()) await store.insertService(record)
    // The thread copies the log within 250 ms; under load, give it up to 10 s.
    const deadline = Date.now() + (listThread ? 10_000 : 0)
    let frames = walFrames(dir)
    while (frames.checkpointed < frames.written && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      frames = walFrames(dir)
    }
    return frames
  }
  const alone = await write(false)
  t.ok(alone.written > 0 && alone.checkpointed < alone.written, `without the thread, a log under 1000 pages waits (${alone.checkpointed} of ${alone.written} frames copied)`)
  const threaded = await write(true)
  t.ok(threaded.written > 0 && threaded.checkpointed === threaded.written, `with it, the whole log is copied back (${threaded.checkpointed} of ${threaded.written} frames)`)
})

test('the list thread\'s pages are the caller\'s own: intact whatever is listed after, and right when more lists are in flight than slots', async (t) => {
  const store = new SqliteCatalogStore(tempDataDir(t), { listThread: true })
  t.teardown(() => store.close())
  const records = demoRecords()
  await store.insertServices(records)
  const text = (page: { json: Uint8Array }): string => Buffer.from(page.json).toString()
  const expected = async (sort: ServiceSort, offset: number): Promise<string> =>
    JSON.stringify((await store.listServices({}, sort, { limit: 5, offset })).items.map(toService))

  const held = await store.listServiceJson({}, { field: 'name', order: 'asc' }, { limit: 10, offset: 0 })
  const before = text(held)
  t.ok(held.json.buffer instanceof ArrayBuffer, 'an ordinary buffer, not shared memory')
  for (let i = 0; i < 150; i++) {
    const page = await store.listServiceJson({}, { field: 'price', order: 'desc' }, { limit: 5, offset: i % 40 })
    if (i % 30 === 0) t.equal(text(page), await expected({ field: 'price', order: 'desc' }, i % 40), `list ${i} while the first is held`)
  }
  t.equal(text(held), before, 'the held page was not written over')

  // More lists in flight than there are slots: the rest come in the message.
  const pages = await Promise.all(Array.from({ length: 100 }, async (_, i) => await store.listServiceJson({}, { field: 'trustScore', order: 'desc' }, { limit: 5, offset: i % 50 })))
  for (const [i, page] of pages.entries()) {
    if (i % 10 === 0) t.equal(text(page), await expected({ field: 'trustScore', order: 'desc' }, i % 50), `page ${i}`)
  }
})
