/**
 * The in-memory filter/sort index (src/lib/service-index.ts and its columns,
 * src/lib/service-columns.ts) against a reference computed here, through random catalogs
 * and random changes: its order is SQLite's order (code points, ties by id).
 */
import { test, type Test } from 'tap'
import Database from 'better-sqlite3'
import { compareText } from '../../src/domain/sort-keys.js'
import { payToKey } from '../../src/domain/pay-to.js'
import { ServiceIndex, type ListEntry } from '../../src/lib/service-index.js'
import { SORT_FIELDS, extensionBit, type ServiceFilter, type ServiceSort } from '../../src/domain/catalog-query.js'
import { prng } from '../../bench/generate.js'
import { isTestListing } from '../../src/domain/networks.js'
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
/** base-sepolia (eip155:84532) is a test network: a row holding it alone is a test-network listing. */
const CHAINS = ['eip155:8453', 'eip155:84532', 'solana:mainnet', 'eip155:1']
/**
 * payToKey values: EVM addresses lower-cased (two differ in their last byte only), others as
 * written, one of them 0x-prefixed but no address.
 */
const PAY_TO = ['0x1111111111111111111111111111111111111111', '0x1111111111111111111111111111111111111112', '0x2222222222222222222222222222222222222222', 'So1anaPayee111', '0xnotanaddress']
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
    chains: CHAINS.filter(() => random() < 0.4),
    payTo: pick(PAY_TO),
    // A few declare the Bazaar extension, as in a real catalog.
    extensionMask: random() < 0.2 ? extensionBit('bazaar') : 0
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
      (filter.payTo === undefined || row.payTo === payToKey(filter.payTo)) &&
      (filter.extension === undefined || (row.extensionMask & extensionBit(filter.extension)) !== 0) &&
      (filter.testnet === undefined || isTestListing(row.chains) === filter.testnet) &&
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
  // EVM addresses match case-insensitively, as a user may type them.
  if (random() < 0.2) filter.payTo = random() < 0.5 ? PAY_TO[0]?.toUpperCase().replace('0X', '0x') : PAY_TO[Math.floor(random() * PAY_TO.length)]
  if (random() < 0.25) filter.extension = 'bazaar'
  // Mostly the default lists' false; true finds the few rows on base-sepolia alone.
  if (random() < 0.4) filter.testnet = random() >= 0.7
  return filter
}

function check (t: Test, index: ServiceIndex, rows: readonly Row[], random: () => number, queries: number): void {
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
    const index = new ServiceIndex(rows)
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
  const index = new ServiceIndex()
  t.same(index.query({}, { field: 'name', order: 'asc' }, { limit: 10, offset: 0 }), { handles: [], total: 0 })
  const random = prng(9)
  const rows = Array.from({ length: 1500 }, (_, n) => randomEntry(random, n))
  for (const row of rows) index.upsert(row)
  check(t, index, rows, random, 100)
})

test('a chain beyond the per-slot bit mask still filters', async (t) => {
  const chains = Array.from({ length: 40 }, (_, i) => `eip155:${i + 1}`)
  const rows: ListEntry[] = chains.map((chain, i) => ({ id: `svc_${i}`, handle: i, category: 'c', status: 'verified', priceAtomic: i, trustScore: 50, nameSort: 'n', createdAt: TIMES[0] as string, chains: [chain, 'eip155:1'], payTo: 'p', extensionMask: 0 }))
  const index = new ServiceIndex(rows)
  const last = index.query({ chain: 'eip155:40' }, { field: 'price', order: 'asc' }, { limit: 5, offset: 0 })
  t.same(last, { handles: [39], total: 1 })
  t.equal(index.query({ chain: 'eip155:1' }, { field: 'price', order: 'desc' }, { limit: 100, offset: 0 }).total, 40)
  t.equal(index.query({ chain: 'eip155:39', status: 'verified' }, { field: 'name', order: 'asc' }, { limit: 5, offset: 0 }).total, 1)
  index.remove('svc_39')
  t.same(index.query({ chain: 'eip155:40' }, { field: 'price', order: 'asc' }, { limit: 5, offset: 0 }), { handles: [], total: 0 }, 'a value nobody holds any more matches nothing')
})

test('an entry given twice is refused', async (t) => {
  const rows: ListEntry[] = [0, 1].map((n) => ({ id: `svc_${n}`, handle: n, category: 'c', status: 'verified', priceAtomic: n, trustScore: 1, nameSort: 'n', createdAt: 'x', chains: [], payTo: 'p', extensionMask: 0 }))
  t.throws(() => new ServiceIndex([...rows, rows[0] as ListEntry]), /already an entry/)
})

test('the test-network split: either side alone, both sides, and a side nobody holds', async (t) => {
  const entry = (n: number, chains: string[]): ListEntry => ({ id: `svc_${n}`, handle: n, category: 'c', status: 'verified', priceAtomic: n, trustScore: 50, nameSort: 'n', createdAt: TIMES[0] as string, chains, payTo: 'p', extensionMask: 0 })
  const real = [entry(0, ['eip155:8453']), entry(1, ['eip155:8453', 'eip155:84532']), entry(2, [])]
  const index = new ServiceIndex(real)
  const byPrice = { field: 'price', order: 'asc' } as const
  t.same(index.query({ testnet: false }, byPrice, { limit: 10, offset: 0 }), { handles: [0, 1, 2], total: 3 }, 'one real network makes a listing real; no network at all is no test listing')
  t.same(index.query({ testnet: true }, byPrice, { limit: 10, offset: 0 }), { handles: [], total: 0 }, 'no test listing: the test side matches nothing')
  index.upsert(entry(3, ['eip155:84532', 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1']))
  index.upsert(entry(4, ['eip155:84532']))
  t.same(index.query({ testnet: true }, { field: 'price', order: 'desc' }, { limit: 10, offset: 0 }), { handles: [4, 3], total: 2 }, 'every chain a test network: a test listing')
  t.same(index.query({ testnet: false }, byPrice, { limit: 2, offset: 1 }), { handles: [1, 2], total: 3 }, 'a page of the real side carries its total')
  t.same(index.query({ testnet: false }, byPrice, { limit: 2, offset: 3 }), { handles: [], total: 3 }, 'past the end: empty, with the total')
  t.same(index.query({ testnet: true, chain: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' }, byPrice, { limit: 10, offset: 0 }), { handles: [3], total: 1 }, 'with another filter')
  for (const id of ['svc_0', 'svc_1', 'svc_2']) index.remove(id)
  t.same(index.query({ testnet: false }, byPrice, { limit: 10, offset: 0 }), { handles: [], total: 0 }, 'only test listings left: the real side matches nothing')
  t.same(index.query({ testnet: true }, byPrice, { limit: 10, offset: 0 }), { handles: [3, 4], total: 2 }, 'and the test side is everything')
})
