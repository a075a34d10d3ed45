/**
 * The SearchEngine contract, written once and run against every engine whose server is
 * configured (search-engine.test.ts): apply and its checkpoint, idempotent replays, older
 * documents ignored, search with filters, sorts and paging, Japanese readings, rebuild with
 * an atomic swap.
 */
import type { Test } from 'tap'
import { toSearchDocument } from '../../indexer/search-document.js'
import { readSeedFile, seedRecords } from '../../src/domain/seed.js'
import type { ServiceRecord } from '../../src/domain/service.js'
import { splitQueryWords } from '../../src/search/analysis/analyzer.js'
import type { JapaneseTokenizer } from '../../src/search/analysis/tokenizer.js'
import { SEARCH_ATTRIBUTES, type SearchDocument, type SearchEngine, type SearchQuery } from '../../src/search/search-engine.js'
import type { ServiceFilter } from '../../src/domain/catalog-query.js'
import { samePayTo } from '../../src/domain/pay-to.js'
import { declaredExtensions } from '../../src/domain/call-schema.js'
import { isTestListing } from '../../src/domain/networks.js'
import { someDeclaring } from '../support/discovery-declarations.js'
import { withDynamicPrices } from './catalog-store.contract.js'

export interface EngineHarness {
  /** Opens a fresh, empty engine, closed and removed when `t` ends. */
  open: (t: Test) => Promise<SearchEngine>
  tokenizer: JapaneseTokenizer
}

// Some declare the Bazaar extension (no call schema: the indexed text is the demo catalog's).
// Some with a dynamic price, which the price filter never admits and the price sort puts above every fixed one.
const records = withDynamicPrices(someDeclaring(seedRecords(readSeedFile('demo'), '2025-03-04T05:06:07.089Z')))
const byId = new Map(records.map((r) => [r.id, r]))

function query (q: string, overrides: Partial<SearchQuery> = {}): SearchQuery {
  return { words: splitQueryWords(q), filter: {}, page: { limit: 100, offset: 0 }, prefixLastWord: false, ...overrides }
}

function documents (tokenizer: JapaneseTokenizer, list: readonly ServiceRecord[] = records, firstSeq = 1): SearchDocument[] {
  return list.map((r, i) => toSearchDocument(r, firstSeq + i, tokenizer))
}

function matches (record: ServiceRecord, filter: ServiceFilter): boolean {
  return (filter.category === undefined || record.category === filter.category) &&
    (filter.status === undefined || record.status === filter.status) &&
    (filter.chain === undefined || record.supportedChains.includes(filter.chain)) &&
    (filter.maxPriceAtomic === undefined || (record.priceAtomic !== null && record.priceAtomic <= filter.maxPriceAtomic)) &&
    (filter.payTo === undefined || samePayTo(record.paymentAddress, filter.payTo)) &&
    (filter.extension === undefined || declaredExtensions(record).includes(filter.extension)) &&
    (filter.testnet === undefined || isTestListing(record.supportedChains) === filter.testnet)
}

export function searchEngineContract (t: Test, harness: EngineHarness): void {
  const { open, tokenizer } = harness

  t.test('apply: documents and checkpoint together; replays and older documents are harmless', async (t) => {
    const engine = await open(t)
    t.same(await engine.stats(), { documents: 0, checkpoint: 0 }, 'a fresh engine is empty')
    const v0 = await engine.version()
    const docs = documents(tokenizer)
    await engine.apply(docs.slice(0, 20), 20)
    t.same(await engine.stats(), { documents: 20, checkpoint: 20 })
    t.equal(await engine.checkpoint(), 20)
    const v1 = await engine.version()
    t.not(v1, v0, 'the version changes when documents are applied')
    await engine.apply(docs.slice(0, 20), 20)
    t.same(await engine.stats(), { documents: 20, checkpoint: 20 }, 'replaying a batch changes nothing')
    await engine.apply(docs.slice(20), docs.length)
    await engine.apply(docs.slice(0, 5), 5)
    t.same(await engine.stats(), { documents: docs.length, checkpoint: docs.length }, 'the checkpoint never moves back')

    const [record] = records as [ServiceRecord]
    const newer = toSearchDocument({ ...record, name: 'Zyxwvut Newname' }, 500, tokenizer)
    const older = toSearchDocument({ ...record, name: 'Zyxwvut Oldname' }, 400, tokenizer)
    await engine.apply([newer], 500)
    await engine.apply([older], 400)
    t.equal((await engine.search(query('newname'))).total, 1, 'the newer document is indexed')
    t.equal((await engine.search(query('oldname'))).total, 0, 'an older document never overwrites a newer one')
    t.equal(await engine.checkpoint(), 500)

    // A declaring service whose endpoint stops declaring: a newer document without it drops out of the filter.
    const declaring = records.slice(1).find((r) => r.bazaarExtension !== undefined) as ServiceRecord
    const filter: ServiceFilter = { extension: 'bazaar' }
    const found = async (): Promise<boolean> => (await engine.search(query(declaring.name, { filter }))).hits.some((h) => h.id === declaring.id)
    t.ok(await found(), 'a declaring service matches the extension filter')
    const plain = { ...declaring }
    delete plain.bazaarExtension
    await engine.apply([toSearchDocument(plain, 600, tokenizer)], 600)
    t.notOk(await found(), 'a newer document without the declaration does not')
    await engine.apply([toSearchDocument(declaring, 700, tokenizer)], 700)
    t.ok(await found(), 'and declaring again brings it back')
  })

  t.test('removedIds deletes services', async (t) => {
    const engine = await open(t)
    const docs = documents(tokenizer)
    await engine.apply(docs, docs.length)
    const gone = (docs[0] as SearchDocument).id
    const apply = engine.apply.bind(engine) as (d: readonly SearchDocument[], c: number, removed?: readonly string[]) => Promise<void>
    await apply([], docs.length + 1, [gone, 'svc_never_indexed'])
    t.same(await engine.stats(), { documents: docs.length - 1, checkpoint: docs.length + 1 }, 'unknown ids are ignored')
    const name = (byId.get(gone) as ServiceRecord).name
    t.notOk((await engine.search(query(name))).hits.some((h) => h.id === gone), 'a removed service is not found')
    await apply([], docs.length + 1, [gone])
    t.equal((await engine.stats()).documents, docs.length - 1, 'replaying a removal is harmless')
  })

  t.test('search: hits, scores, matched tokens, filters, sorts, paging', async (t) => {
    const engine = await open(t)
    await engine.apply(documents(tokenizer), records.length)
    const weather = await engine.search(query('weather'))
    t.ok(weather.hits.length > 0 && weather.total >= weather.hits.length, 'weather services are found')
    t.ok(weather.hits.slice(0, 3).every((h) => byId.get(h.id)?.category === 'weather'), 'the top hits are weather services')
    for (const hit of weather.hits) {
      t.ok(hit.score >= 0 && hit.score <= 1, 'score in [0, 1]')
      for (const m of hit.matchedTokens) {
        t.equal(m.word, 'weather')
        t.ok(SEARCH_ATTRIBUTES.includes(m.attribute))
      }
    }
    t.ok(weather.hits.every((h, i) => i === 0 || h.score <= (weather.hits[i - 1]?.score ?? 1)), 'relevance order: scores do not increase')
    t.ok(weather.hits.some((h) => h.matchedTokens.length > 0), 'matched tokens say what matched')

    const reading = await engine.search(query('てんき'))
    t.ok(reading.hits.some((h) => byId.get(h.id)?.name.includes('天気') === true), 'てんき finds 天気 (readings)')
    t.ok((await engine.search(query('天気'))).hits.some((h) => byId.get(h.id)?.category === 'weather'), '天気 finds weather services')
    t.ok((await engine.search(query('wether'))).hits.some((h) => byId.get(h.id)?.category === 'weather'), 'a typo still finds them')
    // Expansions made before the engine (QueryWord.expansions): romaji readings, kana slips.
    const romaji = await engine.search(query('tenki yohou'))
    t.ok(romaji.hits.slice(0, 3).some((h) => byId.get(h.id)?.name.includes('天気予報') === true), 'romaji tenki yohou finds 天気予報 (readings)')
    const tenki = romaji.hits.find((h) => byId.get(h.id)?.name.includes('天気予報') === true)
    const romajiToken = tenki?.matchedTokens.find((m) => m.word === 'tenki')
    t.ok(romajiToken !== undefined && ['romaji', 'fragment'].includes(romajiToken.kind), 'and says it matched as romaji')
    const honyaku = await engine.search(query("hon'yaku"))
    t.ok(honyaku.hits.slice(0, 3).some((h) => byId.get(h.id)?.name.includes('翻訳') === true), "hon'yaku finds 翻訳")
    const slip = await engine.search(query('ほにゃく'))
    t.ok(slip.hits.some((h) => byId.get(h.id)?.name.includes('翻訳') === true), 'the slip ほにゃく finds 翻訳 (ほんやく)')
    t.ok(slip.hits.flatMap((h) => h.matchedTokens).some((m) => m.kind === 'typo' && m.typos === 1), 'at one typo')
    const kabuka = await engine.search(query('kabuka'))
    t.ok(kabuka.hits.slice(0, 3).some((h) => byId.get(h.id)?.name.includes('株価') === true), 'kabuka finds 株価 services')
    const english = await engine.search(query('image'))
    t.notOk(english.hits.flatMap((h) => h.matchedTokens).some((m) => m.kind === 'romaji'), 'an English word (image) is not read as romaji')
    const none = await engine.search(query('zzqqxxyy'))
    t.same([none.total, none.hits], [0, []], 'no match: nothing')
    const all = await engine.search(query('api'))
    t.equal(typeof all.totalExact, 'boolean', 'the engine says whether its total is exact')
    if (all.totalExact) t.equal(all.total, all.hits.length, 'an exact total is the number of matches')

    const chain = (records[0] as ServiceRecord).supportedChains[0] as string
    const payTo = (records.find((r) => r.paymentAddress.startsWith('0x')) as ServiceRecord).paymentAddress
    const prices = records.flatMap((r) => r.priceAtomic ?? []).sort((a, b) => a - b)
    const filters: ServiceFilter[] = [
      { category: 'weather' }, { status: 'verified' }, { chain }, { maxPriceAtomic: prices[Math.floor(prices.length / 2)] as number },
      { category: 'weather', status: 'verified' }, { category: 'x" OR category = "finance' },
      { payTo }, { payTo: payTo.toUpperCase().replace('0X', '0x') }, { payTo: 'x" OR payTo = "y' },
      { extension: 'bazaar' }, { extension: 'bazaar', category: 'weather' },
      { testnet: false }, { testnet: true }, { testnet: false, category: 'ai-llm' }
    ]
    for (const filter of filters) {
      const result = await engine.search(query('api', { filter }))
      t.ok(result.hits.every((h) => matches(byId.get(h.id) as ServiceRecord, filter)), `every hit satisfies ${JSON.stringify(filter)}`)
      const unfiltered = (await engine.search(query('api'))).hits.filter((h) => matches(byId.get(h.id) as ServiceRecord, filter)).map((h) => h.id).sort()
      t.same(result.hits.map((h) => h.id).sort(), unfiltered, `and no match is lost to ${JSON.stringify(filter)}`)
      if (filter.extension !== undefined || filter.testnet !== undefined) t.ok(result.total > 0 && result.total < all.total, `${JSON.stringify(filter)} keeps some matches and leaves some out`)
    }

    const byPrice = await engine.search(query('api', { sort: { field: 'price', order: 'asc' } }))
    const priced = byPrice.hits.map((h) => (byId.get(h.id) as ServiceRecord).priceAtomic ?? Infinity)
    t.ok(priced.length > 5 && priced.every((p, i) => i === 0 || p >= (priced[i - 1] as number)), 'an explicit sort orders the matches')
    t.ok(priced.includes(Infinity) && priced.at(-1) === Infinity, 'dynamic prices come after every fixed one')
    const dearest = (await engine.search(query('api', { sort: { field: 'price', order: 'desc' } }))).hits.map((h) => (byId.get(h.id) as ServiceRecord).priceAtomic ?? Infinity)
    t.ok(dearest[0] === Infinity && dearest.every((p, i) => i === 0 || p <= (dearest[i - 1] as number)), 'and before them dearest first')
    const first = await engine.search(query('api', { sort: { field: 'price', order: 'asc' }, page: { limit: 4, offset: 0 } }))
    const second = await engine.search(query('api', { sort: { field: 'price', order: 'asc' }, page: { limit: 4, offset: 4 } }))
    t.same([...first.hits, ...second.hits].map((h) => h.id), byPrice.hits.slice(0, 8).map((h) => h.id), 'pages continue each other')
  })

  t.test('tags: a word only a service\'s tags hold finds it, at the description\'s weight; new tags replace the old', async (t) => {
    const engine = await open(t)
    const docs = documents(tokenizer)
    await engine.apply(docs, docs.length)
    const [tagged, named] = records as [ServiceRecord, ServiceRecord]
    t.notOk(/barometer|潮位/i.test(`${tagged.name} ${tagged.description}`), 'the words are in no text of the service')
    await engine.apply([
      toSearchDocument({ ...tagged, tags: ['Barometer', '潮位'] }, docs.length + 1, tokenizer),
      toSearchDocument({ ...named, name: `Barometer ${named.name}` }, docs.length + 2, tokenizer)
    ], docs.length + 2)
    const english = await engine.search(query('barometer'))
    t.same(english.hits.map((h) => h.id), [named.id, tagged.id], 'both found; the name match first, the tag match after it')
    t.same(english.hits[1]?.matchedTokens.map((m) => [m.word, m.attribute]), [['barometer', 'description']], 'a tag matches as the description does')
    t.same((await engine.search(query('潮位'))).hits.map((h) => h.id), [tagged.id], 'a Japanese tag too')
    t.same((await engine.search(query('barometr'))).hits.map((h) => h.id).sort(), [named.id, tagged.id].sort(), 'with a typo')

    await engine.apply([toSearchDocument({ ...tagged, tags: ['altimeter'] }, docs.length + 3, tokenizer)], docs.length + 3)
    t.same((await engine.search(query('潮位'))).hits.map((h) => h.id), [], 'a tag the service no longer has finds it no more')
    t.same((await engine.search(query('altimeter'))).hits.map((h) => h.id), [tagged.id], 'its new tag does')
  })

  t.test('rebuild: searches use the old index until the swap; the checkpoint comes with it', async (t) => {
    const engine = await open(t)
    await engine.apply(documents(tokenizer), records.length)
    const before = await engine.search(query('weather'))
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => { release = resolve })
    const few = records.filter((r) => r.category !== 'weather').slice(0, 10)
    async function * batches (): AsyncGenerator<SearchDocument[]> {
      yield documents(tokenizer, few)
      await gate
    }
    const rebuilding = engine.rebuild(batches(), 1000)
    await new Promise((resolve) => setTimeout(resolve, 50))
    t.same((await engine.search(query('weather'))).total, before.total, 'mid-rebuild, the complete old index answers')
    release()
    await rebuilding
    t.same(await engine.stats(), { documents: few.length, checkpoint: 1000 }, 'after the swap: the new documents and checkpoint')
    t.equal((await engine.search(query('weather'))).hits.filter((h) => byId.get(h.id)?.category === 'weather').length, 0)

    async function * failing (): AsyncGenerator<SearchDocument[]> {
      yield documents(tokenizer, records.slice(0, 3))
      throw new Error('the store went away')
    }
    await t.rejects(engine.rebuild(failing(), 2000), /the store went away/)
    t.same(await engine.stats(), { documents: few.length, checkpoint: 1000 }, 'a failed rebuild leaves the live index alone')
  })
}
