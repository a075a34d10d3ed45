import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { readSeedFile } from '../../src/domain/seed.js'
import { API_KEY, build, demoIds, probeDemo, register, validBody } from '../helper.js'

interface ServiceJson {
  id: string
  name: string
  category: string
  status: string
  trustScore: number
  createdAt: string
  supportedChains: string[]
  pricing: { pricePerRequest: string }
}

async function list (app: FastifyInstance, query: string): Promise<{ status: number, total: number, items: ServiceJson[], body: any }> {
  const res = await app.inject(`/api/services${query}`)
  const body = res.json()
  return { status: res.statusCode, total: Number(res.headers['x-total-count']), items: Array.isArray(body) ? body : [], body }
}

/** Exact decimal comparison of price strings, independent of the code under test. */
function priceKey (price: string): bigint {
  const [whole = '0', fraction = ''] = price.split('.')
  return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'))
}

const demo = readSeedFile('demo')
/** The demo's test networks, as its seed names them (written out here, not read from the code under test). */
const TEST_NETWORKS = new Set(['base-sepolia', 'solana-devnet'])
const chainsOf = (s: typeof demo[number]): string[] => [s.x402Config.network, ...(s.supportedChains ?? [])]
/** A test-network listing: every chain it accepts is a test network. */
const onTestNetworks = (s: typeof demo[number]): boolean => chainsOf(s).every((chain) => TEST_NETWORKS.has(chain))
/** What the lists show by default: the demo catalog without its test-network listings. */
const shown = demo.filter((s) => !onTestNetworks(s))

test('default list: a plain array, newest first, 20 per page, total in X-Total-Count', async (t) => {
  const app = await build(t)
  const page = await list(app, '')
  t.equal(page.status, 200)
  t.ok(Array.isArray(page.body))
  t.equal(page.items.length, 20)
  t.equal(page.total, shown.length)
  const dates = page.items.map((s) => s.createdAt)
  t.same(dates, [...dates].sort().reverse(), 'newest first')
})

test('paging walks every service exactly once, in a stable order', async (t) => {
  const app = await build(t)
  for (const sort of ['', '&sortBy=price', '&sortBy=price&sortOrder=desc', '&sortBy=trustScore', '&sortBy=name']) {
    const seen: string[] = []
    for (let offset = 0; offset < shown.length; offset += 7) {
      seen.push(...(await list(app, `?limit=7&offset=${offset}${sort}`)).items.map((s) => s.id))
    }
    t.equal(seen.length, shown.length, `every service once (${sort})`)
    t.equal(new Set(seen).size, shown.length, `no duplicates across pages (${sort})`)
    const whole = (await list(app, `?limit=100${sort}`)).items.map((s) => s.id)
    t.same(seen, whole, `pages concatenate to the full order (${sort})`)
  }
  const beyond = await list(app, '?offset=1000')
  t.same(beyond.body, [])
  t.equal(beyond.total, shown.length)
})

test('limit: default 20, max 100, above is a 400 naming the maximum', async (t) => {
  const app = await build(t)
  t.equal((await list(app, '?limit=100')).items.length, shown.length)
  t.equal((await list(app, '?limit=1')).items.length, 1)
  const over = await list(app, '?limit=101')
  t.equal(over.status, 400)
  t.equal(over.body.field, 'limit')
  t.match(over.body.message, /100/)
  for (const bad of ['0', '-1', 'abc', '1.5', '']) {
    const res = await list(app, `?limit=${bad}`)
    t.equal(res.status, 400, `limit=${bad} is a 400`)
  }
  t.equal((await list(app, '?offset=-1')).status, 400)
  t.equal((await list(app, '?offset=x')).status, 400)
})

test('sort by price is exact decimal order, with a deterministic tie-breaker', async (t) => {
  const app = await build(t, { seed: 'none' })
  // String order would put "0.1" after "0.09" wrongly reversed with "10"; float order loses "0.000001".
  for (const price of ['10', '0.1', '0.09', '0.000001', '0.000002', '1', '0.1', '2.5']) {
    t.equal((await register(app, validBody({ pricing: { currency: 'USDC', pricePerRequest: price } }))).statusCode, 201)
  }
  const asc = (await list(app, '?sortBy=price')).items
  t.same(asc.map((s) => s.pricing.pricePerRequest), ['0.000001', '0.000002', '0.09', '0.1', '0.1', '1', '2.5', '10'])
  const tied = asc.filter((s) => s.pricing.pricePerRequest === '0.1').map((s) => s.id)
  t.same(tied, [...tied].sort(), 'equal prices are ordered by id')
  const desc = (await list(app, '?sortBy=price&sortOrder=desc')).items
  t.same(desc.map((s) => s.id), asc.map((s) => s.id).reverse(), 'descending is the exact reverse')
})

test('sort by trustScore and name', async (t) => {
  const app = await build(t)
  await probeDemo(app)
  const byTrust = (await list(app, '?sortBy=trustScore&limit=100')).items
  t.ok(new Set(byTrust.map((s) => s.trustScore)).size >= 3, 'the probes gave verified, unverified and inactive services their own scores')
  for (let i = 1; i < byTrust.length; i++) {
    const [a, b] = [byTrust[i - 1] as ServiceJson, byTrust[i] as ServiceJson]
    t.ok(a.trustScore > b.trustScore || (a.trustScore === b.trustScore && a.id > b.id), 'trustScore defaults to descending, ties by id')
  }
  const asc = (await list(app, '?sortBy=trustScore&sortOrder=asc&limit=100')).items
  t.same(asc.map((s) => s.id), byTrust.map((s) => s.id).reverse())
  const byName = (await list(app, '?sortBy=name&limit=100')).items.map((s) => s.name.normalize('NFKC').toLowerCase())
  t.same(byName, [...byName].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), 'names A→Z (NFKC, case-insensitive)')
})

test('filters: category, chain, status, maxPricePerRequest, combined', async (t) => {
  const app = await build(t)
  const statuses = await probeDemo(app)
  const ids = demoIds()
  const statusOf = (index: number): string | undefined => statuses.get(ids[index] as string)
  const weather = await list(app, '?category=weather&limit=100')
  t.equal(weather.total, shown.filter((s) => s.category === 'weather').length)
  t.ok(weather.items.length > 0 && weather.items.every((s) => s.category === 'weather'))

  const verified = await list(app, '?status=verified&limit=100')
  t.ok(verified.total > 0)
  t.equal(verified.total, demo.filter((s, i) => !onTestNetworks(s) && statusOf(i) === 'verified').length)
  t.ok(verified.items.every((s) => s.status === 'verified'))

  const solanaByName = await list(app, '?chain=solana&limit=100')
  const solanaById = await list(app, '?chain=solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp&limit=100')
  t.ok(solanaByName.total > 0)
  t.same(solanaByName.items.map((s) => s.id), solanaById.items.map((s) => s.id), 'a chain filter accepts the v1 name or the CAIP-2 id')
  t.ok(solanaByName.items.every((s) => s.supportedChains.includes('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')))
  const polygon = await list(app, '?chain=polygon&limit=100')
  const expectedPolygon = shown.filter((s) => chainsOf(s).some((c) => c === 'polygon' || c === 'eip155:137'))
  t.equal(polygon.total, expectedPolygon.length, 'supportedChains extras count for the chain filter')

  const cheap = await list(app, '?maxPricePerRequest=0.001&limit=100')
  t.equal(cheap.total, shown.filter((s) => priceKey(s.pricing.pricePerRequest) <= 1000n).length)
  t.ok(cheap.items.every((s) => priceKey(s.pricing.pricePerRequest) <= 1000n), 'the bound is inclusive and exact')
  t.ok(cheap.items.some((s) => s.pricing.pricePerRequest === '0.001'), 'a price equal to the bound is included')
  t.equal((await list(app, '?maxPricePerRequest=0.0009999999')).total, shown.filter((s) => priceKey(s.pricing.pricePerRequest) < 1000n).length, 'extra decimals in the bound are exact too')
  t.equal((await list(app, '?maxPricePerRequest=99999999999999999999999')).total, shown.length)

  const combined = await list(app, '?category=image&status=verified&chain=base&maxPricePerRequest=0.05&sortBy=price&limit=100')
  const expected = demo.filter((s, i) => !onTestNetworks(s) && s.category === 'image' && statusOf(i) === 'verified' &&
    chainsOf(s).some((c) => c === 'base' || c === 'eip155:8453') &&
    priceKey(s.pricing.pricePerRequest) <= 50_000n)
  t.ok(expected.length > 0)
  t.equal(combined.total, expected.length)
  t.same(combined.items.map((s) => s.name).sort(), expected.map((s) => s.name).sort())
})

test('test-network listings: flagged, left out unless asked for (testnet=include or only, or a test chain)', async (t) => {
  const app = await build(t, { seed: 'none' })
  const real = (await register(app, validBody({ name: 'Real Weather', x402Config: { paymentAddress: '0x1111111111111111111111111111111111111111', network: 'base' } }))).json()
  const test = (await register(app, validBody({ name: 'Test Weather', x402Config: { paymentAddress: '0x1111111111111111111111111111111111111111', network: 'base-sepolia' } }))).json()
  const both = (await register(app, validBody({ name: 'Both Weather', x402Config: { paymentAddress: '0x1111111111111111111111111111111111111111', network: 'base-sepolia' }, supportedChains: ['base'] }))).json()
  t.same([real.testnet, test.testnet, both.testnet], [false, true, false], 'the registration answers the flag: one real network makes a listing real')
  t.equal((await app.inject(`/api/services/${test.id as string}`)).json().testnet, true, 'the detail carries it')
  const ids = async (query: string): Promise<{ ids: string[], total: number }> => {
    const page = await list(app, `${query}${query === '' ? '?' : '&'}sortBy=name`)
    t.equal(page.status, 200, query)
    return { ids: page.items.map((s) => s.id), total: page.total }
  }
  t.same(await ids(''), { ids: [both.id, real.id], total: 2 }, 'the default list leaves the test one out')
  t.same(await ids('?testnet=exclude'), { ids: [both.id, real.id], total: 2 })
  t.same(await ids('?testnet=include'), { ids: [both.id, real.id, test.id], total: 3 }, 'include: all')
  t.same(await ids('?testnet=only'), { ids: [test.id], total: 1 }, 'only: the test one')
  t.same(await ids('?chain=base-sepolia'), { ids: [both.id, test.id], total: 2 }, 'a test chain asks for its listings')
  t.same(await ids('?network=eip155:84532&testnet=only'), { ids: [test.id], total: 1 })
  t.same(await ids('?chain=base'), { ids: [both.id, real.id], total: 2 })
  await app.searchReady()
  t.same(await ids('?query=weather'), { ids: [both.id, real.id], total: 2 }, 'a search leaves it out too')
  t.same(await ids('?query=weather&testnet=include'), { ids: [both.id, real.id, test.id], total: 3 })
  t.same(await ids('?query=weather&chain=base-sepolia'), { ids: [both.id, test.id], total: 2 })
  const bad = await list(app, '?testnet=yes')
  t.same([bad.status, bad.body.field], [400, 'testnet'])
  t.match(bad.body.message, /exclude, include, only/, 'the message lists the values')
})

test('bad and hostile query input is a 4xx naming the parameter', async (t) => {
  const app = await build(t)
  const cases: Array<[string, string]> = [
    ['?category=astrology', 'category'],
    ['?category[$ne]=x', 'category[$ne]'],
    ['?chain=dogechain', 'chain'],
    ['?status=deleted', 'status'],
    ['?maxPricePerRequest=-1', 'maxPricePerRequest'],
    ['?maxPricePerRequest=1e3', 'maxPricePerRequest'],
    ['?sortBy=__proto__', 'sortBy'],
    ['?sortBy=price&sortOrder=up', 'sortOrder'],
    ['?sortOrder=asc', 'sortOrder'],
    ['?__proto__=1', '__proto__'],
    ['?status=verified&status=inactive', 'status'],
    ['?testnet=yes', 'testnet'],
    ['?testnet=true', 'testnet']
  ]
  for (const [query, field] of cases) {
    const res = await list(app, query)
    t.equal(res.status, 400, `${query} is a 400`)
    t.equal(res.body.field, field, `${query} names ${field}`)
    t.equal(res.body.code, 'VALIDATION_ERROR')
  }
  const sortBy = await list(app, '?sortBy=popularity')
  t.match(sortBy.body.message, /price, trustScore, name, createdAt/, 'the message lists the allowed values')
})

test('a list page is byte for byte its services\' detail answers, after writes too', async (t) => {
  const app = await build(t)
  const tricky = await register(app, validBody({ name: 'Quote " backslash \\ 天気 😀', description: 'tab-free \u2028 line separator, </script>' }))
  t.equal(tricky.statusCode, 201)
  const id = (tricky.json() as { id: string }).id
  const patched = await app.inject({ method: 'PATCH', url: `/api/services/${id}`, headers: { authorization: `Bearer ${API_KEY}` }, payload: { description: 'Changed "again" ☀ \\ done' } })
  t.equal(patched.statusCode, 200, patched.body)
  for (const query of ['?limit=100', '?sortBy=price&limit=7&offset=3', '?maxPricePerRequest=0.01&sortBy=name']) {
    const res = await app.inject(`/api/services${query}`)
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
    const ids = (res.json() as Array<{ id: string }>).map((s) => s.id)
    // The detail is the list's object plus callSchema (null: these endpoints declare none), retired (null: none was), sources (none lists them) and ownershipProof (none proved).
    const details = await Promise.all(ids.map(async (id) => (await app.inject(`/api/services/${id}`)).body.replace(/,"callSchema":null,"retired":null,"sources":\[\],"ownershipProof":null\}$/, '}')))
    t.equal(res.body, `[${details.join(',')}]`, query)
  }
  t.match((await list(app, '?limit=100')).items.find((s) => s.id === id), { description: 'Changed "again" ☀ \\ done' }, 'the patch shows in the list')
})
