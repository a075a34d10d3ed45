/** The in-memory index's building blocks: stored term encoding, posting lists, slots. */
import { test } from 'tap'
import { DESCRIPTION_BIT, MemoryIndex, NO_POSITION, Posting, slotOf, type IndexRow } from '../../../src/search/embedded/index/memory-index.js'
import type { PlannedWord } from '../../../src/search/embedded/ranking/query-plan.js'
import { rank, Scratch, type RankedDoc } from '../../../src/search/embedded/ranking/ranking.js'
import { matchedTokensOf } from '../../../src/search/embedded/ranking/hits.js'
import { MATCH_EXACTNESS } from '../../../src/search/match-rules.js'
import { BIGRAM, encodeCategoryTerms, encodeTerms, LOOSE, type EncodedTerms } from '../../../src/search/embedded/index/terms.js'
import { prng } from '../../../bench/generate.js'

test('stored terms: the first four forms of a word keep its position, further forms and bigrams do not', async (t) => {
  const forms = ['天気', 'テンキ', 'てんき', 'tenki', 'extra'].map((term) => ({ term, position: 3 }))
  t.same(encodeTerms([...forms, { term: '天気予', position: 3, fragment: true }, { term: 'weather', position: 0 }]),
    ['天気', 3, 'テンキ', 3, 'てんき', 3, 'tenki', 3, 'extra', LOOSE, '天気予', BIGRAM, 'weather', 0])
  t.same(encodeCategoryTerms([{ term: '天気', position: 1 }, { term: '気予', position: 1, fragment: true }]), ['天気', 1, 0, '気予', 1, 1], 'category terms keep positions, bigrams flagged')
})

test('postings: appended in slot order, found by slot, trimmed to size', async (t) => {
  const posting = new Posting(1)
  for (const slot of [1, 4, 4, 9]) posting.push(((slot << 10) | (slot === 4 && posting.find(4) >= 0 ? DESCRIPTION_BIT : 0) | 7) >>> 0)
  t.equal(posting.length, 4)
  t.equal(posting.find(4), 1, 'the first entry of the slot')
  t.equal(posting.find(5), -1)
  t.equal(posting.find(9), 3)
  t.equal(slotOf(posting.entries[3] as number), 9)
  t.ok(posting.entries.length >= 4)
  posting.trim()
  t.equal(posting.entries.length, 4)
  t.equal(posting.bytes, 16)
})

function row (rowid: number, overrides: Partial<IndexRow> = {}): IndexRow {
  return {
    rowid,
    id: `svc_${rowid}`,
    category: 'weather',
    status: 'verified',
    priceAtomic: 1000,
    trustScore: 50,
    nameSort: `service ${rowid}`,
    createdAt: '2026-01-01T00:00:00.000Z',
    chains: ['eip155:8453', 'eip155:8453'],
    payTo: '0x1111111111111111111111111111111111111111',
    extensionMask: 0,
    terms: [encodeTerms([{ term: 'tokyo', position: 0 }, { term: 'weather', position: 1 }, { term: 'tokyo', position: 5 }]), encodeTerms([{ term: 'forecast', position: 600 }])],
    ...overrides
  }
}

test('documents: one entry per term and attribute at its first position, dead slots, vocabulary', async (t) => {
  const index = new MemoryIndex(1, 0)
  index.setCategoryTerms('weather', encodeCategoryTerms([{ term: 'weather', position: 0 }, { term: '天気', position: 1 }, { term: '天気予', position: 1, fragment: true }]))
  t.equal(index.add(row(5)), 0)
  t.equal(index.add(row(5)), 0, 'a row already held keeps its slot')
  t.equal(index.add(row(2000, { chains: ['solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'] })), 1, 'rowids far apart are fine')
  const tokyo = index.postings.get('tokyo') as Posting
  t.equal(tokyo.length, 2, 'tokyo twice in a name is one entry per document')
  t.equal((tokyo.entries[0] as number) & NO_POSITION, 0, 'at its first position')
  const forecast = index.postings.get('forecast') as Posting
  t.equal((forecast.entries[0] as number) & DESCRIPTION_BIT, DESCRIPTION_BIT)
  t.equal((forecast.entries[0] as number) & NO_POSITION, NO_POSITION - 1, 'positions beyond the range are capped')
  t.same(index.categoryTerms.get('天気'), [[0, 1]])
  t.ok(index.vocabulary.has('天気') && !index.vocabulary.has('天気予'), 'category words are vocabulary, bigrams are not')
  t.same(index.columns.chainCodes(0).map((code) => index.columns.codes.chain.values[code]), ['eip155:8453'], 'chains deduplicated')

  index.remove(5)
  index.remove(5)
  index.remove(77)
  t.same([index.live, index.dead, index.has(5), index.has(2000)], [1, 1, false, true])
  t.equal(index.add(row(5)), 2, 'a row coming back gets a new slot')
  const bytes = index.bytes()
  t.ok(bytes.postings > 0 && bytes.documents > 0 && bytes.terms > 0)
})

test('ranking scratch: marks of an earlier query never leak into a later one', async (t) => {
  const index = new MemoryIndex(1, 0)
  const words = (...list: string[]): EncodedTerms => encodeTerms(list.map((term, position) => ({ term, position })))
  for (let rowid = 1; rowid <= 60; rowid++) {
    index.add(row(rowid, { trustScore: rowid % 7, terms: [words(...(rowid % 2 === 0 ? ['tokyo', 'weather'] : ['osaka', 'rain'])), words(rowid % 3 === 0 ? 'forecast' : 'radar', 'tokyo')] }))
  }
  const plan = (...texts: string[]): PlannedWord[] => texts.map((text) => ({ text, candidates: [{ term: text, kind: 'exact' as const, typos: 0 }] }))
  const queries = [plan('tokyo', 'weather'), plan('osaka'), plan('forecast', 'tokyo'), plan('rain', 'radar', 'tokyo')]
  const page = { limit: 10, offset: 3 }
  const fresh = queries.map((p) => rank(index, new Scratch(), { plan: p, filter: {}, page }))
  const reused = new Scratch()
  for (const order of [[0, 1, 2, 3], [3, 2, 1, 0]]) {
    const results = order.map((i) => rank(index, reused, { plan: queries[i] as PlannedWord[], filter: {}, page }))
    t.ok(results.every((result, k) => result.total > 0 && JSON.stringify(result) === JSON.stringify(fresh[order[k] as number])), `queries ${order.join(',')}: each answer equals the one from a fresh scratch`)
  }
})

test('ranking: proximity counts words met in the category text', async (t) => {
  const index = new MemoryIndex(1, 0)
  index.setCategoryTerms('near', encodeCategoryTerms([{ term: 'alpha', position: 0 }, { term: 'beta', position: 1 }]))
  index.setCategoryTerms('far', encodeCategoryTerms([{ term: 'alpha', position: 0 }, { term: 'beta', position: 7 }]))
  const plain = encodeTerms([{ term: 'service', position: 0 }])
  // Without proximity, trust would put the "far" one first.
  index.add(row(1, { category: 'far', trustScore: 90, terms: [plain, plain] }))
  index.add(row(2, { category: 'near', trustScore: 10, terms: [plain, plain] }))
  const plan: PlannedWord[] = ['alpha', 'beta'].map((text) => ({ text, candidates: [{ term: text, kind: 'exact', typos: 0 }] }))
  const ranked = rank(index, new Scratch(), { plan, filter: {}, page: { limit: 10, offset: 0 } })
  t.same(ranked.docs.map((doc) => index.ids[doc.slot]), ['svc_2', 'svc_1'], 'adjacent in the category text ranks first')
  t.ok((ranked.docs[0]?.proximity ?? Infinity) < (ranked.docs[1]?.proximity ?? -Infinity))
})

test('a bulk load holds the same postings and columns as rows added one by one, and grows after it', async (t) => {
  // 30,000 rows, ~12 terms each: > 262,144 entries, so the pool spans several pages, and
  // the common terms span many blocks of the largest size.
  const rows = Array.from({ length: 30_000 }, (_, i) => row(i * 2 + 1, {
    category: ['weather', 'finance', 'maps'][i % 3] as string,
    priceAtomic: i,
    terms: [
      encodeTerms(['common', `mid${i % 97}`, `rare${i}`, 'common', `x${i % 7}`].map((term, position) => ({ term, position }))),
      encodeTerms(['desc', `mid${i % 89}`, `y${i % 1013}`, `z${(i * 7) % 5003}`, 'last'].map((term, position) => ({ term, position: position * 3 })))
    ]
  }))
  const oneByOne = new MemoryIndex(1, 0)
  for (const r of rows) oneByOne.add(r)
  const bulk = new MemoryIndex(1, 0)
  bulk.beginBulkLoad(rows.length, rows.at(-1)?.rowid ?? 0)
  for (const r of rows) bulk.add(r)
  bulk.endBulkLoad()

  const contents = (index: MemoryIndex): Map<string, number[]> => new Map([...index.postings].map(([term, posting]) => [term, Array.from(posting.entries.subarray(0, posting.length))]))
  const expected = contents(oneByOne)
  const actual = contents(bulk)
  t.equal(actual.size, expected.size)
  t.equal([...expected].filter(([term, entries]) => JSON.stringify(actual.get(term)) !== JSON.stringify(entries)).length, 0, 'every posting, entry for entry')
  t.equal(actual.get('common')?.length, 30_000)
  t.ok([...expected.values()].reduce((sum, entries) => sum + entries.length, 0) > 2 ** 18)
  t.same([bulk.slots, bulk.live, Array.from(bulk.price.subarray(0, 5)), bulk.ids.slice(-2)], [oneByOne.slots, oneByOne.live, Array.from(oneByOne.price.subarray(0, 5)), oneByOne.ids.slice(-2)])
  t.ok(bulk.bytes().postings <= oneByOne.bytes().postings, 'no spare capacity after the load')

  // After the load, postings are views into one buffer: appending must not touch a neighbour.
  const neighbour = Array.from((bulk.postings.get('rare1') as Posting).entries)
  const slot = bulk.add(row(70_001, { terms: [encodeTerms([{ term: 'rare0', position: 0 }, { term: 'fresh', position: 1 }]), []] }))
  t.equal(slot, 30_000)
  const rare0 = bulk.postings.get('rare0') as Posting
  t.same(Array.from(rare0.entries.subarray(0, rare0.length)).map(slotOf), [0, 30_000])
  t.same(Array.from((bulk.postings.get('rare1') as Posting).entries), neighbour)
  t.equal(bulk.postings.get('fresh')?.length, 1)
  bulk.remove(1)
  t.same([bulk.live, bulk.has(1), bulk.has(70_001)], [30_000, false, true])

  t.throws(() => { bulk.beginBulkLoad(1, 1) }, /empty index/)
})

test("id ranks follow ids as rows arrive; cached word sets follow the index's changes", async (t) => {
  const index = new MemoryIndex(1, 0)
  const words = (...list: string[]): EncodedTerms => encodeTerms(list.map((term, position) => ({ term, position })))
  for (const rowid of [5, 3, 9]) index.add(row(rowid, { terms: [words('quokka'), []] }))
  const ordered = (): string[] => Array.from({ length: index.slots }, (_, slot) => slot).sort((a, b) => (index.idRanks()[a] as number) - (index.idRanks()[b] as number)).map((slot) => index.ids[slot] as string)
  t.same(ordered(), ['svc_3', 'svc_5', 'svc_9'])
  for (const rowid of [1, 7, 10]) index.add(row(rowid, { terms: [words('quokka'), []] }))
  t.same(ordered(), ['svc_1', 'svc_10', 'svc_3', 'svc_5', 'svc_7', 'svc_9'], 'rows added later are placed among the others (code-point order)')

  const plan: PlannedWord[] = [{ text: 'quokka', candidates: [{ term: 'quokka', kind: 'exact', typos: 0 }] }]
  const scratch = new Scratch()
  const page = { limit: 10, offset: 0 }
  t.equal(rank(index, scratch, { plan, filter: {}, page }).total, 6)
  const misses = scratch.cache.misses
  index.add(row(11, { terms: [words('quokka'), []] }))
  t.equal(rank(index, scratch, { plan, filter: {}, page }).total, 7, 'a document added after the word was cached is found')
  index.remove(11)
  t.equal(rank(index, scratch, { plan, filter: {}, page }).total, 6, 'a removed one is not')
  t.equal(scratch.cache.misses, misses, 'by the cached sets, extended rather than rebuilt')
  t.ok(scratch.cache.bytes > 0 && scratch.cache.bytes <= scratch.cache.limit)
})

/**
 * Each query word's best match in a document by reading every candidate, in the plan's order:
 * fewest typos and most exact, then name, category, description (what matchedTokensOf must say).
 */
function everyCandidateMatch (index: MemoryIndex, slot: number, plan: readonly PlannedWord[]): string[] {
  return plan.flatMap((word) => {
    let best = ''
    let bestOrder = Infinity
    for (const { term, kind, typos } of word.candidates) {
      const exactness = (MATCH_EXACTNESS[kind] + typos) * 10
      const posting = index.postings.get(term)
      for (const entry of posting?.entries.subarray(0, posting.length) ?? []) {
        if (slotOf(entry) !== slot) continue
        const attribute = (entry & DESCRIPTION_BIT) !== 0 ? 2 : 0
        if (exactness + attribute < bestOrder) { bestOrder = exactness + attribute; best = `${word.text}>${term}:${kind}@${attribute}` }
      }
      for (const [code] of index.categoryTerms.get(term) ?? []) {
        if (index.columns.category[slot] === code && exactness + 1 < bestOrder) { bestOrder = exactness + 1; best = `${word.text}>${term}:${kind}@1` }
      }
    }
    return best === '' ? [] : [best]
  })
}

/** Documents sorted by the ranking's criteria in turn, then trust (descending) and id: what a full ranking must equal. */
function byCriteria (index: MemoryIndex, docs: readonly RankedDoc[]): RankedDoc[] {
  const key = (d: RankedDoc): number[] => [d.tier, -d.words, d.typos, d.proximity, d.attr, d.exactness, -(index.trust[d.slot] as number), index.idRanks()[d.slot] as number]
  return [...docs].sort((a, b) => { const ka = key(a); const kb = key(b); for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return (ka[i] as number) - (kb[i] as number); return 0 })
}

test('ranking: every page is the slice of all matches sorted by their criteria, trust and id (random catalogs and queries)', async (t) => {
  // A seeded generator: failures replay.
  let seed = 12345
  const random = (): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 }
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T
  const vocabulary = ['alpha', 'alphas', 'beta', 'betta', 'gamma', 'delta', 'deltas', 'omega', 'sigma']
  const categories = ['weather', 'maps', 'alpha']
  for (let round = 0; round < 6; round++) {
    const index = new MemoryIndex(1, 0)
    for (const category of categories) index.setCategoryTerms(category, encodeCategoryTerms([{ term: category, position: 0 }, { term: 'sigma', position: 1 }]))
    const count = 150 + Math.floor(random() * 500)
    for (let rowid = 1; rowid <= count; rowid++) {
      const text = (length: number, from: number): Array<{ term: string, position: number }> => Array.from({ length }, (_, i) => ({ term: pick(vocabulary), position: from + i * (1 + Math.floor(random() * 4)) }))
      // Odd rounds: two words every document holds, so whole buckets tie on the words rule.
      const everywhere = round % 2 === 1 ? [{ term: 'omni', position: 10 + Math.floor(random() * 5) }, { term: 'present', position: 10 + Math.floor(random() * 5) }] : []
      index.add(row(rowid, { category: pick(categories), trustScore: Math.floor(random() * 4) * 10, terms: [encodeTerms([...text(1 + Math.floor(random() * 3), 0), ...everywhere]), encodeTerms(text(Math.floor(random() * 6), 100))] }))
      // Some documents go away: dead slots must never be ranked.
      if (random() < 0.1) index.remove(rowid - Math.floor(random() * 5))
    }
    const candidate = (term: string): PlannedWord['candidates'][number] => {
      const r = random()
      return r < 0.5 ? { term, kind: 'exact', typos: 0 } : r < 0.7 ? { term, kind: 'prefix', typos: 0 } : r < 0.85 ? { term, kind: 'typo', typos: 1 } : { term, kind: 'synonym', typos: 0 }
    }
    const scratch = new Scratch()
    // The last five queries of a round have four to six words (the words rule counted past two planes).
    for (let q = 0; q < 30; q++) {
      const plan: PlannedWord[] = round % 2 === 1 && q % 2 === 0 && q < 25
        ? ['omni', 'present', 'alpha'].slice(0, 1 + ((q / 2) % 3)).map((text) => ({ text, candidates: [{ term: text, kind: 'exact' as const, typos: 0 }] }))
        : Array.from({ length: (q < 25 ? 1 : 4) + Math.floor(random() * 3) }, () => {
          const text = pick(vocabulary)
          return { text, candidates: [{ term: text, kind: 'exact' as const, typos: 0 }, ...Array.from({ length: Math.floor(random() * 3) }, () => candidate(pick(vocabulary)))] }
        })
      const filter = random() < 0.3 ? { category: pick(categories) } : {}
      const all = rank(index, new Scratch(), { plan, filter, page: { limit: 100_000, offset: 0 } })
      const sorted = byCriteria(index, all.docs)
      const label = `round ${round} query ${plan.map((w) => w.candidates.map((c) => `${c.term}:${c.kind}`).join('|')).join(' ')} ${JSON.stringify(filter)}`
      t.equal(all.docs.length, all.total, `${label}: the full ranking holds every match`)
      const attributes = ['name', 'category', 'description']
      for (const doc of all.docs) {
        const said = matchedTokensOf(index, doc, plan).map((m) => `${m.word}>${m.term}:${m.kind}@${attributes.indexOf(m.attribute)}`)
        if (JSON.stringify(said) !== JSON.stringify(everyCandidateMatch(index, doc.slot, plan))) { t.fail(`${label}: slot ${doc.slot}'s matched tokens ${JSON.stringify(said)} are not each word's best match`); break }
      }
      if (JSON.stringify(all.docs) !== JSON.stringify(sorted)) { t.fail(`${label}: not in criteria order`); continue }
      // One scratch for every query of the round: nothing of an earlier query may leak into a page.
      for (const page of [{ limit: 20, offset: 0 }, { limit: 7, offset: 13 }, { limit: 30, offset: Math.max(0, all.total - 25) }]) {
        const got = rank(index, scratch, { plan, filter, page })
        if (got.total !== all.total || JSON.stringify(got.docs) !== JSON.stringify(all.docs.slice(page.offset, page.offset + page.limit))) t.fail(`${label} ${JSON.stringify(page)}: not the slice of the full ranking`)
      }
    }
  }
  t.pass('every query checked')
})

test('ranking: two common words that seldom meet: the few documents with both, then the best of those with one', async (t) => {
  const random = prng(77)
  const index = new MemoryIndex(1, 0)
  // 400 documents: 'kiwi' in 180, 'plum' in 180, both in 6 of those; trust and positions vary.
  for (let rowid = 1; rowid <= 400; rowid++) {
    const both = rowid % 60 === 0
    const held = both ? ['kiwi', 'plum'] : rowid <= 180 ? ['kiwi'] : rowid <= 360 ? ['plum'] : ['fig']
    const terms = held.map((term, i) => ({ term, position: i * (1 + Math.floor(random() * 9)) }))
    const inName = random() < 0.5
    index.add(row(rowid, { trustScore: Math.floor(random() * 5) * 10, terms: [encodeTerms(inName ? terms : [{ term: 'fig', position: 0 }]), encodeTerms(inName ? [] : terms)] }))
  }
  const plan: PlannedWord[] = ['kiwi', 'plum'].map((text) => ({ text, candidates: [{ term: text, kind: 'exact' as const, typos: 0 }] }))
  const all = rank(index, new Scratch(), { plan, filter: {}, page: { limit: 100_000, offset: 0 } })
  t.equal(all.total, 360)
  t.same(all.docs.map((d) => d.slot), byCriteria(index, all.docs).map((d) => d.slot), 'the full ranking is in criteria order')
  t.same(all.docs.slice(0, 6).map((d) => d.words), [2, 2, 2, 2, 2, 2], 'the documents with both words first')
  const scratch = new Scratch()
  for (const page of [{ limit: 20, offset: 0 }, { limit: 5, offset: 3 }, { limit: 10, offset: 40 }]) {
    const got = rank(index, scratch, { plan, filter: {}, page })
    t.same(got.docs.map((d) => d.slot), all.docs.slice(page.offset, page.offset + page.limit).map((d) => d.slot), `page ${JSON.stringify(page)} is the slice of the full ranking`)
  }
})

test('ranking: a 24-word query orders every match by its criteria (proximity counts up to 184, cut in bit planes)', async (t) => {
  const random = prng(4242)
  const words = Array.from({ length: 24 }, (_, i) => `word${i}`)
  const index = new MemoryIndex(1, 0)
  for (let rowid = 1; rowid <= 600; rowid++) {
    // Most documents hold every word (one bucket of ~500 on the words rule), some 20; words
    // shuffled, some documents with them side by side, others spread out (distance ≥ 8).
    const held = words.filter((_, i) => rowid % 6 !== 0 || i % 6 !== 5)
    for (let i = held.length - 1; i > 0; i--) { const j = Math.floor(random() * (i + 1)); [held[i], held[j]] = [held[j] as string, held[i] as string] }
    const gap = rowid % 3 === 0 ? 10 : 1 + Math.floor(random() * 4)
    const terms = held.map((term, i) => ({ term, position: i * gap }))
    const inName = Math.floor(random() * 4)
    index.add(row(rowid, { trustScore: Math.floor(random() * 5) * 10, terms: [encodeTerms(terms.slice(0, inName)), encodeTerms(terms.slice(inName))] }))
  }
  const plan: PlannedWord[] = words.map((text) => ({ text, candidates: [{ term: text, kind: 'exact' as const, typos: 0 }] }))
  const all = rank(index, new Scratch(), { plan, filter: {}, page: { limit: 100_000, offset: 0 } })
  t.equal(all.docs.length, 600, 'every document matches')
  t.ok(all.docs.some((d) => d.proximity >= 128), 'some proximity counts need the eighth bit plane')
  const sorted = byCriteria(index, all.docs)
  t.same(all.docs.map((d) => d.slot), sorted.map((d) => d.slot), 'the full ranking is the criteria order')
  const scratch = new Scratch()
  for (const page of [{ limit: 20, offset: 0 }, { limit: 10, offset: 95 }, { limit: 25, offset: 560 }]) {
    t.same(rank(index, scratch, { plan, filter: {}, page }).docs, all.docs.slice(page.offset, page.offset + page.limit), `page ${JSON.stringify(page)} is the slice of the full ranking`)
  }
})

test('tie-break orders (id; trust then id) stay right while services come and go between searches', async (t) => {
  let seed = 99
  const random = (): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 }
  const index = new MemoryIndex(1, 0)
  const live = new Map<number, { id: string, trust: number }>()
  let rowid = 0
  let checks = 0
  for (let step = 0; step < 1500; step++) {
    if (random() < 0.3 && live.size > 0) {
      const gone = [...live.keys()][Math.floor(random() * live.size)] as number
      index.remove(gone)
      live.delete(gone)
    } else {
      const service = { id: `svc_${Math.floor(random() * 1e6).toString(36)}`, trust: Math.floor(random() * 5) * 20 }
      index.add(row(++rowid, { id: service.id, trustScore: service.trust }))
      live.set(rowid, service)
    }
    // A search between writes orders the slots added since the last one.
    if (step % 7 !== 0) continue
    const slots = Array.from({ length: index.slots }, (_, slot) => slot).filter((slot) => index.columns.live[slot] === 1)
    const ranks = index.idRanks()
    const byRank = [...slots].sort((a, b) => (ranks[a] as number) - (ranks[b] as number)).map((slot) => index.ids[slot])
    const byTrust = [...index.trustOrder()].filter((slot) => index.columns.live[slot] === 1).map((slot) => index.ids[slot])
    const expected = [...live.values()].map((s) => s.id).sort()
    const expectedByTrust = [...live.values()].sort((a, b) => (b.trust - a.trust) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((s) => s.id)
    if (JSON.stringify(byRank) !== JSON.stringify(expected) || JSON.stringify(byTrust) !== JSON.stringify(expectedByTrust)) {
      t.fail(`step ${step}: the live services are out of order`)
      return
    }
    checks++
  }
  t.ok(checks > 200, `${checks} checks, every one in id order and in trust-then-id order`)
})

test('ranking scratch: a bucket walked in trust order never meets an earlier query\'s marks beyond its own blocks', async (t) => {
  const index = new MemoryIndex(1, 0)
  const words = (...list: string[]): EncodedTerms => encodeTerms(list.map((term, position) => ({ term, position })))
  // 3,000 services: "alpha" in every one (name or description alternately), "beta" only in
  // the first 2,000; the last 1,000 are the most trusted.
  for (let rowid = 1; rowid <= 3000; rowid++) {
    const name = rowid % 2 === 0 ? ['alpha', ...(rowid <= 2000 ? ['beta'] : [])] : ['service']
    const description = rowid % 2 === 0 ? ['text'] : ['alpha', ...(rowid <= 2000 ? ['beta'] : [])]
    index.add(row(rowid, { trustScore: rowid > 2000 ? 90 : 10, terms: [words(...name), words(...description)] }))
  }
  const plan = (text: string): PlannedWord[] => [{ text, candidates: [{ term: text, kind: 'exact', typos: 0 }] }]
  const page = { limit: 20, offset: 0 }
  const fresh = rank(index, new Scratch(), { plan: plan('beta'), filter: {}, page })
  const reused = new Scratch()
  rank(index, reused, { plan: plan('alpha'), filter: {}, page })
  const after = rank(index, reused, { plan: plan('beta'), filter: {}, page })
  t.ok(fresh.docs.every((doc) => doc.slot < 2000), 'every "beta" hit is one of the services holding it')
  t.same(after, fresh, 'the same page after an "alpha" query as from a fresh scratch')
})
