import { test } from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { applyServicePatch, buildServiceRecord } from '../../src/domain/registration.js'
import { API_KEY, build, register, tempDataDir, validBody } from '../helper.js'
import { startX402Server } from '../support/x402-servers.js'
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js'

const OTHER_KEY = 'other-key-0123456789abcdef'
const PROVIDER = '0x6a8607afb7ac96d2c8a3e1b44560ff101b34550b'

async function call (app: FastifyInstance, method: 'PATCH' | 'DELETE' | 'POST', url: string, key: string | null, payload?: unknown): Promise<LightMyRequestResponse> {
  return await app.inject({
    method,
    url,
    headers: key === null ? {} : { authorization: `Bearer ${key}` },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> })
  })
}

async function searchTotal (app: FastifyInstance, q: string): Promise<number> {
  await app.searchReady()
  return (await app.inject(`/api/catalog/search?q=${encodeURIComponent(q)}`)).json().total as number
}

test('only the owning key changes, deletes or re-probes a service', async (t) => {
  const app = await build(t, { apiKeys: [API_KEY, OTHER_KEY] })
  const mine = (await register(app, validBody())).json().id as string
  const seeded = ((await app.inject('/api/services?limit=1&sortBy=name')).json() as Array<{ id: string }>)[0]?.id as string
  const routes: Array<['PATCH' | 'DELETE' | 'POST', string, unknown]> = [
    ['PATCH', `/api/services/${mine}`, { description: 'changed' }],
    ['DELETE', `/api/services/${mine}`, undefined],
    ['POST', `/api/services/${mine}/probe`, undefined]
  ]
  for (const [method, url, body] of routes) {
    const anonymous = await call(app, method, url, null, body)
    t.equal(anonymous.statusCode, 401, `${method} ${url} without a key`)
    t.match(anonymous.headers['www-authenticate'], /^Bearer/)
    t.equal((await call(app, method, url, null, { nonsense: true })).statusCode, 401, 'before the body is validated')
    t.equal((await call(app, method, url, 'not-a-valid-key-at-all')).statusCode, 401)
    const other = await call(app, method, url, OTHER_KEY, body)
    t.equal(other.statusCode, 403, `${method} with another key`)
    t.equal(other.json().code, 'FORBIDDEN')
    t.equal((await call(app, method, url, OTHER_KEY, { nonsense: true })).statusCode, 403, 'another key learns nothing about the body rules')
    const seededAnswer = await call(app, method, url.replace(mine, seeded), API_KEY, body)
    t.equal(seededAnswer.statusCode, 403, 'seeded services belong to no key')
    t.equal(seededAnswer.json().message, `service ${seeded} was loaded from the seed (CATALOG_SEED) and has no owner: no API key can change it`, 'and the answer says so')
    t.match(other.json().message, `service ${mine} belongs to another API key`)
    t.equal((await call(app, method, url.replace(mine, 'svc_aaaaaaaaaaaaaaaaaaaaaaaa'), API_KEY, body)).statusCode, 404, 'unknown id')
    t.equal((await call(app, method, url.replace(mine, 'not-an-id'), API_KEY, body)).statusCode, 404, 'an id of any shape no service has')
  }
  t.equal((await app.inject(`/api/services/${mine}`)).json().description, 'Hourly weather forecasts for any city.', 'nothing changed')
})

test('PATCH applies the registration rules, and search follows', async (t) => {
  const app = await build(t, { seed: 'none' })
  const { categorySource: _source, prefilled: _prefilled, ...created } = (await register(app, validBody({ description: 'Forecasts for Reykjavik harbours' }))).json()
  const url = `/api/services/${created.id as string}`
  t.equal(await searchTotal(app, 'reykjavik'), 1)

  const bad: Array<[unknown, string]> = [
    [{ pricing: { pricePerRequest: '0.0000001' } }, 'pricing.pricePerRequest'],
    [{ pricing: { pricePerRequest: 0.01 } }, 'pricing.pricePerRequest'],
    [{ pricing: { currency: 'JPYC' } }, 'pricing.currency'],
    [{ x402Config: { network: 'solana' } }, 'x402Config.paymentAddress'],
    [{ x402Config: { network: 'nowhere' } }, 'x402Config.network'],
    [{ supportedChains: ['solana'] }, 'supportedChains.0'],
    [{ category: 'nope' }, 'category'],
    [{ description: '   ' }, 'description'],
    [{ method: 'TRACE' }, 'method'],
    [{ name: 'Renamed' }, 'name'],
    [{ endpoint: 'https://elsewhere.example.com/' }, 'endpoint'],
    [{ pricing: { currency: 'USDC', extra: 1 } }, 'pricing.extra']
  ]
  for (const [body, field] of bad) {
    const res = await call(app, 'PATCH', url, API_KEY, body)
    t.equal(res.statusCode, 400, JSON.stringify(body))
    t.equal(res.json().field, field, JSON.stringify(body))
  }
  t.equal((await call(app, 'PATCH', url, API_KEY, {})).statusCode, 400, 'an empty change')
  t.same((await app.inject(url)).json(), { ...created, callSchema: null, retired: null, sources: [], ownershipProof: null }, 'refused changes change nothing')

  const res = await call(app, 'PATCH', url, API_KEY, {
    description: 'Tide tables for Valparaiso',
    category: 'travel',
    method: 'POST',
    pricing: { pricePerRequest: '0.0250' },
    supportedChains: ['polygon', 'base']
  })
  t.equal(res.statusCode, 200, res.body)
  const updated = res.json()
  t.equal(updated.description, 'Tide tables for Valparaiso')
  t.equal(updated.category, 'travel')
  t.equal(updated.method, 'POST')
  t.same(updated.pricing, { currency: 'USDC', pricePerRequest: '0.025', freeQuota: 0 }, 'pricing merges field by field')
  t.same(updated.supportedChains, ['eip155:8453', 'eip155:137'])
  t.equal(updated.name, created.name)
  t.equal(updated.createdAt, created.createdAt)
  t.ok(updated.updatedAt >= created.updatedAt)
  t.same((await app.inject(url)).json(), { ...updated, callSchema: null, retired: null, sources: [], ownershipProof: null })
  t.equal(await searchTotal(app, 'valparaiso'), 1, 'search finds the new description')
  t.equal(await searchTotal(app, 'reykjavik'), 0, 'and not the old one')
  t.equal(Number((await app.inject('/api/services?category=travel')).headers['x-total-count']), 1)
  t.equal(Number((await app.inject('/api/services?category=weather')).headers['x-total-count']), 0)

  const solana = await call(app, 'PATCH', url, API_KEY, { x402Config: { network: 'solana', paymentAddress: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM' }, supportedChains: [] })
  t.equal(solana.statusCode, 200, 'payment config moves to another family with its address')
  t.same(solana.json().supportedChains, ['solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'])
})

test('DELETE removes a service from detail, lists, search and export', async (t) => {
  const app = await build(t, { seed: 'none' })
  const keep = (await register(app, validBody({ description: 'Marrakesh souk prices' }))).json().id as string
  const gone = (await register(app, validBody({ description: 'Timbuktu caravan routes' }))).json().id as string
  t.equal(await searchTotal(app, 'timbuktu'), 1)
  const before = await app.store.latestSeq()
  const res = await call(app, 'DELETE', `/api/services/${gone}`, API_KEY)
  t.equal(res.statusCode, 204)
  t.equal(res.body, '')
  t.ok((await app.store.changesSince(before, 10)).some((change) => change.id === gone && change.service === null), 'the newest service\'s tombstone is a new change')
  t.equal((await app.inject(`/api/services/${gone}`)).statusCode, 404)
  t.equal((await app.inject(`/api/services/${gone}`)).json().code, 'NOT_FOUND')
  t.same(((await app.inject('/api/services')).json() as Array<{ id: string }>).map((s) => s.id), [keep])
  t.equal(await searchTotal(app, 'timbuktu'), 0, 'search drops it')
  t.equal(await searchTotal(app, 'marrakesh'), 1)
  t.same((await app.inject('/api/export')).json().items.map((item: { metadata: { id: string } }) => item.metadata.id), [keep])
  t.equal((await call(app, 'DELETE', `/api/services/${gone}`, API_KEY)).statusCode, 404, 'a second delete')
})

test('a change to what the probe checks unverifies and re-probes; other changes keep the status', async (t) => {
  const server = await startX402Server({ payTo: PROVIDER, price: '$0.001' })
  t.teardown(server.close)
  // Scheduled probing on, so enqueue() after a PATCH really probes.
  const app = await build(t, { seed: 'none', probeAllowPrivate: true, probeIntervalS: 3600 })
  await app.ready()
  const created = (await register(app, validBody({ endpoint: server.url, x402Config: { paymentAddress: PROVIDER, network: 'base' }, pricing: { currency: 'USDC', pricePerRequest: '0.002' } }))).json()
  const url = `/api/services/${created.id as string}`
  const statusOf = async (): Promise<string> => (await app.inject(`${url}/status`)).json().status as string
  const waitFor = async (status: string): Promise<boolean> => {
    for (let i = 0; i < 100; i++) {
      if (await statusOf() === status) return true
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return false
  }

  const probe = await call(app, 'POST', `${url}/probe`, API_KEY)
  t.equal(probe.statusCode, 200)
  t.equal(probe.json().matched, false)
  t.match(probe.json().reason, /price 0\.001 USDC differs from registered 0\.002 USDC/)
  t.equal(await statusOf(), 'unverified')

  t.equal((await call(app, 'PATCH', url, API_KEY, { pricing: { pricePerRequest: '0.001' } })).statusCode, 200)
  t.ok(await waitFor('verified'), 'the price change was probed without asking, and matches')
  const verifiedTrust = (await app.inject(`${url}/status`)).json().trustScore as number

  t.equal((await call(app, 'PATCH', url, API_KEY, { description: 'Still the same terms' })).json().status, 'verified', 'a description change keeps the status')
  const exported = (await app.inject('/api/export')).json().items[0]
  t.equal(exported.metadata.acceptsSource, 'probe', 'export carries the probed requirements')

  const moved = await call(app, 'PATCH', url, API_KEY, { x402Config: { paymentAddress: '0x2222222222222222222222222222222222222222' } })
  t.equal(moved.json().status, 'unverified', 'a new payTo is not verified until a probe matches it')
  t.ok((await app.inject(`${url}/status`)).json().trustScore < verifiedTrust)
  t.equal((await app.inject('/api/export')).json().items[0].metadata.acceptsSource, 'registration', 'old probed requirements are forgotten')
  const again = await call(app, 'POST', `${url}/probe`, API_KEY)
  t.match(again.json().reason, /payTo 0x6a86…550b differs from registered 0x2222…2222/)
})

test('applyServicePatch keeps identity and monitoring figures', async (t) => {
  const store = new SqliteCatalogStore(tempDataDir(t))
  t.teardown(async () => { await store.close() })
  const record = { ...buildServiceRecord(validBody() as never, { id: 'svc_aaaaaaaaaaaaaaaaaaaaaaaa', ownerId: 'key_a', now: '2026-01-01T00:00:00.000Z' }), status: 'inactive' as const, uptimeScore: 40, usage: { txCount: 12, revenueAtomic: '3500000', uniquePayers: 3, lastPaymentAt: '2026-01-01T00:00:00.000Z', txCount30d: 12, revenue30dAtomic: '3500000', uniquePayers30d: 3, scope: 'service' as const, computedAt: '2026-01-01T00:00:00.000Z' } }
  const { record: next, reprobe } = applyServicePatch(record, { method: 'PUT' }, '2026-02-01T00:00:00.000Z')
  t.equal(reprobe, true)
  t.equal(next.status, 'inactive', 'an inactive service stays inactive until a probe reaches it')
  t.same([next.id, next.ownerId, next.createdAt, next.updatedAt, next.uptimeScore, next.usage],
    [record.id, 'key_a', record.createdAt, '2026-02-01T00:00:00.000Z', 40, record.usage])
  t.equal(applyServicePatch(record, { description: 'x' }, '2026-02-01T00:00:00.000Z').reprobe, false)
})
