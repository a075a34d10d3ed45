import { test } from 'tap'
import { build, probeDemo, register, validBody } from '../helper.js'
import { resolveNetwork } from '../../src/domain/networks.js'

interface Result { service: { id: string, name: string, category: string, pricing: { pricePerRequest: string } }, score: number, matchedTokens: string[], reason?: string, matches?: Array<{ word: string, term: string, attribute: string, kind: string }> }

test('search endpoints validate their input and never fail on odd queries', async (t) => {
  const app = await build(t)
  await app.searchReady()
  for (const url of ['/api/catalog/search', '/api/services/search/intent']) {
    const missing = await app.inject(url)
    t.equal(missing.statusCode, 400, `${url} without q`)
    t.equal(missing.json().field, 'q')
    for (const blank of ['', '%20%20', '%E3%80%80']) {
      const res = await app.inject(`${url}?q=${blank}`)
      if (url === '/api/services/search/intent') {
        t.equal(res.statusCode, 400, `${url} with blank q "${blank}"`)
        t.equal(res.json().field, 'q')
      } else {
        t.equal(res.statusCode, 200, `${url} with blank q "${blank}" lists the catalog`)
        t.equal(res.json().total, (await app.store.countServices()) - 3, 'every service but the three on test networks alone')
      }
    }
    const long = await app.inject(`${url}?q=${'a'.repeat(201)}`)
    t.equal(long.statusCode, 400, 'over the 200-character cap')
    t.match(long.json().message, /200/)
    t.equal((await app.inject(`${url}?q=${'天'.repeat(200)}`)).statusCode, 200, '200 characters is accepted')
    t.equal((await app.inject(`${url}?q=weather&limit=101`)).statusCode, 400)
    t.equal((await app.inject(`${url}?q=weather&sort=name`)).json().field, 'sort')
    const testnet = await app.inject(`${url}?q=weather&testnet=yes`)
    t.same([testnet.statusCode, testnet.json().field], [400, 'testnet'], 'testnet: one of exclude, include, only')
    for (const odd of ['"', '*', 'weather OR 1=1', 'NEAR(a b)', "'; DROP TABLE docs_1; --", '%00', '🙂🙂', 'a"b*c^d:', '-weather', '{name}: x', 'ﾃﾝｷ ＡＰＩ', 'x'.repeat(200)]) {
      const res = await app.inject(`${url}?q=${encodeURIComponent(odd)}`)
      t.equal(res.statusCode, 200, `${url} q=${odd.slice(0, 20)} is answered`)
      t.ok(Array.isArray(res.json().results))
    }
  }
  const blankQuery = await app.inject('/api/services?query=%20')
  t.equal(blankQuery.statusCode, 400)
  t.equal(blankQuery.json().field, 'query')
})

test('catalog search: shape, typo tolerance, prefixes and scores in order', async (t) => {
  const app = await build(t)
  await app.searchReady()
  const res = await app.inject('/api/catalog/search?q=wether%20forcast')
  t.equal(res.statusCode, 200)
  const body = res.json() as { query: string, total: number, results: Result[] }
  t.equal(body.query, 'wether forcast')
  t.ok(body.total >= 1)
  const top = body.results[0] as Result
  t.match(top.service.name, /Weather/)
  t.same(top.matchedTokens, ['wether', 'forcast'])
  t.match(top.matches, [{ word: 'wether', term: 'weather', kind: 'typo' }, { word: 'forcast', term: 'forecast', kind: 'typo' }])
  const scores = body.results.map((r) => r.score)
  t.same(scores, [...scores].sort((a, b) => b - a), 'scores descend')
  t.ok(scores.every((s) => s >= 0 && s <= 1))

  const exact = (await app.inject('/api/catalog/search?q=weather')).json() as { results: Result[] }
  t.ok((exact.results[0] as Result).score > top.score, 'an exact match outscores a typo match')

  const short = (await app.inject('/api/catalog/search?q=smss')).json() as { total: number }
  t.equal(short.total, 0, 'words of 4 characters or fewer get no typo')
  const prefix = (await app.inject('/api/catalog/search?q=screensh')).json() as { results: Result[] }
  t.match(prefix.results[0]?.service.name, /Screenshot/, 'the last word matches as a prefix')
  t.match(prefix.results[0]?.matches, [{ kind: 'prefix', term: 'screenshot' }])
  const paged = (await app.inject('/api/catalog/search?q=api&limit=2&offset=2')).json() as { total: number, results: Result[] }
  const all = (await app.inject('/api/catalog/search?q=api&limit=100')).json() as { total: number, results: Result[] }
  t.equal(paged.total, all.total)
  t.same(paged.results.map((r) => r.service.id), all.results.slice(2, 4).map((r) => r.service.id), 'paging follows the ranking')
})

test('Japanese: readings, half-width, compounds and synonyms meet', async (t) => {
  const app = await build(t)
  await app.searchReady()
  const names = async (q: string): Promise<string[]> =>
    ((await app.inject(`/api/catalog/search?q=${encodeURIComponent(q)}`)).json() as { results: Result[] }).results.map((r) => r.service.name)
  const kanji = await names('天気')
  t.ok(kanji.length > 0)
  // The same services; the order may differ, since synonyms (天気 ↔ weather) hang on the kanji spelling.
  t.same((await names('てんき')).sort(), [...kanji].sort(), 'hiragana finds what kanji finds')
  t.same((await names('テンキ')).sort(), [...kanji].sort(), 'katakana finds what kanji finds')
  t.same((await names('ﾃﾝｷ')).sort(), [...kanji].sort(), 'half-width katakana too')
  t.match((await names('音声認識'))[0], /音声認識/, 'a compound inside リアルタイム音声認識')
  t.ok((await names('weather')).some((name) => /天気/.test(name)), 'weather finds the Japanese 天気 service (synonym)')
  t.ok((await names('株価')).some((name) => /[Ss]tock/.test(name)), '株価 finds English stock services')
})

test('intent search: content words only, reasons in the query language', async (t) => {
  const app = await build(t)
  await app.searchReady()
  const ja = (await app.inject(`/api/services/search/intent?q=${encodeURIComponent('東京の天気予報を教えてください')}`)).json() as { query: string, tokens: string[], results: Result[] }
  t.equal(ja.query, '東京の天気予報を教えてください')
  t.notOk(ja.tokens.some((token) => ['の', 'を', '教える', 'ください', 'くださる'].includes(token)), 'particles and request phrasing are dropped')
  t.ok(ja.tokens.includes('天気'))
  t.match(ja.results[0]?.service.name, /天気/)
  // 天気予報 is a lexicon entry, indexed whole where a text has 天気 + 予報: the query's words meet it whole.
  t.match(ja.results[0]?.reason, /「天気予報」.*一致/, 'the reason is Japanese and names the word')
  const scores = ja.results.map((r) => r.score)
  t.same(scores, [...scores].sort((a, b) => b - a))

  const en = (await app.inject(`/api/services/search/intent?q=${encodeURIComponent('I want to find an API that converts speech to text please')}`)).json() as { tokens: string[], results: Result[] }
  t.notOk(en.tokens.some((token) => ['i', 'want', 'to', 'find', 'an', 'api', 'please'].includes(token)), 'conversational filler is dropped')
  t.ok(en.tokens.includes('speech') && en.tokens.includes('text'))
  t.match(en.results[0]?.service.name, /Speech to Text/, 'word order counts: speech-to-text before text-to-speech')
  t.match(en.results[0]?.reason, /^"speech" is in the name/)
  t.same(Object.keys(en.results[0] ?? {}).sort(), ['matchedTokens', 'reason', 'score', 'service'], 'the seed shape, nothing more')
})

test('keyword search on the list combines with filters, sorting and paging', async (t) => {
  const app = await build(t)
  await app.searchReady()
  const relevance = await app.inject('/api/services?query=translation')
  t.equal(relevance.statusCode, 200)
  const ranked = relevance.json() as Array<{ id: string, name: string, category: string, pricing: { pricePerRequest: string } }>
  t.ok(Array.isArray(ranked) && ranked.length > 0, 'still a plain array')
  t.equal(Number(relevance.headers['x-total-count']), ranked.length)
  const filtered = (await app.inject('/api/services?query=translation&category=translation')).json() as typeof ranked
  t.ok(filtered.length > 0 && filtered.every((s) => s.category === 'translation'))
  t.ok(filtered.length <= ranked.length)
  const byPrice = (await app.inject('/api/services?query=api&sortBy=price&limit=100')).json() as typeof ranked
  const prices = byPrice.map((s) => Number(s.pricing.pricePerRequest))
  t.same(prices, [...prices].sort((a, b) => a - b), 'sortBy overrides relevance')
  const cheap = await app.inject('/api/services?query=api&maxPricePerRequest=0.001&limit=100')
  t.ok((cheap.json() as typeof ranked).every((s) => Number(s.pricing.pricePerRequest) <= 0.001))
  const pageTwo = (await app.inject('/api/services?query=api&sortBy=name&limit=5&offset=5')).json() as typeof ranked
  t.same(pageTwo.map((s) => s.id), byPrice.length > 0 ? (await app.inject('/api/services?query=api&sortBy=name&limit=100')).json().slice(5, 10).map((s: { id: string }) => s.id) : [])
  t.equal((await app.inject('/api/services?query=zzqxj')).json().length, 0)
})

test('a registration is searchable right away, and health reports the index', async (t) => {
  const app = await build(t, { seed: 'none' })
  const before = (await app.inject('/api/catalog/search?q=quokkafy')).json() as { total: number }
  t.equal(before.total, 0, 'nothing yet (and that answer is now cached)')
  const res = await register(app, validBody({ name: 'Quokkafy Lens', description: '有袋類の写真を判定する画像認識 API' }))
  t.equal(res.statusCode, 201)
  await app.searchReady()
  const found = (await app.inject('/api/catalog/search?q=quokkafy')).json() as { results: Result[] }
  t.equal(found.results[0]?.service.id, res.json().id, 'a change to the index empties the search cache')
  const japanese = (await app.inject(`/api/services/search/intent?q=${encodeURIComponent('有袋類を判定したい')}`)).json() as { results: Result[] }
  t.equal(japanese.results[0]?.service.id, res.json().id)
  const health = (await app.inject('/health')).json()
  t.match(health, { status: 'ok', search: { status: 'ok', engine: 'sqlite', indexer: 'embedded', documents: 1, lag: 0 } })
})

test('a search thread (CATALOG_SEARCH_THREADS=1) answers exactly like the API thread', async (t) => {
  const cached = await build(t, { searchThreads: 0 })
  const uncached = await build(t, { searchThreads: 1 })
  await cached.searchReady()
  await uncached.searchReady()
  for (const q of ['wether forcast', 'てんき', 'api']) {
    const url = `/api/catalog/search?q=${encodeURIComponent(q)}`
    const a = (await cached.inject(url)).json()
    const again = (await cached.inject(url)).json()
    const b = (await uncached.inject(url)).json()
    t.same(again, a, `${q}: a repeated search answers the same`)
    // Two stores seeded at different moments: compare what ranking decides, not timestamps.
    const ranking = (body: { total: number, results: Result[] }): unknown => [body.total, body.results.map((r) => [r.service.id, r.score, r.matches])]
    t.same(ranking(b), ranking(a), `${q}: the thread and the API thread agree`)
  }
})

test('a search sorted by name orders names as the list does (by code point)', async (t) => {
  const app = await build(t, { seed: 'none' })
  // UTF-16 puts U+1F600 (a surrogate pair, 0xD83D…) before U+E000–U+FFFF; code points put it after.
  for (const name of ['Zorbly \u{1F600}', 'Zorbly \uE000', 'Zorbly \uFFFD', 'Zorbly \u{10000}', 'Zorbly a']) {
    t.equal((await register(app, validBody({ name, description: 'zorbly test service' }))).statusCode, 201, name)
  }
  await app.searchReady()
  for (const order of ['asc', 'desc']) {
    const listed = ((await app.inject(`/api/services?sortBy=name&sortOrder=${order}`)).json() as Array<{ name: string }>).map((s) => s.name)
    t.equal(listed.length, 5)
    const viaSearch = ((await app.inject(`/api/services?query=zorbly&sortBy=name&sortOrder=${order}`)).json() as Array<{ name: string }>).map((s) => s.name)
    t.same(viaSearch, listed, `list search, ${order}`)
    const catalog = (await app.inject(`/api/catalog/search?q=zorbly&sortBy=name&sortOrder=${order}`)).json() as { results: Result[] }
    t.same(catalog.results.map((r) => r.service.name), listed, `catalog search, ${order}`)
  }
  t.same(((await app.inject('/api/services?sortBy=name')).json() as Array<{ name: string }>).map((s) => s.name),
    ['Zorbly a', 'Zorbly \uE000', 'Zorbly \uFFFD', 'Zorbly \u{10000}', 'Zorbly \u{1F600}'], 'code-point order')
})

test('the search total says whether it is exact, and OpenAPI says what that means', async (t) => {
  const app = await build(t)
  await app.searchReady()
  const body = (await app.inject('/api/catalog/search?q=api&limit=100')).json() as { total: number, totalExact: boolean, results: Result[] }
  t.equal(body.totalExact, true, 'the embedded engine counts every match')
  t.equal(body.total, body.results.length)
  t.equal((await app.inject('/api/services?query=api')).headers['x-total-exact'], 'true', 'the list says so in a header')
  const spec = (await app.inject('/openapi.json')).json()
  const schema = spec.paths['/api/catalog/search'].get.responses['200'].content['application/json'].schema
  t.same(schema.required.includes('totalExact'), true)
  t.match(schema.properties.total.description, /totalExact/, 'total is not promised exact')
  t.match(schema.properties.totalExact.description, /estimate/)
  t.match(spec.paths['/api/services'].get.responses['200'].description, /X-Total-Exact/)
})

test('OpenAPI lists the error shape once, under components, and routes refer to it', async (t) => {
  const app = await build(t, { seed: 'none' })
  const spec = (await app.inject('/openapi.json')).json()
  t.match(spec.components.schemas.ErrorResponse, { type: 'object', required: ['statusCode', 'code', 'error', 'message'] })
  const routes: Array<[string, string, string]> = [['/api/catalog/search', 'get', '400'], ['/discovery/search', 'get', '400'], ['/api/services/{id}', 'get', '404'], ['/api/services', 'post', '409']]
  for (const [path, method, status] of routes) {
    t.same(spec.paths[path][method].responses[status].content['application/json'].schema, { $ref: '#/components/schemas/ErrorResponse' }, `${method} ${path} ${status}`)
  }
  const inline = JSON.stringify(spec.paths).match(/"code":\{"type":"string"/g) ?? []
  t.equal(inline.length, 0, 'no route repeats it inline')
  const bad = await app.inject('/api/catalog/search?q=a&limit=0')
  t.match(bad.json(), { statusCode: 400, code: 'VALIDATION_ERROR', field: 'limit' }, 'errors still serialize through the reference')
})

test('constraints in the request: read, applied, reported; explicit parameters win', async (t) => {
  const app = await build(t, { seed: 'none' })
  const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
  const onSolana = { x402Config: { paymentAddress: 'So11111111111111111111111111111111111111112', network: 'solana' } }
  const ids: Record<string, string> = {}
  for (const [key, body] of Object.entries({
    solCheap: validBody({ name: 'Quokka Translate Lite', description: 'Translation between English and Japanese', category: 'translation', pricing: { currency: 'USDC', pricePerRequest: '0.002' }, ...onSolana }),
    solDear: validBody({ name: 'Quokka Translate Pro', description: 'Translation for documents', category: 'translation', pricing: { currency: 'USDC', pricePerRequest: '0.02' }, ...onSolana }),
    baseCheap: validBody({ name: 'Quokka Translate Base', description: 'Translation on an EVM chain', category: 'translation', pricing: { currency: 'USDC', pricePerRequest: '0.001' } }),
    solWeather: validBody({ name: 'Quokka Weather', description: 'Weather forecasts', category: 'weather', pricing: { currency: 'USDC', pricePerRequest: '0.001' }, ...onSolana })
  })) {
    const res = await register(app, body)
    t.equal(res.statusCode, 201, key)
    ids[key] = res.json().id
  }
  await app.searchReady()
  interface Answer { tokens: string[], total: number, filters: Record<string, string>, removed: string[], results: Result[] }
  const intent = async (q: string, more = ''): Promise<Answer> => {
    const res = await app.inject(`/api/services/search/intent?q=${encodeURIComponent(q)}${more}`)
    t.equal(res.statusCode, 200, q)
    return res.json()
  }

  const both = await intent('cheap translation API on solana under $0.01')
  t.same(both.filters, { maxPricePerRequest: '0.01', chain: SOLANA, sortBy: 'price' })
  t.same(both.removed, ['cheap', 'on solana', 'under $0.01'])
  t.same(both.tokens, ['translation'])
  t.same(both.results.map((r) => r.service.id), [ids.solCheap], 'on solana and within the price')

  const cheap = await intent('ソラナで一番安い翻訳')
  t.same(cheap.filters, { chain: SOLANA, sortBy: 'price' })
  t.same(cheap.results.map((r) => r.service.id), [ids.solCheap, ids.solDear], 'cheapest first')

  const explicit = await intent('translation on solana', '&chain=base&sortBy=name')
  t.same(explicit.filters, {}, 'the explicit chain wins: the parsed one is not applied')
  t.same(explicit.removed, ['on solana'], 'but its words are still no search words')
  t.same(explicit.results.map((r) => r.service.id), [ids.baseCheap])

  const only = await intent('APIs on solana under 0.01ドル')
  t.same(only.tokens, [], 'nothing but constraints')
  t.same(only.results.map((r) => r.service.id).sort(), [ids.solCheap, ids.solWeather].sort(), 'every service they admit')
  t.equal(only.total, 2)

  const catalogPlain = (await app.inject(`/api/catalog/search?q=${encodeURIComponent('translation on solana')}`)).json()
  t.notOk('filters' in catalogPlain, 'catalog search reads no constraints unless asked')
  t.equal(catalogPlain.total, 3, 'all translation services (solana is no word of theirs)')
  const catalogParsed = (await app.inject(`/api/catalog/search?q=${encodeURIComponent('translation on solana')}&parse=true`)).json()
  t.same(catalogParsed.filters, { chain: SOLANA })
  t.same(catalogParsed.removed, ['on solana'])
  t.equal(catalogParsed.total, 2)
  t.equal((await app.inject('/api/catalog/search?q=translation&parse=maybe')).json().field, 'parse', 'a bad flag is a 400 naming it')

  const verified = await intent('verified translation')
  t.same(verified.filters, { status: 'verified' })
  t.equal(verified.total, 0, 'new registrations are unverified')

  const spec = (await app.inject('/openapi.json')).json()
  const intentSchema = spec.paths['/api/services/search/intent'].get.responses['200'].content['application/json'].schema
  t.same(Object.keys(intentSchema.properties.filters.properties).sort(), ['chain', 'maxPricePerRequest', 'sortBy', 'status'], 'OpenAPI documents the understood filters')
  t.ok(intentSchema.required.includes('removed') && intentSchema.required.includes('filters'))
  const catalogParams = spec.paths['/api/catalog/search'].get.parameters as Array<{ name: string, required?: boolean }>
  t.ok(catalogParams.some((p) => p.name === 'parse'), 'catalog search documents parse')
  t.equal(catalogParams.find((p) => p.name === 'q')?.required, true, 'q is required for catalog search (empty lists)')
})

test('catalog search with an empty q lists the catalog, most trusted (so verified) first, with facets', async (t) => {
  const app = await build(t)
  await probeDemo(app)
  const all = (await app.inject('/api/services?limit=100')).json() as Array<{ id: string, status: string, trustScore: number, supportedChains: string[], category: string }>
  const res = await app.inject('/api/catalog/search?q=&facets=category,network,status&limit=100')
  t.equal(res.statusCode, 200)
  const body = res.json() as { query: string, total: number, totalExact: boolean, results: Array<Result & { service: { status: string, trustScore: number } }>, facetDistribution: Record<string, Record<string, number>> }
  t.equal(body.total, all.length, 'every service')
  t.equal(body.totalExact, true)
  const trust = body.results.map((r) => r.service.trustScore)
  t.same(trust, [...trust].sort((a, b) => b - a), 'by trust score')
  const statuses = body.results.map((r) => r.service.status)
  t.ok(statuses.includes('verified') && statuses.some((s) => s !== 'verified'), 'the probes verified some services, not all')
  t.ok(statuses.lastIndexOf('verified') < statuses.findIndex((s) => s !== 'verified'), 'verified services first')
  const byStatus: Record<string, number> = {}
  for (const s of all) byStatus[s.status] = (byStatus[s.status] ?? 0) + 1
  t.same(body.facetDistribution.status, byStatus, 'facet counts over the whole catalog')
  t.same(Object.keys(body.facetDistribution).sort(), ['category', 'network', 'status'])

  const weather = (await app.inject('/api/catalog/search?q=&category=weather&facets=status')).json() as typeof body
  t.equal(weather.total, all.filter((s) => s.category === 'weather').length, 'filters apply')
  t.same(Object.keys(weather.facetDistribution), ['status'])
  t.ok(weather.results.every((r) => r.service.category === 'weather'))
  const cheapest = (await app.inject('/api/catalog/search?q=&sortBy=price&limit=5')).json() as typeof body
  const prices = cheapest.results.map((r) => Number(r.service.pricing.pricePerRequest))
  t.same(prices, [...prices].sort((a, b) => a - b), 'an explicit sort wins')
})

test('network is another name for chain on lists and catalog search, as export, discovery and MCP call it', async (t) => {
  const app = await build(t)
  await app.searchReady()
  const ids = (res: { json: () => unknown }): string[] => {
    const body = res.json() as Array<{ id: string }> | { results: Array<{ service: { id: string } }> }
    return Array.isArray(body) ? body.map((s) => s.id) : body.results.map((r) => r.service.id)
  }
  for (const base of ['/api/services?limit=100', '/api/catalog/search?q=&limit=100', '/api/services/search/intent?q=api&limit=100']) {
    const byChain = await app.inject(`${base}&chain=solana`)
    const byNetwork = await app.inject(`${base}&network=solana`)
    t.equal(byNetwork.statusCode, 200, base)
    t.ok(ids(byChain).length > 0, `${base}: some services on solana`)
    t.same(ids(byNetwork), ids(byChain), `${base}: network=solana is chain=solana`)
    t.same(ids(await app.inject(`${base}&chain=solana&network=${encodeURIComponent(String(resolveNetwork('solana')?.id))}`)), ids(byChain), 'both, naming one network')
    const both = await app.inject(`${base}&chain=base&network=solana`)
    t.equal(both.statusCode, 400)
    t.match(both.json(), { field: 'network', message: /give one of them/ })
  }
  t.equal((await app.inject('/api/services?network=bitcoin')).json().field, 'network', 'an unknown network is named as given')
})
