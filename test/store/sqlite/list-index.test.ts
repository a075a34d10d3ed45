/**
 * The list index (src/store/list-index.ts) against a reference computed here, through
 * random catalogs and random changes, and the SQLite store's use of it: its order is
 * SQLite's order, and another connection's writes show in the next list.
 */
import { test, type Test } from 'tap'
import Database from 'better-sqlite3'
import { compareText } from '../../../src/domain/sort-keys.js'
import { ListIndex, type ListEntry } from '../../../src/store/sqlite/list-index.js'
import { join } from 'node:path'
import { SqliteCatalogStore, STORE_FILE } from '../../../src/store/sqlite/store.js'
import { toService, toServiceJson, type ServiceRecord } from '../../../src/domain/service.js'
import { SORT_FIELDS, type ServiceFilter, type ServiceSort } from '../../../src/domain/catalog-query.js'
import { demoRecords, referenceList } from '../../contract/catalog-store.contract.js'
import { tempDataDir } from '../../helper.js'
import { prng } from '../../../bench/generate.js'

const TRICKY = ['', 'a', 'A', 'ab', 'a b', 'z', 'é', 'ｚ', '天気', '天気予報', 'ー', '\u{e000}', '\u{ffe0}', '\u{10000}', '😀', '😀a', 'a😀', '\u{1f600}\u{e000}', '\u{fffd}']

test('compareText orders strings as SQLite does (code points), astral characters included', async (t) => {
  const db = new Database(':memory:')
  t.teardown(() => db.close())
  db.exec('CREATE TABLE s (v TEXT NOT NULL)')
  const insert = db.prepare('INSERT INTO s (v) VALUES (?)')
  for (const value of TRICKY) insert.run(value)
  const sqlite = db.prepare('SELECT v FROM s ORDER BY v').pluck().all() as string[]
  t.same([...TRICKY].sort(compareText), sqlite)
  t.not([...TRICKY].sort().join('|'), sqlite.join('|'), 'plain UTF-16 order differs on these strings: the test can tell')
  t.equal(compareText('same', 'same'), 0)
})

const CATEGORIES = ['weather', 'ai-llm', 'finance', 'maps']
const STATUSES = ['verified', 'unverified', 'inactive']
const CHAINS = ['eip155:8453', 'eip155:84532', 'solana:mainnet', 'eip155:1']
/** Creation times, some not as toISOString writes them (they must still order as text). */
const TIMES = ['2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00.500Z', '2024-12-31T23:59:59.999Z', '2025-06-01T12:00:00.000Z', 'later', '2025-01-01']

interface Row extends ListEntry { price: number }

function randomEntry (random: () => number, n: number): Row {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T
  const price = Math.floor(random() * 20) * 1000
  return {
    id: `svc_${n.toString(36).padStart(4, '0')}${pick(['', 'x', '😀'])}`,
    handle: n,
    category: pick(CATEGORIES),
    status: pick(STATUSES),
    price,
    priceAtomic: price,
    trustScore: Math.floor(random() * 5) * 25,
    nameSort: pick(TRICKY) + pick(['', 'api', 'ｚ']),
    createdAt: pick(TIMES),
    chains: CHAINS.filter(() => random() < 0.4)
  }
}

/** The reference: filter, sort by (key, id) in the sort's direction, page. */
function reference (rows: readonly Row[], filter: ServiceFilter, sort: ServiceSort, within?: ReadonlySet<string>): number[] {
  const key = (row: Row): string | number => sort.field === 'price' ? row.priceAtomic : sort.field === 'trustScore' ? row.trustScore : sort.field === 'name' ? row.nameSort : row.createdAt
  const compare = (a: string | number, b: string | number): number => (typeof a === 'number' && typeof b === 'number' ? a - b : compareText(String(a), String(b)))
  const direction = sort.order === 'asc' ? 1 : -1
  return rows
    .filter((row) => (filter.category === undefined || row.category === filter.category) &&
      (filter.status === undefined || row.status === filter.status) &&
      (filter.chain === undefined || row.chains.includes(filter.chain)) &&
      (filter.maxPriceAtomic === undefined || row.priceAtomic <= filter.maxPriceAtomic) &&
      (within === undefined || within.has(row.id)))
    .sort((a, b) => direction * (compare(key(a), key(b)) || compareText(a.id, b.id)))
    .map((row) => row.handle)
}

function randomFilter (random: () => number): ServiceFilter {
  const filter: ServiceFilter = {}
  if (random() < 0.3) filter.category = random() < 0.9 ? CATEGORIES[Math.floor(random() * CATEGORIES.length)] as string : 'none'
  if (random() < 0.3) filter.status = STATUSES[Math.floor(random() * STATUSES.length)] as 'verified'
  if (random() < 0.25) filter.chain = CHAINS[Math.floor(random() * CHAINS.length)] as string
  if (random() < 0.5) filter.maxPriceAtomic = Math.floor(random() * 21) * 1000 - (random() < 0.2 ? 1 : 0)
  return filter
}

function check (t: Test, index: ListIndex, rows: readonly Row[], random: () => number, queries: number): void {
  let failures = 0
  for (let q = 0; q < queries; q++) {
    const filter = randomFilter(random)
    const sort: ServiceSort = { field: SORT_FIELDS[Math.floor(random() * 4)] as ServiceSort['field'], order: random() < 0.5 ? 'asc' : 'desc' }
    const within = random() < 0.1 ? new Set(rows.filter(() => random() < 0.1).map((row) => row.id)) : undefined
    const expected = reference(rows, filter, sort, within)
    // Offsets at the start, inside, at the very end and past it.
    const offset = [0, Math.floor(random() * expected.length), Math.max(0, expected.length - 1), expected.length + 3][Math.floor(random() * 4)] as number
    const limit = 1 + Math.floor(random() * 30)
    const got = index.query(filter, sort, { limit, offset }, within === undefined ? undefined : [...within])
    const want = expected.slice(offset, offset + limit)
    if (got.total !== expected.length || got.handles.join() !== want.join()) {
      failures++
      if (failures <= 3) t.fail(`${JSON.stringify(filter)} ${sort.field} ${sort.order} offset ${offset} limit ${limit}${within === undefined ? '' : ' within'}`, { got, want, total: expected.length })
    }
  }
  t.equal(failures, 0, `${queries} random queries match the reference`)
}

test('random catalogs and changes: every page and total as the reference has them', async (t) => {
  for (const seed of [1, 2, 3]) {
    const random = prng(seed)
    let rows: Row[] = Array.from({ length: 60 + seed * 150 }, (_, n) => randomEntry(random, n))
    // Seed 2 gets its orders handed in (as an adapter reads them off its own indexes).
    const orders = seed === 2
      ? Object.fromEntries(SORT_FIELDS.map((field) => [field, reference(rows, {}, { field, order: 'asc' })]))
      : {}
    const index = new ListIndex(rows, orders)
    t.equal(index.size, rows.length)
    check(t, index, rows, random, 300)
    let next = rows.length
    for (let round = 0; round < 4; round++) {
      // Updates (same id, new keys and handle), removals, insertions.
      for (let i = 0; i < 25; i++) {
        const at = Math.floor(random() * rows.length)
        const updated = { ...randomEntry(random, next++), id: (rows[at] as Row).id }
        rows[at] = updated
        index.upsert(updated)
      }
      const removed = rows.filter(() => random() < 0.1)
      for (const row of removed) t.ok(index.remove(row.id))
      rows = rows.filter((row) => !removed.includes(row))
      for (let i = 0; i < 20; i++) {
        const row = randomEntry(random, next++)
        rows.push(row)
        index.upsert(row)
      }
      t.equal(index.size, rows.length)
      check(t, index, rows, random, 200)
    }
    t.notOk(index.remove('svc_nobody'), 'removing an unknown id changes nothing')
  }
})

test('an empty index, and one grown from empty', async (t) => {
  const index = new ListIndex()
  t.same(index.query({}, { field: 'name', order: 'asc' }, { limit: 10, offset: 0 }), { handles: [], total: 0 })
  const random = prng(9)
  const rows = Array.from({ length: 1500 }, (_, n) => randomEntry(random, n))
  for (const row of rows) index.upsert(row)
  check(t, index, rows, random, 100)
})

test('a chain beyond the per-slot bit mask still filters', async (t) => {
  const chains = Array.from({ length: 40 }, (_, i) => `eip155:${i + 1}`)
  const rows: ListEntry[] = chains.map((chain, i) => ({ id: `svc_${i}`, handle: i, category: 'c', status: 'verified', priceAtomic: i, trustScore: 50, nameSort: 'n', createdAt: TIMES[0] as string, chains: [chain, 'eip155:1'] }))
  const index = new ListIndex(rows)
  const last = index.query({ chain: 'eip155:40' }, { field: 'price', order: 'asc' }, { limit: 5, offset: 0 })
  t.same(last, { handles: [39], total: 1 })
  t.equal(index.query({ chain: 'eip155:1' }, { field: 'price', order: 'desc' }, { limit: 100, offset: 0 }).total, 40)
  t.equal(index.query({ chain: 'eip155:39', status: 'verified' }, { field: 'name', order: 'asc' }, { limit: 5, offset: 0 }).total, 1)
  index.remove('svc_39')
  t.same(index.query({ chain: 'eip155:40' }, { field: 'price', order: 'asc' }, { limit: 5, offset: 0 }), { handles: [], total: 0 }, 'a value nobody holds any more matches nothing')
})

test('orders handed in must name every entry once', async (t) => {
  const rows: ListEntry[] = [0, 1].map((n) => ({ id: `svc_${n}`, handle: n, category: 'c', status: 'verified', priceAtomic: n, trustScore: 1, nameSort: 'n', createdAt: 'x', chains: [] }))
  t.throws(() => new ListIndex(rows, { price: [0, 7] }), /handle 7/)
  t.throws(() => new ListIndex(rows, { price: [0] }), /1 handles for 2 entries/)
  t.throws(() => new ListIndex([...rows, rows[0] as ListEntry]), /already an entry/)
  // An order that disagrees with the keys (a collation the index does not share): removal still finds the entry.
  const odd = new ListIndex(rows, { price: [1, 0] })
  t.ok(odd.remove('svc_0'))
  t.same(odd.query({}, { field: 'price', order: 'asc' }, { limit: 5, offset: 0 }), { handles: [1], total: 1 })
})

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

test('the SQLite store keeps each service\'s JSON current: made for stores from before it, remade when its format changes', async (t) => {
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
  const kept = (): Array<string | null> => raw.prepare('SELECT service_json FROM services ORDER BY rowid').pluck().all() as Array<string | null>

  // A store from before the column: no texts, no format noted.
  raw.exec("UPDATE services SET service_json = NULL; DELETE FROM store_meta WHERE key = 'service_json_format'")
  let store = new SqliteCatalogStore(dataDir)
  t.notOk(kept().includes(null), 'opening made every text')
  t.equal(text(await store.listServiceJson({}, sort, { limit: 10, offset: 0 })), expected)
  await store.close()

  // Texts made by another format (an older build's toService): all remade on open.
  raw.exec("UPDATE services SET service_json = '{\"old\":true}'; UPDATE store_meta SET value = 'old' WHERE key = 'service_json_format'")
  store = new SqliteCatalogStore(dataDir)
  t.notOk(kept().some((text) => text?.includes('"old"')), 'every text remade')
  t.equal(text(await store.listServiceJson({}, sort, { limit: 10, offset: 0 })), expected)

  // A row another process wrote without its text while this store is open: made at read time.
  raw.exec(`UPDATE services SET service_json = NULL WHERE id = '${(records[3] as { id: string }).id}'`)
  t.equal(text(await store.listServiceJson({}, sort, { limit: 10, offset: 0 })), expected)
  t.equal(text(await store.listServiceJson({}, { field: 'createdAt', order: 'desc' }, { limit: 100, offset: 0 })),
    JSON.stringify((await store.listServices({}, { field: 'createdAt', order: 'desc' }, { limit: 100, offset: 0 })).items.map(toService)))
  await store.close()
})

test('the list thread: another thread\'s writes show at once, and a thread that dies is replaced by the next list', async (t) => {
  const store = new SqliteCatalogStore(tempDataDir(t), { listThread: true })
  t.teardown(() => store.close())
  const records = demoRecords()
  const sort: ServiceSort = { field: 'createdAt', order: 'desc' }
  await store.insertServices(records.slice(0, 5))
  t.equal((await store.listServices({}, sort, { limit: 100, offset: 0 })).total, 5)
  // Written on this thread, listed on the other: the insert has committed before the list is asked.
  await store.insertService(records[5] as ServiceRecord)
  t.same((await store.listServices({}, sort, { limit: 100, offset: 0 })).items.map((r) => r.id).sort(), records.slice(0, 6).map((r) => r.id).sort())

  const asked = store.listServices({}, sort, { limit: 100, offset: 0 })
  await store.crashListThread()
  await t.rejects(asked, /list thread exited/, 'a list pending on the dead thread fails')
  await store.insertService(records[6] as ServiceRecord)
  t.equal(JSON.parse(Buffer.from((await store.listServiceJson({}, sort, { limit: 100, offset: 0 })).json).toString()).length, 7, 'the next list starts a new thread')
})

test('the list thread lends a page\'s bytes from shared memory: intact until released, and right when every slot is taken', async (t) => {
  const store = new SqliteCatalogStore(tempDataDir(t), { listThread: true })
  t.teardown(() => store.close())
  const records = demoRecords()
  await store.insertServices(records)
  const text = (page: { json: Uint8Array }): string => Buffer.from(page.json).toString()
  const expected = async (sort: ServiceSort, offset: number): Promise<string> =>
    JSON.stringify((await store.listServices({}, sort, { limit: 5, offset })).items.map(toService))

  const held = await store.listServiceJson({}, { field: 'name', order: 'asc' }, { limit: 10, offset: 0 })
  const before = text(held)
  t.type(held.release, 'function', 'a page from shared memory comes with its release')
  for (let i = 0; i < 150; i++) {
    const page = await store.listServiceJson({}, { field: 'price', order: 'desc' }, { limit: 5, offset: i % 40 })
    if (i % 30 === 0) t.equal(text(page), await expected({ field: 'price', order: 'desc' }, i % 40), `list ${i} while the first is held`)
    page.release?.()
  }
  t.equal(text(held), before, 'the held page was not written over')
  held.release?.()

  // More pages held at once than there are slots: the rest come in the message.
  const pages = await Promise.all(Array.from({ length: 100 }, async (_, i) => await store.listServiceJson({}, { field: 'trustScore', order: 'desc' }, { limit: 5, offset: i % 50 })))
  for (const [i, page] of pages.entries()) {
    if (i % 10 === 0) t.equal(text(page), await expected({ field: 'trustScore', order: 'desc' }, i % 50), `held page ${i}`)
  }
  t.ok(pages.some((page) => page.release === undefined), 'some came in the message')
  for (const page of pages) page.release?.()
})
