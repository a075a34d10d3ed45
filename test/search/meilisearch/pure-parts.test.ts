/**
 * The Meilisearch engine's pure parts: the filter builder against hostile values (checked
 * with a model of Meilisearch's own filter-value parser), the settings payload, document
 * mapping with real kuromoji output, query text, hits → matched tokens, task checks and error
 * lines with the client's own types. The adapter against a server:
 * test/contract/search-engine.test.ts (MEILI_URL).
 */
import { test } from 'tap'
import { MeilisearchApiError, MeilisearchRequestError, type Task } from 'meilisearch'
import { toSearchDocument } from '../../../indexer/search-document.js'
import { readSeedFile, seedRecords } from '../../../src/domain/seed.js'
import { analyzeIntent, splitQueryWords } from '../../../src/search/analysis/analyzer.js'
import { loadTokenizer } from '../../../src/search/analysis/tokenizer.js'
import { SEARCH_ATTRIBUTES } from '../../../src/search/search-engine.js'
import { loadSynonyms, toMeilisearchSynonyms } from '../../../src/search/synonyms.js'
import { FORM_WEIGHT, META_ID, katakanaToHiragana, queryText, queryVariants, READING_WEIGHT, SLIP_WEIGHT, toMeiliDocument, TEXT_FIELDS } from '../../../src/search/meilisearch/documents.js'
import { toFacetDistribution } from '../../../src/search/meilisearch/facets.js'
import { buildFilter, buildSort, idsFilter, quoteFilterValue } from '../../../src/search/meilisearch/filter.js'
import { assertSucceeded, describeMeiliError } from '../../../src/search/meilisearch/meili-engine.js'
import { matchedText, matchedTokens, toSearchResult, type MeiliHit } from '../../../src/search/meilisearch/results.js'
import { indexSettings, SEARCHABLE_ATTRIBUTES } from '../../../src/search/meilisearch/settings.js'

/**
 * Meilisearch's reading of a double-quoted filter value (crates/filter-parser/src/value.rs):
 * the value ends at the first quote not preceded by a backslash escape; `\"` is then
 * unescaped; then backslash escapes are read (`\\` → `\`, `\n`, …; an unknown one is an error).
 * Returns the value and the rest of the input.
 */
function parseQuoted (input: string): { value: string, rest: string } {
  if (input[0] !== '"') throw new Error(`expected a quote at ${input}`)
  let i = 1
  for (; i < input.length; i++) {
    if (input[i] === '"') break
    if (input[i] === '\\') i++
  }
  if (i >= input.length) throw new Error('missing closing quote')
  const quoteUnescaped = input.slice(1, i).replaceAll('\\"', '"')
  let value = ''
  for (let j = 0; j < quoteUnescaped.length; j++) {
    const ch = quoteUnescaped[j] as string
    if (ch !== '\\') { value += ch; continue }
    const next = quoteUnescaped[++j]
    const escapes: Record<string, string> = { '\\': '\\', '"': '"', "'": "'", n: '\n', t: '\t', r: '\r', 0: '\0' }
    if (next === undefined || escapes[next] === undefined) throw new Error(`invalid escape \\${next ?? ''}`)
    value += escapes[next]
  }
  return { value, rest: input.slice(i + 1) }
}

/** Parses `attr op value (AND attr op value)*` as Meilisearch would, for the builder's output. */
function parseConditions (expression: string): Array<[string, string, string]> {
  const conditions: Array<[string, string, string]> = []
  let rest = expression
  for (;;) {
    const head = /^([A-Za-z]+) (=|<=) /.exec(rest)
    if (head === null) throw new Error(`unexpected: ${rest}`)
    rest = rest.slice(head[0].length)
    let value: string
    if (rest.startsWith('"')) ({ value, rest } = parseQuoted(rest))
    else { const n = /^\d+/.exec(rest)?.[0] ?? ''; value = n; rest = rest.slice(n.length) }
    conditions.push([head[1] as string, head[2] as string, value])
    if (rest === '') return conditions
    if (!rest.startsWith(' AND ')) throw new Error(`unexpected: ${rest}`)
    rest = rest.slice(5)
  }
}

const HOSTILE = [
  'weather', '', 'a"b', '"', '\\', 'a\\', '\\"', 'x" OR status = "verified', 'a\\" OR category = "b',
  'TO', '1 TO 9', 'NOT', 'OR', 'AND', 'EXISTS', 'IN [a]', "it's", '\\n', 'new\nline', '天気 "予報"', '\\\\"\\\\', ')', '_geoRadius(1,2,3)'
]

test('filter values cannot change the expression: hostile values parse back as themselves', async (t) => {
  for (const value of HOSTILE) {
    const expression = buildFilter({ category: value, status: 'verified', chain: value, maxPriceAtomic: 1000 }) as string
    t.same(parseConditions(expression), [['category', '=', value], ['status', '=', 'verified'], ['networks', '=', value], ['priceAtomic', '<=', '1000']], JSON.stringify(value))
  }
  t.equal(quoteFilterValue('a"b\\c'), '"a\\"b\\\\c"')
  t.equal(buildFilter({}), undefined)
  t.equal(buildFilter({ category: 'x" OR status = "verified' }), 'category = "x\\" OR status = \\"verified"')
  t.throws(() => buildFilter({ maxPriceAtomic: 0.5 }), /safe integer/)
  t.throws(() => buildFilter({ maxPriceAtomic: Number.NaN }), RangeError)
  t.equal(idsFilter(['svc_a', 'x"y']), 'id IN ["svc_a", "x\\"y"]')
  // `extensions` is an array of keys: equality matches a document listing the key.
  t.same(parseConditions(buildFilter({ extension: 'bazaar', status: 'verified' }) as string), [['status', '=', 'verified'], ['extensions', '=', 'bazaar']])
  // `!=` admits documents indexed before the field (none says true): real listings, as they were.
  t.equal(buildFilter({ testnet: false }), 'testnet != true')
  t.equal(buildFilter({ status: 'verified', testnet: true }), 'status = "verified" AND testnet = true')
})

test('sorts: the field, then the id in the same direction', async (t) => {
  t.equal(buildSort(undefined), undefined)
  t.same(buildSort({ field: 'price', order: 'asc' }), ['priceAtomic:asc', 'id:asc'])
  t.same(buildSort({ field: 'createdAt', order: 'desc' }), ['createdAt:desc', 'id:desc'])
  t.same(buildSort({ field: 'name', order: 'asc' }), ['nameSort:asc', 'id:asc'])
  t.same(buildSort({ field: 'trustScore', order: 'desc' }), ['trustScore:desc', 'id:desc'])
})

test('index settings', async (t) => {
  const settings = indexSettings()
  t.same(settings.searchableAttributes, ['name', 'name_ja', 'name_kana', 'name_stem', 'description', 'description_ja', 'description_kana', 'description_stem', 'categoryText', 'category_ja', 'category_kana', 'category_stem'], 'name, description, then category (category-only matches last among ties): each raw, kuromoji terms, readings, English stems')
  for (const attribute of ['category', 'status', 'networks', 'priceAtomic', 'payTo', 'extensions', 'testnet']) t.ok(settings.filterableAttributes?.includes(attribute), `${attribute} is filterable`)
  for (const attribute of ['priceAtomic', 'trustScore', 'nameSort', 'createdAt', 'id']) t.ok(settings.sortableAttributes?.includes(attribute), `${attribute} is sortable`)
  t.same(settings.rankingRules, ['sort', 'words', 'typo', 'proximity', 'attribute', 'exactness', 'trustScore:desc'])
  t.same(settings.typoTolerance, { enabled: true, minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 } })
  t.same(settings.synonyms, toMeilisearchSynonyms(), 'the shared synonym list')
  t.ok(settings.synonyms?.['天気']?.includes('weather'), '天気 → weather')
  t.ok(settings.synonyms?.weather?.includes('天気'), 'and back')
  t.ok(Object.values(settings.synonyms ?? {}).flat().includes('exchange rate'), 'multi-word synonyms are kept for Meilisearch')
  const localized = settings.localizedAttributes ?? []
  t.same(localized, [{ attributePatterns: ['*_ja', '*_kana'], locales: ['jpn'] }])
  const japaneseFields = SEARCHABLE_ATTRIBUTES.filter((a) => /_(ja|kana)$/.test(a))
  t.equal(japaneseFields.length, 6)
  t.same(JSON.parse(JSON.stringify(indexSettings())), settings, 'the payload is plain JSON and the same at every start')
})

test('documents carry kuromoji terms and hiragana readings; queries are sent the same way', async (t) => {
  const tokenizer = await loadTokenizer()
  const records = seedRecords(readSeedFile('demo'), new Date().toISOString())
  const weather = records.find((r) => r.name.includes('天気'))
  if (weather === undefined) throw new Error('the demo catalog has a Japanese weather service')
  const doc = toMeiliDocument(toSearchDocument(weather, 12, tokenizer))
  t.match(doc, { id: weather.id, seq: 12, category: weather.category, status: weather.status, networks: weather.supportedChains, priceAtomic: weather.priceAtomic, name: weather.name })
  t.ok(doc.name_ja.split(' ').includes('天気'), 'the kuromoji word')
  t.ok(doc.name_kana.split(' ').includes('てんき'), 'its reading in hiragana: てんき finds 天気')
  t.notMatch(doc.name_kana, /[\u30A1-\u30F6]/, 'readings hold no katakana')
  t.ok(doc.category_ja.length > 0, 'the category\'s Japanese name is indexed')
  t.notOk(Object.prototype.hasOwnProperty.call(doc, 'terms'), 'only Meilisearch fields')
  t.same(doc.extensions, [], 'declaring nothing: no extension keys')
  const declaring = toMeiliDocument(toSearchDocument({ ...weather, bazaarExtension: { info: { input: { type: 'http', method: 'GET' } } } }, 13, tokenizer))
  t.same(declaring.extensions, ['bazaar'], 'declaring the Bazaar extension: its key, the filter\'s value')
  t.equal(doc.testnet, false, 'a listing on a real network')
  t.equal(toMeiliDocument(toSearchDocument({ ...weather, network: 'eip155:84532', supportedChains: ['eip155:84532'] }, 14, tokenizer)).testnet, true, 'on base-sepolia alone: a test-network listing')

  const english = records.find((r) => !/[\u3040-\u30FF\u4E00-\u9FFF]/.test(r.name + r.description)) ?? records[0]
  if (english === undefined) return
  const plain = toMeiliDocument(toSearchDocument(english, 1, tokenizer))
  t.equal(plain.name_ja, '', 'no Japanese terms for English text')
  t.equal(plain.name_kana, '')
  for (const attribute of SEARCH_ATTRIBUTES) t.ok(TEXT_FIELDS[attribute].raw in plain, `${attribute} raw text`)
  const analyzing = toMeiliDocument(toSearchDocument({ ...english, name: 'Sentiment Analyzer', description: 'Analyzes the sentiment of reviews. Analysis in 天気 style.' }, 2, tokenizer))
  t.same(analyzing.name_stem.split(' ').sort(), ['analyz', 'sentiment'], 'the stems of the English words: analyzer → analyz')
  t.same(analyzing.description_stem.split(' ').sort(), ['analyz', 'review', 'sentiment', 'style'], 'each once; short and Japanese words have none')

  t.equal(katakanaToHiragana('テンキ・コーヒー'), 'てんき・こーひー')
  t.equal(queryText(splitQueryWords('テンキ'), true), 'てんき', 'kana queries in hiragana, as readings are stored')
  t.equal(queryText(splitQueryWords('weather forcast'), true), 'weather forcast')
  t.equal(queryText(splitQueryWords('天気 tokyo'), false), '天気 tokyo ', 'a trailing space: no prefix for whole sentences')
  const intent = analyzeIntent('東京の天気予報を教えてください', tokenizer)
  t.notMatch(queryText(intent.tokens, false), /教え|ください|の/, 'the analyzer drops the request phrasing before Meilisearch sees it')
})

test('matched text from _matchesPosition (UTF-8 bytes; a length in characters is read as such)', async (t) => {
  const value = 'テンキX 天気予報 API'
  const start = Buffer.byteLength('テンキX ')
  t.equal(matchedText(value, { start, length: Buffer.byteLength('天気') }), '天気')
  t.equal(matchedText(value, { start, length: 2 }), '天気', 'a length that would cut a character counts characters')
  t.equal(matchedText(value, { start, length: 100 }), '天気予報', 'never past the word')
  t.equal(matchedText('weather forecast', { start: 8, length: 8 }), 'forecast')
  t.equal(matchedText('weather forecast', { start: 8, length: 4 }), 'fore')
})

test('matched tokens: how each query word met the hit', async (t) => {
  const synonyms = loadSynonyms()
  const hit: MeiliHit = {
    id: 'svc_x',
    _rankingScore: 0.87654,
    name: 'Weather Forecast API',
    name_kana: 'てんき よほう',
    description: 'Hourly forecasts in 天気予報 style',
    categoryText: 'Weather 天気',
    _matchesPosition: {
      name: [{ start: 0, length: 7 }, { start: 8, length: 8 }],
      name_kana: [{ start: 0, length: Buffer.byteLength('てんき') }],
      description: [{ start: 7, length: 9 }]
    }
  }
  const tokens = matchedTokens(hit, splitQueryWords('weather てんき forcast'), false, synonyms)
  t.same(tokens.map((m) => [m.word, m.term, m.attribute, m.kind, m.typos]), [
    ['weather', 'weather', 'name', 'exact', 0],
    ['てんき', 'てんき', 'name', 'alternative', 0],
    ['forcast', 'forecast', 'name', 'typo', 1]
  ])
  const prefix = matchedTokens(hit, splitQueryWords('fore'), true, synonyms)
  t.same(prefix.map((m) => [m.kind, m.term]), [['prefix', 'forecast']], 'the last word as a prefix')
  t.same(matchedTokens(hit, splitQueryWords('fore'), false, synonyms), [], 'no prefix match for whole sentences')
  const stemHit: MeiliHit = {
    id: 'svc_z',
    description: 'Analyzes the Sentiment of reviews',
    description_stem: 'analyz sentiment review',
    _matchesPosition: { description_stem: [{ start: 0, length: 6 }], description: [{ start: 13, length: 9 }] }
  }
  t.same(matchedTokens(stemHit, splitQueryWords('analysis sentiment'), false, synonyms).map((m) => [m.word, m.term, m.attribute, m.kind]), [
    ['analysis', 'analyzes', 'description', 'wordForm'],
    ['sentiment', 'sentiment', 'description', 'exact']
  ], 'a stem matched in description_stem is claimed as the description\'s own word of that stem')
  const synonym = matchedTokens(hit, splitQueryWords('天気'), false, synonyms)
  t.same(synonym.map((m) => [m.kind, m.term, m.attribute]), [['synonym', 'weather', 'name']], '天気 met its synonym weather in the name')
  t.same(matchedTokens(hit, splitQueryWords('stocks'), false, synonyms), [], 'a word with no match has no token')
  t.same(matchedTokens({ id: 'svc_y' }, splitQueryWords('weather'), false, synonyms), [], 'no positions, no tokens')
})

test('romaji readings and kana slips become federated query variants at lower weight', async (t) => {
  const romaji = queryVariants(splitQueryWords('tenki x402'))
  t.same(romaji.map((v) => [queryText(v.words, true), v.weight]), [['tenki x402', 1], ['てんき x402', READING_WEIGHT]], 'the reading replaces the word')
  const slip = queryVariants(splitQueryWords('ほにゃく'))
  t.same(slip[0]?.weight, 1)
  t.ok(slip.some((v) => queryText(v.words, true) === 'ほんやく' && v.weight === SLIP_WEIGHT), 'a slip at the slip weight')
  t.ok(slip.length <= 4, 'at most four queries')
  t.same(queryVariants(splitQueryWords('weather data')).length, 1, 'no expansions, stems equal to the words: one plain search')
  const forms = queryVariants(splitQueryWords('sentiment analysis 天気'))
  t.same(forms.map((v) => [queryText(v.words, false), v.weight]), [['sentiment analysis 天気 ', 1], ['sentiment analyz 天気 ', FORM_WEIGHT]], 'a word whose stem differs is replaced by its stem, below the words as typed')

  const synonyms = loadSynonyms()
  const hit: MeiliHit = {
    id: 'svc_t',
    name: '天気予報 API',
    name_kana: 'てんき よほう',
    description: 'ほんやく',
    _matchesPosition: {
      name_kana: [{ start: 0, length: Buffer.byteLength('てんき') }],
      description: [{ start: 0, length: Buffer.byteLength('ほんやく') }]
    }
  }
  t.same(matchedTokens(hit, splitQueryWords('tenki'), false, synonyms).map((m) => [m.kind, m.term]), [['romaji', 'てんき']], 'a reading match is reported as romaji')
  t.same(matchedTokens(hit, splitQueryWords('ほにゃく'), false, synonyms).map((m) => [m.kind, m.typos]), [['typo', 1]], 'a slip as one typo')
})

test('facets in the port\'s shape: asked fields only, zero counts left out', async (t) => {
  t.same(toFacetDistribution(['category', 'network'], { category: { weather: 3, finance: 0 }, networks: { 'eip155:8453': 2 }, status: { verified: 1 } }),
    { category: { weather: 3 }, network: { 'eip155:8453': 2 } })
  t.same(toFacetDistribution(['status'], undefined), { status: {} })
})

test('a task counts only when it succeeded; failures name the task and the error', async (t) => {
  const base = { uid: 42, indexUid: 'services', type: 'documentAdditionOrUpdate', enqueuedAt: '', batchUid: 1, canceledBy: null, duration: null, startedAt: null, finishedAt: null } as const
  const ok = { ...base, status: 'succeeded', error: null } as unknown as Task
  t.equal(assertSucceeded(ok, 'add documents'), ok)
  const failed = { ...base, status: 'failed', error: { code: 'invalid_document_id', message: 'bad id', type: 'invalid_request', link: '' } } as unknown as Task
  t.throws(() => assertSucceeded(failed, 'add documents'), { code: 'SEARCH_UNAVAILABLE', message: /task 42 \(add documents\) did not succeed \(failed: invalid_document_id: bad id\)/ })
  const exists = { ...failed, error: { code: 'index_already_exists', message: 'exists', type: 'invalid_request', link: '' } } as unknown as Task
  t.equal(assertSucceeded(exists, 'create index', ['index_already_exists']), exists, 'an allowed failure (index already there) is fine')
  t.throws(() => assertSucceeded({ ...base, status: 'canceled', error: null } as unknown as Task, 'swap'), /canceled/)
})

test('error lines name the server and the variable to fix', async (t) => {
  const url = 'http://127.0.0.1:7700'
  const refused = new MeilisearchRequestError(url, new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }))
  t.equal(describeMeiliError(url, refused), 'cannot reach Meilisearch at http://127.0.0.1:7700 (MEILI_URL): connect ECONNREFUSED', 'the network error, not "fetch failed"')
  const badKey = new MeilisearchApiError(new Response(null, { status: 403 }), { code: 'invalid_api_key', message: 'The provided API key is invalid.', type: 'auth', link: '' })
  t.equal(describeMeiliError(url, badKey), 'Meilisearch at http://127.0.0.1:7700 refused the request (MEILI_MASTER_KEY): invalid_api_key: The provided API key is invalid.')
  const other = new MeilisearchApiError(new Response(null, { status: 400 }), { code: 'invalid_search_filter', message: 'bad', type: 'invalid_request', link: '' })
  t.match(describeMeiliError(url, other), /\(MEILI_URL\): invalid_search_filter/)
  t.equal(META_ID, 'catalog_meta')
})

test('totals are reported as Meilisearch\'s estimates', async (t) => {
  const hit: MeiliHit = { id: 'svc_1', _rankingScore: 0.5, name: 'Weather', _matchesPosition: { name: [{ start: 0, length: 7 }] } }
  const result = toSearchResult({ hits: [hit], estimatedTotalHits: 37, facetDistribution: { networks: { 'eip155:8453': 3 } } },
    { words: splitQueryWords('weather'), prefixLastWord: false, facets: ['network'] }, loadSynonyms())
  t.same([result.total, result.totalExact], [37, false], 'estimatedTotalHits is an estimate, and says so')
  t.same(result.hits.map((h) => [h.id, h.score]), [['svc_1', 0.5]])
  t.same(result.facetDistribution, { network: { 'eip155:8453': 3 } })
  t.equal(toSearchResult({ hits: [], estimatedTotalHits: 0 }, { words: [], prefixLastWord: true }, loadSynonyms()).facetDistribution, undefined, 'no facets asked, none answered')
})
