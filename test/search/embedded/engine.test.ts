/**
 * The embedded engine on its own: paging through the bucket sort, facets, removals,
 * a second process's writes, compaction and the search thread.
 */
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { test } from 'tap'
import { toSearchDocument } from '../../../indexer/search-document.js'
import { readSeedFile, seedRecords } from '../../../src/domain/seed.js'
import type { ServiceRecord } from '../../../src/domain/service.js'
import { splitQueryWords } from '../../../src/search/analysis/analyzer.js'
import { loadTokenizer } from '../../../src/search/analysis/tokenizer.js'
import type { FacetField, SearchDocument, SearchQuery, SearchResult } from '../../../src/search/search-engine.js'
import { EmbeddedSearchEngine } from '../../../src/search/embedded/engine.js'
import { SEARCH_FILE } from '../../../src/search/embedded/engine.js'
import { Searcher } from '../../../src/search/embedded/thread/searcher.js'
import { tempDataDir } from '../../support/basics.js'

const demo = readSeedFile('demo')
const ALL = { limit: 100_000, offset: 0 }

/**
 * `count` services from the demo catalog; nine in ten also carry "quokka" in the name or
 * the description (at varying distances from "lens"), so one query word matches ~90%.
 * Every third is verified (the demo catalog itself starts unverified), so status filters keep some.
 */
function catalog (count: number): ServiceRecord[] {
  const entries = Array.from({ length: count }, (_, i) => {
    const base = demo[i % demo.length] as (typeof demo)[number]
    const tagged = i % 10 !== 0
    const name = tagged && i % 3 === 0 ? `${base.name} quokka ${i}` : `${base.name} ${i}`
    const description = tagged && i % 3 !== 0 ? `${'filler '.repeat(i % 5)}quokka ${i % 2 === 0 ? 'lens' : 'photos and a lens'} ${base.description}` : base.description
    return { ...base, name, description, endpoint: `${base.endpoint}/copy-${i}`, uptimeScore: (i * 37) % 101 }
  })
  return seedRecords(entries, new Date().toISOString()).map((record, i) => (i % 3 === 1 ? { ...record, status: 'verified' as const } : record))
}

async function documents (records: readonly ServiceRecord[], firstSeq = 1): Promise<SearchDocument[]> {
  const tokenizer = await loadTokenizer()
  return records.map((record, i) => toSearchDocument(record, firstSeq + i, tokenizer))
}

function query (text: string, extra: Partial<SearchQuery> = {}): SearchQuery {
  return { words: splitQueryWords(text), filter: {}, page: { limit: 20, offset: 0 }, prefixLastWord: false, ...extra }
}

const ids = (result: SearchResult): string[] => result.hits.map((hit) => hit.id)

test('a page equals its slice of the full ranking, for a query matching ~90% of services, at any depth', async (t) => {
  const dataDir = tempDataDir(t)
  const engine = new EmbeddedSearchEngine(dataDir)
  t.teardown(() => engine.close())
  const records = catalog(400)
  await engine.apply(await documents(records), records.length)
  const trust = new Map(records.map((r) => [r.id, r.trustScore]))

  for (const [text, filter] of [['quokka', {}], ['quokka lens', {}], ['quokka lens', { status: 'verified' as const }], ['qokka weather', {}]] as const) {
    const full = await engine.search(query(text, { filter, page: ALL }))
    t.ok(full.total > 0 && full.hits.length === full.total, `${text}: the full ranking holds every match (${full.total})`)
    if (text === 'quokka') t.ok(full.total >= records.length * 0.85, `"quokka" matches about 90% (${full.total}/${records.length})`)
    // The order is the documented one: score (the rules) descending, then trust descending, then id.
    for (let i = 1; i < full.hits.length; i++) {
      const [a, b] = [full.hits[i - 1], full.hits[i]] as [SearchResult['hits'][0], SearchResult['hits'][0]]
      const ordered = a.score > b.score || (a.score === b.score && ((trust.get(a.id) as number) > (trust.get(b.id) as number) ||
        (trust.get(a.id) === trust.get(b.id) && a.id < b.id)))
      if (!ordered) { t.fail(`${text}: ${a.id} before ${b.id} breaks the ranking order`); break }
    }
    for (const page of [{ limit: 20, offset: 0 }, { limit: 7, offset: 3 }, { limit: 13, offset: 137 }, { limit: 50, offset: full.total - 20 }, { limit: 10, offset: full.total + 5 }]) {
      const got = await engine.search(query(text, { filter, page }))
      t.equal(got.total, full.total, `${text} ${JSON.stringify(page)}: same total`)
      t.same(got.hits, full.hits.slice(page.offset, page.offset + page.limit), `${text} ${JSON.stringify(page)}: the slice of the full ranking`)
    }
  }

  const sorted = await engine.search(query('quokka', { sort: { field: 'price', order: 'asc' }, page: ALL }))
  const price = new Map(records.map((r) => [r.id, r.priceAtomic]))
  t.ok(sorted.hits.every((hit, i) => i === 0 || (price.get(sorted.hits[i - 1]?.id as string) as number) <= (price.get(hit.id) as number)), 'an explicit sort orders every match')
  for (const page of [{ limit: 10, offset: 0 }, { limit: 25, offset: 180 }]) {
    for (const sort of [{ field: 'price', order: 'asc' }, { field: 'name', order: 'desc' }, { field: 'createdAt', order: 'asc' }, { field: 'trustScore', order: 'desc' }] as const) {
      const all = await engine.search(query('quokka', { sort, page: ALL }))
      t.same(ids(await engine.search(query('quokka', { sort, page }))), ids(all).slice(page.offset, page.offset + page.limit), `sorted by ${sort.field} ${sort.order}, ${JSON.stringify(page)}`)
    }
  }
})

test('facets count every match after the filter, not just the page', async (t) => {
  const dataDir = tempDataDir(t)
  const engine = new EmbeddedSearchEngine(dataDir)
  t.teardown(() => engine.close())
  const records = catalog(300)
  await engine.apply(await documents(records), records.length)
  const facets: FacetField[] = ['category', 'status', 'network']

  for (const filter of [{}, { status: 'verified' as const }, { chain: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' }]) {
    const result = await engine.search(query('quokka', { filter, facets, page: { limit: 5, offset: 0 } }))
    const full = await engine.search(query('quokka', { filter, page: ALL }))
    const matched = records.filter((r) => ids(full).includes(r.id))
    const expected: Record<string, Record<string, number>> = { category: {}, status: {}, network: {} }
    for (const r of matched) {
      const add = (field: string, value: string): void => { expected[field]![value] = (expected[field]![value] ?? 0) + 1 }
      add('category', r.category)
      add('status', r.status)
      for (const chain of new Set(r.supportedChains)) add('network', chain)
    }
    t.equal(result.hits.length, Math.min(5, full.total))
    t.equal(result.total, full.total, 'facets do not change the total')
    t.same(result.facetDistribution, expected, `${JSON.stringify(filter)}: counts over all ${full.total} matches`)
    t.equal(Object.values(result.facetDistribution?.category ?? {}).reduce((a, b) => a + b, 0), full.total, 'each match counts once per category')
  }
  const one = await engine.search(query('quokka', { facets: ['status'] }))
  t.same(Object.keys(one.facetDistribution ?? {}), ['status'], 'only the fields asked for')
  t.notOk('facetDistribution' in (await engine.search(query('quokka'))), 'none when none are asked for')
  const none = await engine.search(query('zzzznothing', { facets }))
  t.same(none.facetDistribution, { category: {}, status: {}, network: {} }, 'no match: every asked field, no values')
  const unknownCategory = await engine.search(query('quokka', { filter: { category: 'no-such-category' }, facets: ['category'] }))
  t.same([unknownCategory.total, unknownCategory.facetDistribution], [0, { category: {} }])
})

test('removals, replays and a second process writing the same index', async (t) => {
  const dataDir = tempDataDir(t)
  const writer = new EmbeddedSearchEngine(dataDir)
  const reader = new EmbeddedSearchEngine(dataDir)
  t.teardown(async () => { await writer.close(); await reader.close() })
  const records = catalog(60)
  const docs = await documents(records)
  await writer.apply(docs, docs.length)
  const total = async (text: string, engine = reader): Promise<number> => (await engine.search(query(text))).total
  t.equal(await total('quokka'), 54, 'the reader loads what the writer wrote')

  const [, first, second] = records as [ServiceRecord, ServiceRecord, ServiceRecord]
  await writer.apply(await documents([{ ...first, name: 'Platypus Radar', description: 'Finds platypuses.' }], 1000), 1000, [second.id, 'svc_unknown'])
  t.equal(await total('platypus'), 1, 'an update written elsewhere is seen by the next search')
  t.equal(await total('quokka'), 52, 'the old text of the updated service and the removed service are gone')
  t.equal(await total('platypus', writer), 1, 'the writer sees it too')
  await writer.apply(await documents([{ ...first, name: 'Wombat Radar' }], 999), 1001)
  t.equal(await total('wombat'), 0, 'an older document never replaces a newer one')

  await writer.rebuild((async function * () { yield await documents(records.slice(10, 20)) })(), 2000)
  t.equal(await total('quokka'), 9, 'after a swap the reader answers from the new generation')
  t.equal((await reader.stats()).documents, 10)
})

test('searches between writes answer exactly as an engine loaded afresh after them', async (t) => {
  const dataDir = tempDataDir(t)
  const engine = new EmbeddedSearchEngine(dataDir)
  t.teardown(() => engine.close())
  const records = catalog(300)
  await engine.apply(await documents(records.slice(0, 200)), 200)
  const queries = [
    query('quokka'),
    query('quokka lens', { page: { limit: 15, offset: 10 } }),
    query('quokka', { filter: { status: 'verified' }, facets: ['category', 'status', 'network'] }),
    query('qokka photos', { filter: { chain: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' } }),
    query('weather lens', { prefixLastWord: true }),
    query('quokka', { sort: { field: 'price', order: 'desc' }, page: { limit: 10, offset: 3 } })
  ]
  let seq = 1000
  for (let round = 0; round < 6; round++) {
    // The sets of these queries are cached before each write.
    for (const q of queries) await engine.search(q)
    const added = records.slice(200 + round * 15, 215 + round * 15)
    const updated = records.slice(round * 10, round * 10 + 5).map((r, i) => ({ ...r, name: i % 2 === 0 ? `Quokka lens ${round}` : `Plain ${round}`, description: `photos ${r.description}` }))
    const removed = records.slice(100 + round * 4, 104 + round * 4).map((r) => r.id)
    await engine.apply(await documents([...added, ...updated], seq), seq + 100, removed)
    seq += 200
    const fresh = new EmbeddedSearchEngine(dataDir)
    const answers = async (engine: EmbeddedSearchEngine): Promise<SearchResult[]> => { const out = []; for (const q of queries) out.push(await engine.search(q)); return out }
    // t.same: facet values are compared as a map (their order follows when each value was first seen).
    t.same(await answers(engine), await answers(fresh), `round ${round}: every answer equals the fresh engine's`)
    await fresh.close()
  }
  const { wordSets } = await engine.memory()
  t.ok(wordSets.hits > wordSets.misses, `sets were kept across the writes (${wordSets.hits} hits, ${wordSets.misses} misses)`)
})

test('compaction: after many updates the reader reloads itself and answers the same', async (t) => {
  const dataDir = tempDataDir(t)
  const engine = new EmbeddedSearchEngine(dataDir)
  t.teardown(() => engine.close())
  const records = catalog(100)
  await engine.apply(await documents(records), records.length)
  const before = await engine.search(query('quokka lens', { page: ALL }))
  const tokenizer = await loadTokenizer()
  // 1,100 rewrites of the same services, each seen by a search, leave 1,100 dead slots:
  // more than the threshold. (Rewrites no search saw in between cost nothing.)
  for (let round = 0; round < 11; round++) {
    await engine.apply(records.map((r, i) => toSearchDocument(r, 1000 * (round + 1) + i, tokenizer)), 1000 * (round + 1) + records.length)
    if (round < 10) t.equal((await engine.search(query('quokka lens'))).total, before.total)
  }
  const memory = await engine.memory()
  t.ok(memory.deadSlots >= 1000, `dead slots piled up (${memory.deadSlots})`)
  t.same(await engine.search(query('quokka lens', { page: ALL })), before, 'answers are unchanged meanwhile')
  for (let i = 0; i < 200 && (await engine.memory()).deadSlots >= 1000; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  const after = await engine.memory()
  t.ok(after.deadSlots <= records.length, `a fresh copy replaced it (${after.deadSlots} dead: rewrites during its load)`)
  t.equal(after.documents, records.length)
  t.ok(after.bytes.postings > 0 && after.bytes.documents > 0 && after.terms > 0)
  t.same(await engine.search(query('quokka lens', { page: ALL })), before, 'and answers the same')
})

test('a search thread follows writes, reports its index, and answers nothing once closed', async (t) => {
  const dataDir = tempDataDir(t)
  const engine = new EmbeddedSearchEngine(dataDir, { threads: 1 })
  t.teardown(() => engine.close())
  const records = catalog(40)
  await engine.apply(await documents(records), records.length)
  t.equal((await engine.search(query('quokka'))).total, 36)
  const [first] = records as [ServiceRecord]
  await engine.apply(await documents([{ ...first, name: 'Echidna Finder' }], 500), 500)
  t.same(ids(await engine.search(query('echidna'))), [first.id], 'a write is visible to the next search')
  t.equal((await engine.memory()).documents, records.length)
  await engine.close()
  await t.rejects(engine.search(query('echidna')), /closed/)
})

test('a search thread answers exactly what a search on the calling thread answers, matched tokens included', async (t) => {
  const dataDir = tempDataDir(t)
  const engine = new EmbeddedSearchEngine(dataDir, { threads: 1 })
  const db = new Database(join(dataDir, SEARCH_FILE))
  t.teardown(async () => { db.close(); await engine.close() })
  const records = catalog(120)
  await engine.apply(await documents(records), records.length)
  const here = new Searcher(db)
  const queries = [
    query('quokka lens', { page: ALL }),
    query('qokka phtos', { page: ALL }),
    query('quokka len', { prefixLastWord: true, facets: ['category', 'status', 'network'] }),
    query('天気 quokka', { page: { limit: 7, offset: 5 } }),
    query('nothing-matches-this')
  ]
  for (const q of queries) {
    const expected = await here.search(q)
    t.ok(expected.hits.every((hit) => hit.matchedTokens.length > 0) || expected.total === 0, `${q.words.map((w) => w.text).join(' ')}: every hit says how it matched`)
    t.same(await engine.search(q), expected, q.words.map((w) => w.text).join(' '))
  }
})

test('after a copy of the index is installed, the thread is told once the searches that waited have resumed', async (t) => {
  const dataDir = tempDataDir(t)
  const writer = new EmbeddedSearchEngine(dataDir)
  const db = new Database(join(dataDir, SEARCH_FILE))
  t.teardown(async () => { db.close(); await writer.close() })
  const records = catalog(30)
  await writer.apply(await documents(records), records.length)
  const events: string[] = []
  const searcher = new Searcher(db, { afterLoad: () => { events.push('released') } })
  const waitFor = async (count: number): Promise<void> => {
    for (let i = 0; i < 200 && events.filter((e) => e === 'released').length < count; i++) await new Promise((resolve) => setTimeout(resolve, 5))
  }

  await Promise.all([1, 2, 3].map(async () => { await searcher.search(query('quokka')); events.push('answered') }))
  await waitFor(1)
  t.same(events, ['answered', 'answered', 'answered', 'released'], 'the first load, after its waiting searches')

  await writer.rebuild((async function * () { yield await documents(records.slice(0, 10)) })(), 5000)
  events.length = 0
  await Promise.all([1, 2].map(async () => { events.push(`total ${(await searcher.search(query('quokka'))).total}`) }))
  await waitFor(1)
  t.same(events, ['total 9', 'total 9', 'released'], 'a reindexed generation replaced the old copy')
  await searcher.search(query('quokka'))
  await new Promise((resolve) => setTimeout(resolve, 20))
  t.equal(events.filter((e) => e === 'released').length, 1, 'a search that needs no load releases nothing')
})
