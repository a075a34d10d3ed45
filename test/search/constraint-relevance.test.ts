/**
 * Constrained queries (constraint-cases.ts) against a generated catalog (bench/generate.ts,
 * 1,500 services; CONSTRAINT_CATALOG=100000 for the large run): how often the filters read from
 * the text are exactly the expected ones, and hit@3 / recall@10 of what the rest of the text
 * finds. Every result must pass the expected filters. Figures in docs/search.md.
 */
import { test } from 'tap'
import { generateServices, type SeedEntry } from '../../bench/generate.js'
import { isTestListing, isTestNetwork, resolveNetwork } from '../../src/domain/networks.js'
import { seedRecords } from '../../src/domain/seed.js'
import { priceBound } from '../../src/domain/service-query.js'
import { parseConstraints } from '../../src/search/constraints.js'
import { build } from '../helper.js'
import { constraintCases as cases, type ConstraintCase } from './constraint-cases.js'

const SIZE = Number(process.env.CONSTRAINT_CATALOG ?? 1500)
const SEED = 18
const LIMIT = 10
const TOP = 3
const MIN_EXACT = 0.95

interface Service { name: string, endpoint: string, status: string, supportedChains: string[], testnet: boolean, pricing: { pricePerRequest: string } }

const atomic = (price: string): number => {
  const bound = priceBound(price)
  if (!bound.ok) throw new Error(price)
  return bound.atomic
}

/**
 * Whether a service (the API's view) passes the case's filters, and is one a search shows:
 * test-network listings only when the case names a test network.
 */
function passes (c: ConstraintCase, service: Service): boolean {
  const { chain, status, maxPricePerRequest } = c.filters
  if (chain !== undefined && !service.supportedChains.includes(chain)) return false
  if (service.testnet && (chain === undefined || !isTestNetwork(chain))) return false
  if (status !== undefined && service.status !== status) return false
  if (maxPricePerRequest !== undefined && atomic(service.pricing.pricePerRequest) > atomic(maxPricePerRequest)) return false
  return true
}

/** The generated entries relevant to a case: its topic, passing its filters. */
function relevant (c: ConstraintCase, entries: readonly SeedEntry[]): Set<string> {
  const found = new Set<string>()
  for (const entry of entries) {
    if (!entry.endpoint.endsWith(`/${c.topic}`)) continue
    const chains = [entry.x402Config.network, ...(entry.supportedChains ?? [])].map((name) => resolveNetwork(name)?.id ?? name)
    const service: Service = { name: entry.name, endpoint: entry.endpoint, status: entry.status ?? 'unverified', supportedChains: chains, testnet: isTestListing(chains), pricing: entry.pricing }
    if (passes(c, service)) found.add(new URL(entry.endpoint).href)
  }
  return found
}

const pct = (n: number): string => `${(n * 100).toFixed(1)}%`

test('constraint cases are well-formed', async (t) => {
  t.ok(cases.length >= 30, `${cases.length} cases`)
  t.ok(cases.filter((c) => c.lang === 'ja').length >= 15 && cases.filter((c) => c.lang === 'en').length >= 15, 'both languages')
  const keys = cases.map((c) => `${c.endpoint} ${c.q}`)
  t.equal(new Set(keys).size, keys.length, 'no case twice')
})

test(`constrained queries on a generated catalog of ${SIZE} services`, { timeout: SIZE > 10_000 ? 3_600_000 : 600_000 }, async (t) => {
  const entries = generateServices(SIZE, SEED)
  // Written through the store, not as a seed file: a generated catalog carries the statuses a
  // prober would have measured, which a seed file may not claim.
  const app = await build(t, { seed: 'none' })
  await app.store.insertServices(seedRecords(entries, new Date().toISOString()))
  await app.searchReady()

  let exact = 0
  let hits = 0
  let recallSum = 0
  let measured = 0
  const misses: string[] = []
  for (const c of cases) {
    const params = new URLSearchParams({ q: c.q, limit: String(LIMIT) })
    if (c.endpoint === 'catalog') params.set('parse', 'true')
    const url = c.endpoint === 'intent' ? `/api/services/search/intent?${params}` : `/api/catalog/search?${params}`
    const res = await app.inject(url)
    t.equal(res.statusCode, 200, c.q)
    const body = res.json() as { filters?: object, removed?: string[], tokens?: string[], results: Array<{ service: Service }> }
    t.same(body.filters, parseConstraints(c.q).filters, `${c.q}: the answer reports what the parser read`)
    const isExact = JSON.stringify(sorted(body.filters ?? {})) === JSON.stringify(sorted(c.filters))
    if (isExact) exact++
    else misses.push(`filters ${JSON.stringify(c.q)}: ${JSON.stringify(body.filters)} expected ${JSON.stringify(c.filters)}`)

    const services = body.results.map((r) => r.service)
    t.ok(services.every((s) => passes(c, s)), `${c.q}: every result passes the expected filters`)
    if (c.filters.sortBy === 'price') {
      const prices = services.map((s) => atomic(s.pricing.pricePerRequest))
      t.same(prices, [...prices].sort((a, b) => a - b), `${c.q}: cheapest first`)
    }
    const want = relevant(c, entries)
    if (want.size === 0) {
      t.comment(`no relevant service for ${JSON.stringify(c.q)} in this catalog: not measured`)
      continue
    }
    measured++
    const got = services.map((s) => new URL(s.endpoint).href)
    const hit = got.slice(0, TOP).some((e) => want.has(e))
    if (hit) hits++
    const recall = got.filter((e) => want.has(e)).length / Math.min(LIMIT, want.size)
    recallSum += recall
    if (!hit || recall < 1) misses.push(`${hit ? 'recall' : 'MISS'} ${pct(recall)} ${c.endpoint} ${JSON.stringify(c.q)} (${want.size} relevant); searched ${JSON.stringify(body.tokens ?? body.removed)}, top 3: ${services.slice(0, TOP).map((s) => s.name).join(' | ')}`)
  }
  const exactRate = exact / cases.length
  t.comment(`catalog ${SIZE}: extraction exact ${exact}/${cases.length} (${pct(exactRate)}); hit@3 ${hits}/${measured} (${pct(hits / measured)}); recall@10 ${pct(recallSum / measured)}`)
  for (const miss of misses) t.comment(miss)
  t.ok(exactRate >= MIN_EXACT, `constraint extraction ${pct(exactRate)} ≥ ${pct(MIN_EXACT)}`)
  t.ok(measured >= cases.length * 0.9, `${measured} cases have relevant services`)
})

function sorted (filters: object): Array<[string, unknown]> {
  return Object.entries(filters).sort(([a], [b]) => a.localeCompare(b))
}
