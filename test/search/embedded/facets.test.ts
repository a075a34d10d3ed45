/**
 * Facet counts (Meilisearch's facetDistribution): per value, every match of the words after
 * the filter, not just the page. Expected counts are tallied from the engine's own complete
 * result list, so any engine behind the port is held to the same answer.
 */
import { test } from 'tap'
import { toSearchDocument } from '../../../indexer/search-document.js'
import { readSeedFile, seedRecords } from '../../../src/domain/seed.js'
import type { ServiceRecord } from '../../../src/domain/service.js'
import { splitQueryWords } from '../../../src/search/analysis/analyzer.js'
import { loadTokenizer } from '../../../src/search/analysis/tokenizer.js'
import type { FacetDistribution, SearchQuery } from '../../../src/search/search-engine.js'
import { EmbeddedSearchEngine } from '../../../src/search/embedded/engine.js'
import type { ServiceFilter } from '../../../src/domain/catalog-query.js'
import { build, tempDataDir } from '../../helper.js'

function tally (records: readonly ServiceRecord[]): Required<FacetDistribution> {
  const counts: Required<FacetDistribution> = { category: {}, status: {}, network: {} }
  for (const record of records) {
    counts.category[record.category] = (counts.category[record.category] ?? 0) + 1
    counts.status[record.status] = (counts.status[record.status] ?? 0) + 1
    for (const chain of new Set(record.supportedChains)) counts.network[chain] = (counts.network[chain] ?? 0) + 1
  }
  return counts
}

test('engine: facet counts cover every match after the filter, not just the page', async (t) => {
  const tokenizer = await loadTokenizer()
  const records = seedRecords(readSeedFile('demo'), new Date().toISOString())
  const byId = new Map(records.map((r) => [r.id, r]))
  const engine = new EmbeddedSearchEngine(tempDataDir(t))
  t.teardown(() => engine.close())
  await engine.apply(records.map((record, i) => toSearchDocument(record, i + 1, tokenizer)), records.length)

  const cases: Array<{ q: string, filter: ServiceFilter }> = [
    { q: 'api', filter: {} },
    { q: 'weather forecast', filter: {} },
    { q: '天気', filter: {} },
    { q: 'api', filter: { status: 'verified' } },
    { q: 'data', filter: { chain: 'eip155:8453', maxPriceAtomic: 2000 } },
    { q: 'translation', filter: { category: 'translation' } }
  ]
  for (const { q, filter } of cases) {
    const query = (page: SearchQuery['page'], facets?: SearchQuery['facets']): SearchQuery =>
      ({ words: splitQueryWords(q), filter, page, prefixLastWord: true, ...(facets === undefined ? {} : { facets }) })
    const all = await engine.search(query({ limit: 1000, offset: 0 }))
    t.ok(all.total > 1, `${q} ${JSON.stringify(filter)}: several matches (${all.total})`)
    const expected = tally(all.hits.map((hit) => byId.get(hit.id) as ServiceRecord))
    const paged = await engine.search(query({ limit: 1, offset: 0 }, ['category', 'status', 'network']))
    t.equal(paged.hits.length, 1)
    t.equal(paged.total, all.total, 'facets do not change the total')
    t.same(paged.facetDistribution, expected, `${q} ${JSON.stringify(filter)}: counts over all ${all.total} matches`)
    const categorySum = Object.values(paged.facetDistribution?.category ?? {}).reduce((a, b) => a + b, 0)
    t.equal(categorySum, all.total, 'each match counts once per category')
  }

  const some = await engine.search({ words: splitQueryWords('api'), filter: {}, page: { limit: 5, offset: 0 }, prefixLastWord: true, facets: ['status'] })
  t.same(Object.keys(some.facetDistribution ?? {}), ['status'], 'only the asked fields')
  const none = await engine.search({ words: splitQueryWords('zzqxjv'), filter: {}, page: { limit: 5, offset: 0 }, prefixLastWord: true, facets: ['category', 'network'] })
  t.same(none, { total: 0, totalExact: true, hits: [], facetDistribution: { category: {}, network: {} } }, 'no match: empty counts, still one entry per asked field')
  const without = await engine.search({ words: splitQueryWords('api'), filter: {}, page: { limit: 5, offset: 0 }, prefixLastWord: true })
  t.equal(without.facetDistribution, undefined, 'not asked, not computed')
})

test('GET /api/catalog/search: filters, sort and facetDistribution', async (t) => {
  const app = await build(t)
  await app.searchReady()
  type Body = { total: number, results: Array<{ service: { id: string, category: string, status: string, supportedChains: string[], trustScore: number, pricing: { pricePerRequest: string } }, uptimeScore: number | null }>, facetDistribution?: FacetDistribution }
  const get = async (qs: string): Promise<Body> => {
    const res = await app.inject(`/api/catalog/search?${qs}`)
    t.equal(res.statusCode, 200, qs)
    return res.json() as Body
  }

  const all = await get('q=api&limit=100')
  t.ok(all.total > 20)
  t.equal(all.facetDistribution, undefined, 'no facets unless asked')
  t.ok(all.results.some((r) => typeof r.uptimeScore === 'number'), 'uptime comes with each result')
  const faceted = await get('q=api&limit=3&facets=category,network,status')
  t.equal(faceted.results.length, 3)
  const expected: Required<FacetDistribution> = { category: {}, status: {}, network: {} }
  for (const { service } of all.results) {
    expected.category[service.category] = (expected.category[service.category] ?? 0) + 1
    expected.status[service.status] = (expected.status[service.status] ?? 0) + 1
    for (const chain of service.supportedChains) expected.network[chain] = (expected.network[chain] ?? 0) + 1
  }
  t.same(faceted.facetDistribution, expected, 'counts over every match, with a page of 3')

  const base = await get('q=api&limit=100&chain=base&facets=status')
  t.ok(base.total > 0 && base.results.every((r) => r.service.supportedChains.includes('eip155:8453')), 'chain accepts the x402 name')
  t.equal(base.total, expected.network['eip155:8453'], 'the network count is what the filter then finds')
  const verified = await get('q=api&limit=100&status=verified&category=weather')
  t.ok(verified.total > 0 && verified.results.every((r) => r.service.status === 'verified' && r.service.category === 'weather'))
  const cheap = await get('q=api&limit=100&maxPricePerRequest=0.001&sortBy=price')
  const prices = cheap.results.map((r) => Number(r.service.pricing.pricePerRequest))
  t.ok(prices.length > 0 && prices.every((p) => p <= 0.001))
  t.same(prices, [...prices].sort((a, b) => a - b), 'sortBy=price: cheapest first')
  const trusted = await get('q=api&limit=100&sortBy=trustScore')
  const trust = trusted.results.map((r) => r.service.trustScore)
  t.same(trust, [...trust].sort((a, b) => b - a), 'sortBy=trustScore: most trusted first')
  const page2 = await get('q=api&limit=5&offset=5&sortBy=name')
  const names = await get('q=api&limit=10&sortBy=name')
  t.same(page2.results.map((r) => r.service.id), names.results.slice(5).map((r) => r.service.id), 'pages follow the order')

  const punctuation = await get(`q=${encodeURIComponent('!!! ???')}&facets=status,category`)
  t.same(punctuation, { query: '!!! ???', total: 0, totalExact: true, results: [], facetDistribution: { category: {}, status: {} } }, 'no words: no match, empty counts')

  for (const [qs, field] of [['q=api&facets=price', 'facets'], ['q=api&facets=category,', 'facets'], ['q=api&category=nope', 'category'],
    ['q=api&chain=bitcoin', 'chain'], ['q=api&sortOrder=asc', 'sortOrder'], ['q=api&maxPricePerRequest=abc', 'maxPricePerRequest'], ['q=api&sortBy=relevance', 'sortBy']] as const) {
    const res = await app.inject(`/api/catalog/search?${qs}`)
    t.equal(res.statusCode, 400, qs)
    t.equal(res.json().field, field, `${qs} names ${field}`)
  }

  const spec = (await app.inject('/openapi.json')).json()
  const params = spec.paths['/api/catalog/search'].get.parameters.map((p: { name: string }) => p.name)
  t.ok(['facets', 'category', 'chain', 'status', 'maxPricePerRequest', 'sortBy'].every((name) => params.includes(name)), 'documented in OpenAPI')
  t.ok(spec.paths['/api/catalog/search'].get.responses['200'].content['application/json'].schema.properties.facetDistribution)
})
