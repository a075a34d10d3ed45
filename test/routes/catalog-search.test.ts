/**
 * GET /api/catalog/search with words: filters, sorts, paging and facetDistribution (counts
 * over every match, not just the page), wrong parameters named, all documented in OpenAPI.
 * The engines' facet counts themselves: test/search/embedded/engine.test.ts.
 */
import { test } from 'tap'
import type { FacetDistribution } from '../../src/search/search-engine.js'
import { build, probeDemo } from '../helper.js'

test('GET /api/catalog/search: filters, sort and facetDistribution', async (t) => {
  const app = await build(t)
  // Probed as the prober would: some verified (with an uptime), some not.
  await probeDemo(app)
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
