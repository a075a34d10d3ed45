/**
 * Word sets and filter sets kept across writes: after any sequence of additions,
 * replacements (a new rowid, the old slot dead) and removals, a cached set brought up to
 * date equals one built afresh, and ranking answers exactly as a fresh scratch does.
 */
import { test } from 'tap'
import { prng } from '../../../bench/generate.js'
import { extensionBit, type ServiceFilter } from '../../../src/domain/catalog-query.js'
import { MATCH_EXACTNESS } from '../../../src/search/match-rules.js'
import type { DocumentTerm, FacetField, MatchKind } from '../../../src/search/search-engine.js'
import { MemoryIndex, type IndexRow } from '../../../src/search/embedded/index/memory-index.js'
import { planQuery, type PlannedWord } from '../../../src/search/embedded/ranking/query-plan.js'
import { rank, Scratch, type RankQuery } from '../../../src/search/embedded/ranking/ranking.js'
import { encodeCategoryTerms, encodeTerms } from '../../../src/search/embedded/index/terms.js'
import { ANY, buildWordSets, EXACT, EXPANDED, extendFilter, FilterSet, NAME, NAME_OR_CATEGORY, NO_TYPO, ONE_TYPO, SETS, strideOf, TEXT, WordSetCache, WordSets, wordKey } from '../../../src/search/embedded/ranking/word-sets.js'

/** Near spellings (typo candidates), shared beginnings (prefix candidates), category words. */
const WORDS = ['alpha', 'alpine', 'alphabet', 'beta', 'betta', 'better', 'gamma', 'gamme', 'delta', 'deltas', 'radar', 'weather', 'wether', 'tokyo', 'osaka', 'forecast', 'forecasts', 'sunrise', 'sunset', 'quokka']
const QUERY_WORDS = [...WORDS, 'weathe', 'forcast', 'alphabte', 'alp', 'sun', 'bet', 'forec', 'nothing']
/** c3 has no category text: its members match through their own words only. */
const CATEGORY_TEXT: Record<string, string[]> = { c0: ['alpha', 'beta'], c1: ['weather', 'forecast'], c2: ['tokyo', 'radar', 'alpha'] }
const CATEGORIES = ['c0', 'c1', 'c2', 'c3']
const FILTERS: ServiceFilter[] = [{}, { status: 'verified' }, { category: 'c1' }, { category: 'c3' }, { maxPriceAtomic: 2500 }, { chain: 'solana:x' }, { extension: 'bazaar' }]

type Random = () => number
const below = (random: Random, n: number): number => Math.floor(random() * n)
const pick = <T>(random: Random, list: readonly T[]): T => list[below(random, list.length)] as T

function setCategories (index: MemoryIndex): void {
  for (const [category, words] of Object.entries(CATEGORY_TEXT)) index.setCategoryTerms(category, encodeCategoryTerms(words.map((term, position) => ({ term, position: position * 2 }))))
}

function rowOf (random: Random, rowid: number, id = `svc_${rowid}`): IndexRow {
  const name: DocumentTerm[] = Array.from({ length: 1 + below(random, 3) }, (_, position) => ({ term: pick(random, WORDS), position }))
  const description: DocumentTerm[] = Array.from({ length: below(random, 6) }, (_, k) => ({
    term: pick(random, WORDS),
    // Far positions are capped; fragments (bigrams) carry none.
    position: random() < 0.5 ? k : below(random, 700),
    ...(random() < 0.1 ? { fragment: true } : {})
  }))
  // Five forms at one position: the fifth matches without a position.
  if (random() < 0.1) description.push(...['alpha', 'beta', 'gamma', 'delta', 'radar'].map((term) => ({ term, position: 3 })))
  return {
    rowid,
    id,
    category: pick(random, CATEGORIES),
    status: random() < 0.5 ? 'verified' : 'unverified',
    priceAtomic: below(random, 5000),
    trustScore: below(random, 4) * 25,
    nameSort: id,
    createdAt: '2026-01-01T00:00:00.000Z',
    chains: random() < 0.2 ? ['solana:x'] : ['eip155:8453'],
    payTo: '0x1111111111111111111111111111111111111111',
    extensionMask: random() < 0.3 ? extensionBit('bazaar') : 0,
    terms: [encodeTerms(name), encodeTerms(description)]
  }
}

function queryOf (random: Random, index: MemoryIndex): RankQuery {
  const words = Array.from({ length: 1 + below(random, 5) }, () => pick(random, QUERY_WORDS))
  const plan = planQuery(words.map((text) => ({ text, forms: [text] })), index.vocabulary, new Map(), { prefixLastWord: random() < 0.5 })
  const facets: FacetField[] | undefined = random() < 0.3 ? ['category', 'status'] : undefined
  return {
    plan,
    filter: pick(random, FILTERS),
    ...(random() < 0.2 ? { sort: { field: 'price' as const, order: 'asc' as const } } : {}),
    page: { limit: 1 + below(random, 20), offset: below(random, 30) },
    ...(facets === undefined ? {} : { facets })
  }
}

/** Differences between a kept set and a fresh one: layout, every set's bits, ranks of used blocks, matches, positions. */
function differences (kept: WordSets, fresh: WordSets, positions: boolean): string[] {
  const out: string[] = []
  const used = (fresh.synced + 31) >>> 5
  if (kept.synced !== fresh.synced) out.push(`synced ${kept.synced} vs ${fresh.synced}`)
  if (kept.stride !== fresh.stride) out.push(`stride ${kept.stride} vs ${fresh.stride}`)
  if (kept.matched !== fresh.matched) out.push(`matched ${kept.matched} vs ${fresh.matched}`)
  for (let s = 0; s < SETS; s++) if (kept.set(s).some((x, i) => x !== fresh.set(s)[i])) out.push(`set ${s}`)
  for (let s = 0; s < SETS; s++) if (kept.size(s) !== slotsIn(fresh.set(s), fresh.synced).length) out.push(`size of set ${s}`)
  if (kept.rankBase.subarray(0, used).some((x, i) => x !== fresh.rankBase[i])) out.push('rankBase')
  if (positions) {
    const a = kept.positions.subarray(0, kept.matched * 3)
    const b = fresh.positions.subarray(0, fresh.matched * 3)
    if (a.length !== b.length || a.some((x, i) => x !== b[i])) out.push('positions')
  }
  return out
}

function freshFilter (index: MemoryIndex, filter: ServiceFilter): Uint32Array | undefined {
  const accept = index.columns.matcher(filter)
  if (accept === undefined) return undefined
  const set = new FilterSet(filter, index.removals)
  set.extend(index, accept)
  return set.bits
}

/** Compares every cached entry that is up to date (or, with `all`, every one brought up to date) with a fresh build. */
function checkEntries (index: MemoryIndex, cache: WordSetCache, random: Random, all: boolean): string[] {
  const problems: string[] = []
  for (const [key, entry] of [...cache.entries()]) {
    const { value } = entry
    if (value instanceof WordSets) {
      if (all) cache.get(index, value.word)
      if (value.synced !== index.slots) continue
      const diff = differences(value, buildWordSets(index, value.word), random() < 0.5)
      if (diff.length > 0) problems.push(`${key.split('\u0000')[0] as string}: ${diff.join(', ')}`)
    } else {
      const accept = index.columns.matcher(value.filter)
      if (all && accept !== undefined) cache.filter(index, value.filter, accept)
      if (value.synced !== index.slots || value.removalsSeen !== index.removals) continue
      const fresh = freshFilter(index, value.filter)
      if (fresh !== undefined && (fresh.length !== value.bits.length || fresh.some((x, i) => x !== value.bits[i]))) problems.push(`filter ${JSON.stringify(value.filter)}`)
    }
  }
  return problems
}

/** The cache's count equals the sum over its entries, recounted now (positions built since included), and stays within its limit. */
function checkBytes (cache: WordSetCache): string | undefined {
  let sum = 0
  for (const [key, { value, bytes }] of cache.entries()) {
    if (bytes !== value.bytes + key.length * 2) return `${key}: counted ${bytes}, holds ${value.bytes + key.length * 2}`
    sum += bytes
  }
  const counted = cache.bytes - cache.pooledBytes
  if (counted !== sum) return `counted ${counted}, entries hold ${sum}`
  if (counted > cache.limit) return `${counted} bytes over the limit ${cache.limit}`
  return undefined
}

test('kept across 500 random writes, every set equals a fresh build and every ranking a fresh one', async (t) => {
  const random = prng(19)
  const index = new MemoryIndex(1, 0)
  setCategories(index)
  let nextRowid = 1
  const live: Array<{ rowid: number, id: string }> = []
  const addRow = (id?: string): void => {
    const rowid = nextRowid++
    const row = rowOf(random, rowid, id)
    index.add(row)
    live.push({ rowid, id: row.id })
  }
  // Just below the first stride boundary (2,048 slots): the writes cross it.
  for (let i = 0; i < 1900; i++) addRow()
  const scratch = new Scratch()
  // A second cache, small enough to evict, kept up to date by the same queries.
  const small = new Scratch(new WordSetCache(64 * 1024))
  const problems: string[] = []
  const counts = { add: 0, replace: 0, remove: 0, compared: 0 }
  for (let op = 0; op < 500 && problems.length === 0; op++) {
    const r = random()
    if (r < 0.45 || live.length === 0) {
      addRow()
      counts.add++
    } else if (r < 0.75) {
      const [old] = live.splice(below(random, live.length), 1) as [{ rowid: number, id: string }]
      index.remove(old.rowid)
      addRow(old.id)
      counts.replace++
    } else {
      const [old] = live.splice(below(random, live.length), 1) as [{ rowid: number, id: string }]
      index.remove(old.rowid)
      counts.remove++
    }
    for (let q = 0; q < 3; q++) {
      const query = queryOf(random, index)
      const expected = JSON.stringify(rank(index, new Scratch(), query))
      for (const [name, kept] of [['cache', scratch], ['small cache', small]] as const) {
        if (JSON.stringify(rank(index, kept, query)) !== expected) problems.push(`op ${op}, ${name}: ${JSON.stringify(query.plan.map((w) => w.text))} ${JSON.stringify(query.filter)} ranks differently`)
      }
      counts.compared++
    }
    for (const kept of [scratch, small]) {
      problems.push(...checkEntries(index, kept.cache, random, op % 50 === 49).map((p) => `op ${op}: ${p}`))
      const bytes = checkBytes(kept.cache)
      if (bytes !== undefined) problems.push(`op ${op}: ${bytes}`)
    }
  }
  t.same(problems, [], 'no difference')
  t.ok(counts.add > 100 && counts.replace > 100 && counts.remove > 50, `every kind of write (${JSON.stringify(counts)})`)
  t.ok(index.slots > 2048 && strideOf(index.slots) > strideOf(1900), `the stride boundary was crossed (${index.slots} slots)`)
  t.ok(scratch.cache.hits > scratch.cache.misses, `sets were kept across writes (${scratch.cache.hits} hits, ${scratch.cache.misses} misses)`)
  t.ok(small.cache.misses > scratch.cache.misses, `the small cache evicted and rebuilt sets (${small.cache.misses} misses)`)
})

test("a page equals its slice of the whole ranking for any query: a rule's first bucket made alone agrees with the rule's bit planes", async (t) => {
  const random = prng(23)
  const index = new MemoryIndex(1, 0)
  setCategories(index)
  for (let rowid = 1; rowid <= 3000; rowid++) index.add(rowOf(random, rowid))
  const scratch = new Scratch()
  const problems: string[] = []
  let compared = 0
  for (let q = 0; q < 600 && problems.length < 5; q++) {
    const query = queryOf(random, index)
    if (query.sort !== undefined) continue
    // The whole ranking needs every document of each bucket, so no first bucket is made alone.
    const whole = rank(index, new Scratch(), { ...query, page: { limit: 100_000, offset: 0 } })
    const page = rank(index, scratch, query)
    const expected = whole.docs.slice(query.page.offset, query.page.offset + query.page.limit)
    if (JSON.stringify(page.docs) !== JSON.stringify(expected)) problems.push(`${JSON.stringify(query.plan.map((w) => w.text))} ${JSON.stringify(query.filter)} ${JSON.stringify(query.page)}`)
    compared++
  }
  t.same(problems, [], 'every page is the slice')
  t.ok(compared > 400, `${compared} queries compared`)
})

test('a set laid out before the stride boundary is widened when extended past it, positions kept', async (t) => {
  const random = prng(7)
  const index = new MemoryIndex(1, 0)
  setCategories(index)
  for (let rowid = 1; rowid <= 2040; rowid++) index.add(rowOf(random, rowid))
  const word: PlannedWord = { text: 'alpha', candidates: [{ term: 'alpha', kind: 'exact', typos: 0 }, { term: 'alphabet', kind: 'prefix', typos: 0 }] }
  const kept = buildWordSets(index, word)
  t.equal(kept.stride, 64)
  t.ok(kept.positions.length > 0)
  for (let rowid = 2041; rowid <= 2100; rowid++) index.add(rowOf(random, rowid))
  index.remove(5)
  kept.extend()
  t.equal(kept.stride, 128)
  t.same(differences(kept, buildWordSets(index, word), true), [])
  const old = buildWordSets(index, word)
  kept.extend()
  t.same(differences(kept, old, true), [], 'nothing written since: unchanged')
})

/** A set's slots, from its bits. */
function slotsIn (bits: Uint32Array, slots: number): number[] {
  return Array.from({ length: slots }, (_, slot) => slot).filter((slot) => (((bits[slot >>> 5] as number) >>> (slot & 31)) & 1) === 1)
}

test('every set of a word holds exactly the documents its definition names, read off the rows (sets that share storage included)', async (t) => {
  const random = prng(23)
  const index = new MemoryIndex(1, 0)
  setCategories(index)
  const rows = Array.from({ length: 700 }, (_, i) => rowOf(random, i + 1))
  for (const row of rows) index.add(row)
  // What each row says of a term, from the row itself: in its name, in its description, in its category's text.
  const termsOf = (encoded: unknown): string[] => (encoded as unknown[]).filter((x): x is string => typeof x === 'string')
  const facts = rows.map((row) => ({ name: new Set(termsOf(row.terms[0])), description: new Set(termsOf(row.terms[1])), category: new Set(CATEGORY_TEXT[row.category] ?? []) }))
  const KINDS: Array<[MatchKind, number]> = [['exact', 0], ['alternative', 0], ['prefix', 0], ['synonym', 0], ['typo', 1], ['typo', 2]]
  let checked = 0
  for (let q = 0; q < 200; q++) {
    const candidates = Array.from({ length: 1 + below(random, 3) }, () => {
      const [kind, typos] = pick(random, KINDS)
      return { term: pick(random, WORDS), kind, typos }
    })
    const word: PlannedWord = { text: 'w', candidates }
    const sets = buildWordSets(index, word)
    const expected = (s: number): number[] => facts.map((fact, slot) => ({ fact, slot })).filter(({ fact }) => candidates.some((c) => {
      const name = fact.name.has(c.term)
      const text = name || fact.description.has(c.term)
      const category = fact.category.has(c.term)
      const exactness = MATCH_EXACTNESS[c.kind]
      switch (s) {
        case ANY: return text || category
        case TEXT: return text
        case NAME: return name
        case NAME_OR_CATEGORY: return name || category
        case NO_TYPO: return c.typos === 0 && (text || category)
        case ONE_TYPO: return c.typos <= 1 && (text || category)
        case EXACT: return exactness === 0 && (text || category)
        case EXPANDED: return exactness <= 1 && (text || category)
        default: throw new Error(`no set ${s}`)
      }
    })).map(({ slot }) => slot)
    for (let s = 0; s < SETS; s++) {
      if (JSON.stringify(slotsIn(sets.set(s), index.slots)) !== JSON.stringify(expected(s))) t.fail(`${JSON.stringify(candidates)}: set ${s}`)
      else checked++
    }
  }
  t.equal(checked, 200 * SETS, 'every set of 200 random words')
  // A word met only exactly, named by no category: its other sets are its matches, its name
  // matches, or empty. They take no storage of their own.
  const plain = buildWordSets(index, { text: 'gamma', candidates: [{ term: 'gamma', kind: 'exact', typos: 0 }] })
  t.ok(slotsIn(plain.set(NAME), index.slots).length > 0)
  t.equal(plain.bits.length, 2 * plain.stride, 'a plain word holds two sets: its matches and its name matches')
  const typo = buildWordSets(index, { text: 'gamme', candidates: [{ term: 'gamme', kind: 'exact', typos: 0 }, { term: 'gamma', kind: 'typo', typos: 1 }] })
  t.ok(typo.bits.length < SETS * typo.stride, `a word with a typo candidate holds fewer than eight (${typo.bits.length / typo.stride})`)
})

test('a category naming a cached word, created before its members arrive: the set gives its category-sensitive sets their own storage and equals a fresh build', async (t) => {
  const random = prng(29)
  const index = new MemoryIndex(1, 0)
  setCategories(index)
  for (let rowid = 1; rowid <= 300; rowid++) index.add(rowOf(random, rowid))
  const word: PlannedWord = { text: 'gamma', candidates: [{ term: 'gamma', kind: 'exact', typos: 0 }] }
  const kept = buildWordSets(index, word)
  t.equal(kept.bits.length, 2 * kept.stride)
  const epoch = index.categoryEpoch
  // No member yet: the older slots' sets stay right, so the cache is not dropped.
  index.setCategoryTerms('late', encodeCategoryTerms([{ term: 'gamma', position: 0 }]))
  t.equal(index.categoryEpoch, epoch)
  const late: Array<{ slot: number, name: boolean, text: boolean }> = []
  for (let rowid = 301; rowid <= 340; rowid++) {
    const row = { ...rowOf(random, rowid), category: rowid % 2 === 0 ? 'late' : 'c3' }
    const slot = index.add(row)
    const has = (encoded: unknown): boolean => (encoded as unknown[]).includes('gamma')
    if (row.category === 'late') late.push({ slot, name: has(row.terms[0]), text: has(row.terms[0]) || has(row.terms[1]) })
  }
  kept.extend()
  t.same(differences(kept, buildWordSets(index, word), true), [], 'equal to a fresh build, set by set')
  const minus = (a: number, b: number): number[] => { const other = slotsIn(kept.set(b), index.slots); return slotsIn(kept.set(a), index.slots).filter((slot) => !other.includes(slot)) }
  const throughCategory = late.filter((m) => !m.text).map((m) => m.slot)
  t.ok(throughCategory.length > 0)
  t.same(minus(ANY, TEXT), throughCategory, 'matched only through the category: the late members that do not say gamma')
  t.same(minus(NAME_OR_CATEGORY, NAME), late.filter((m) => !m.name).map((m) => m.slot), 'in the name or category but not the name: the late members without gamma in their name')
})

test("a category's text arriving after its members: cached sets are dropped, not left stale", async (t) => {
  const random = prng(3)
  const index = new MemoryIndex(1, 0)
  setCategories(index)
  for (let rowid = 1; rowid <= 300; rowid++) index.add({ ...rowOf(random, rowid), category: rowid % 3 === 0 ? 'late' : 'c3' })
  const plan: PlannedWord[] = [{ text: 'dawn', candidates: [{ term: 'dawn', kind: 'exact', typos: 0 }] }, { text: 'alpha', candidates: [{ term: 'alpha', kind: 'exact', typos: 0 }] }]
  const scratch = new Scratch()
  const query: RankQuery = { plan, filter: {}, page: { limit: 20, offset: 0 } }
  const before = rank(index, scratch, query)
  index.setCategoryTerms('late', encodeCategoryTerms([{ term: 'dawn', position: 0 }, { term: 'alpha', position: 1 }]))
  const after = rank(index, scratch, query)
  t.ok(after.total > before.total, `the late category's members now match (${before.total} → ${after.total})`)
  t.same(after, rank(index, new Scratch(), query), 'as a fresh scratch ranks them')
})

test('filter sets: accepted slots added, removed slots cleared, nothing else touched', async (t) => {
  const slotsOf = (bits: Uint32Array): number[] => Array.from({ length: bits.length * 32 }, (_, slot) => slot).filter((slot) => (((bits[slot >>> 5] as number) >>> (slot & 31)) & 1) === 1)
  const bits = new Uint32Array(2)
  extendFilter(bits, 0, 40, (slot) => slot % 3 === 0, [])
  t.same(slotsOf(bits), Array.from({ length: 14 }, (_, i) => i * 3))
  extendFilter(bits, 40, 64, (slot) => slot === 50 || slot === 63, [0, 33, 63])
  t.same(slotsOf(bits), [...Array.from({ length: 10 }, (_, i) => i * 3 + 3), 36, 39, 50], 'a slot added and removed since is not there')
})

test('word keys: the same candidates in another order are one key; another candidate is another', async (t) => {
  const a: PlannedWord = { text: 'sun', candidates: [{ term: 'sunset', kind: 'prefix', typos: 0 }, { term: 'sunrise', kind: 'prefix', typos: 0 }] }
  const b: PlannedWord = { text: 'sun', candidates: [{ term: 'sunrise', kind: 'prefix', typos: 0 }, { term: 'sunset', kind: 'prefix', typos: 0 }] }
  t.equal(wordKey(a), wordKey(b))
  t.not(wordKey(a), wordKey({ text: 'sun', candidates: [{ term: 'sunset', kind: 'prefix', typos: 0 }] }))
  t.not(wordKey(a), wordKey({ text: 'sun', candidates: [{ term: 'sunset', kind: 'typo', typos: 1 }, { term: 'sunrise', kind: 'prefix', typos: 0 }] }))
})
