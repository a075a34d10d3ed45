import { test } from 'tap'
import { DEFAULT_ASSETS as EVM_ASSETS } from '@x402/evm'
import { DEFAULT_ASSETS as SVM_ASSETS } from '@x402/svm'
import { PaymentRequirementsV2Schema, ResourceInfoSchema } from '@x402/core/schemas'
import { acceptsFromRegistration, bazaarServiceName, bazaarTags, toBazaarItem, toCatalogFilter } from '../../src/domain/bazaar.js'
import { buildServiceRecord } from '../../src/domain/registration.js'
import { newServiceId } from '../../src/domain/ids.js'
import { resolveNetwork } from '../../src/domain/networks.js'
import type { ServiceRecord } from '../../src/domain/service.js'
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js'
import { API_KEY, build, probeDemo, register, tempDataDir, validBody } from '../helper.js'

const SOLANA_ADDRESS = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM'
const NOW = '2026-01-02T03:04:05.000Z'

function record (overrides: Record<string, unknown> = {}, id = newServiceId()): ServiceRecord {
  return buildServiceRecord(validBody(overrides) as never, { id, ownerId: 'key_test', now: NOW })
}

interface ExportBody {
  x402Version: number
  items: Array<Record<string, any>>
  pagination: { limit: number, offset: number, total: number }
}

test('registration-built accepts: exact USDC per supported chain, atomic amounts, EIP-712 extra on EVM', async (t) => {
  const evm = record({ pricing: { currency: 'USDC', pricePerRequest: '0.0125' }, supportedChains: ['polygon', 'eip155:8453'] })
  const accepts = acceptsFromRegistration(evm)
  t.same(accepts.map((a) => a.network), ['eip155:8453', 'eip155:137'], 'one entry per chain, duplicates dropped')
  for (const accept of accepts) {
    t.ok(PaymentRequirementsV2Schema.safeParse(accept).success, `${accept.network} parses as v2 PaymentRequirements`)
    const usdc = (EVM_ASSETS as unknown as Record<string, Array<{ asset: string, name: string, version: string, symbol: string }>>)[accept.network]?.find((a) => a.symbol === 'USDC')
    t.equal(accept.asset, usdc?.asset, 'the network\'s USDC from @x402/evm')
    t.same(accept.extra, { name: usdc?.name, version: usdc?.version }, 'EIP-712 domain as @x402/evm declares it')
    t.equal(accept.amount, '12500')
    t.equal(accept.maxAmountRequired, '12500')
    t.equal(accept.scheme, 'exact')
    t.equal(accept.payTo, '0x1111111111111111111111111111111111111111')
    t.ok(accept.maxTimeoutSeconds > 0)
  }
  const sol = acceptsFromRegistration(record({ x402Config: { paymentAddress: SOLANA_ADDRESS, network: 'solana' } }))
  t.equal(sol.length, 1)
  const solUsdc = (SVM_ASSETS as unknown as Record<string, Array<{ asset: string, symbol: string }>>)['solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp']?.find((a) => a.symbol === 'USDC')
  t.equal(sol[0]?.asset, solUsdc?.asset)
  t.equal(sol[0]?.extra, undefined, 'no EVM domain on Solana')
  t.same(acceptsFromRegistration(record({ x402Config: { paymentAddress: '0x1111111111111111111111111111111111111111', network: 'abstract-testnet' } })), [],
    'a chain without a known USDC has no entry (no asset to name)')
})

test('a Bazaar item: the probe\'s accepts win, names follow the Bazaar rules, metadata carries the rest', async (t) => {
  const plain = record({ name: 'Weather API', category: 'weather' })
  const item = toBazaarItem(plain)
  t.equal(item.resource, plain.endpoint)
  t.equal(item.type, 'http')
  t.equal(item.x402Version, 2)
  t.equal(item.serviceName, 'Weather API')
  t.same(item.tags, ['weather'])
  t.equal(item.lastUpdated, NOW)
  t.equal(item.metadata.acceptsSource, 'registration')
  t.same(item.metadata.pricing, { currency: 'USDC', pricePerRequest: '0.001', freeQuota: 0 })
  t.ok(ResourceInfoSchema.safeParse({ url: item.resource, ...item }).success, 'resource fields pass @x402/core ResourceInfoSchema')

  const japanese = toBazaarItem(record({ name: '天気予報 API' }))
  t.equal(japanese.serviceName, undefined, 'non-ASCII names are not Bazaar serviceNames')
  t.equal(japanese.metadata.name, '天気予報 API')
  t.equal(bazaarServiceName('x'.repeat(33)), undefined)
  t.equal(bazaarServiceName('x'.repeat(32)), 'x'.repeat(32))

  const live = { scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: '0x1111111111111111111111111111111111111111', maxTimeoutSeconds: 60, extra: { name: 'USD Coin', version: '2' } }
  const probed = toBazaarItem({ ...plain, paymentRequirements: [live], lastChecked: '2026-02-01T00:00:00.000Z' })
  t.same(probed.accepts, [{ ...live, maxAmountRequired: '1000' }], 'the real requirements, as the endpoint answered them')
  t.equal(probed.metadata.acceptsSource, 'probe')
  t.equal(probed.lastUpdated, plain.updatedAt, 'a probe alone does not move lastUpdated: the export changes only with the change feed')
  t.notOk('uptimeScore' in probed.metadata || 'lastChecked' in probed.metadata, 'per-probe figures live at /api/services/:id/status, not in the export')
})

test('Bazaar tags: the category first, then the service\'s own tags, as the Bazaar\'s sanitizer keeps them', async (t) => {
  const tagged = toBazaarItem(record({ category: 'weather', tags: ['forecast', 'Weather', '天気', 'rain', 'radar', 'hourly'] }))
  t.same(tagged.tags, ['weather', 'forecast', 'rain', 'radar', 'hourly'],
    'the category, then own tags in order: a repeat of the category (ignoring case) and a non-ASCII tag dropped, at most 5')
  t.ok(ResourceInfoSchema.safeParse({ url: tagged.resource, ...tagged }).success, 'passes @x402/core ResourceInfoSchema')
  t.same(bazaarTags({ category: 'finance', tags: ['a', 'b', 'c', 'd', 'e'] }), ['finance', 'a', 'b', 'c', 'd'], 'a fifth own tag gives way to the category')
  t.same(bazaarTags({ category: 'other', tags: [] }), ['other'], 'an untagged service: its category alone, as before')
})

test('export filters are validated like the list endpoint\'s', async (t) => {
  t.same(toCatalogFilter({ network: 'base', category: 'weather', status: 'verified' }), { category: 'weather', chain: 'eip155:8453', status: 'verified', testnet: false }, 'test-network listings left out by default')
  t.same(toCatalogFilter({ testnet: 'include' }), {}, 'include: both kinds')
  t.same(toCatalogFilter({ testnet: 'only' }), { testnet: true })
  t.same(toCatalogFilter({ network: 'base-sepolia' }), { chain: 'eip155:84532' }, 'a test network named: its listings are asked for')
  t.same(toCatalogFilter({ network: 'base-sepolia', testnet: 'only' }), { chain: 'eip155:84532', testnet: true })
  t.throws(() => toCatalogFilter({ network: 'basee' }), { name: 'ValidationError', field: 'network' })
  t.throws(() => toCatalogFilter({ category: 'nope' }), { name: 'ValidationError', field: 'category' })
  t.equal(toCatalogFilter({ type: 'mcp' }), null, 'the catalog lists http resources only')
  t.equal(toCatalogFilter({ scheme: 'upto' }), null)
  t.same(toCatalogFilter({ type: 'http', scheme: 'exact' }), { testnet: false })
  t.same(toCatalogFilter({ extensions: 'bazaar', status: 'verified' }), { status: 'verified', extension: 'bazaar', testnet: false }, 'the Bazaar discovery extension: only the services declaring it')
  t.equal(toCatalogFilter({ extensions: 'Bazaar' }), null, 'keys compare exactly')
  t.equal(toCatalogFilter({ extensions: 'x402-catalog' }), null, 'an extension the catalog keeps no declaration of: nothing')
  t.equal(toCatalogFilter({ extensions: 'bazaar', type: 'mcp' }), null)
})

test('GET /api/export: the whole catalog, every item checked with @x402/core schemas', async (t) => {
  const app = await build(t)
  const res = await app.inject('/api/export')
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^application\/json/)
  const body = res.json<ExportBody>()
  t.equal(body.x402Version, 2)
  t.equal(body.items.length, 53, 'every demo service but the three on test networks alone')
  t.same(body.pagination, { limit: 53, offset: 0, total: 53 })
  const ids = body.items.map((item) => item.metadata.id as string)
  t.same(ids, [...ids].sort(), 'in id order')
  t.equal(new Set(ids).size, 53)
  const testnets = new Set(['eip155:84532', 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'])
  t.notOk(body.items.some((item) => (item.metadata.supportedChains as string[]).every((chain) => testnets.has(chain))), 'none accepts test networks alone')
  const everything = (await app.inject('/api/export?testnet=include')).json<ExportBody>()
  t.equal(everything.items.length, 56, 'testnet=include: every demo service')
  const only = (await app.inject('/api/export?testnet=only')).json<ExportBody>().items
  t.equal(only.length, 3, 'testnet=only: the three')
  t.ok(only.every((item) => (item.metadata.supportedChains as string[]).every((chain) => testnets.has(chain))), 'each on test networks alone')
  for (const item of body.items) {
    t.equal(item.type, 'http')
    const payable = (item.metadata.supportedChains as string[]).filter((chain) => resolveNetwork(chain)?.usdc != null)
    t.equal(item.accepts.length, payable.length, `${item.resource as string}: one entry per chain whose USDC is known`)
    for (const accept of item.accepts) {
      const parsed = PaymentRequirementsV2Schema.safeParse(accept)
      t.ok(parsed.success, `${item.resource as string} accepts parse: ${parsed.success ? '' : parsed.error.message}`)
      t.equal(accept.maxAmountRequired, accept.amount)
    }
    t.ok(ResourceInfoSchema.safeParse({ url: item.resource, description: item.description, mimeType: item.mimeType, serviceName: item.serviceName, tags: item.tags }).success)
    t.ok(!Number.isNaN(Date.parse(item.lastUpdated)))
  }
  const detail = (await app.inject(`/api/services/${ids[0] as string}`)).json()
  const first = body.items[0] as Record<string, any>
  t.equal(first.resource, detail.endpoint)
  t.equal(first.accepts[0].payTo, detail.x402Config.paymentAddress)
})

test('export filters, ETag and If-None-Match', async (t) => {
  const app = await build(t)
  await probeDemo(app)
  const count = async (query: string): Promise<number> => (await app.inject(`/api/export${query}`)).json<ExportBody>().items.length
  const list = async (query: string): Promise<number> => Number((await app.inject(`/api/services${query}`)).headers['x-total-count'])
  t.ok(await count('?status=verified') > 0, 'the probes verified some')
  t.equal(await count('?status=verified'), await list('?status=verified'))
  t.equal(await count('?category=weather'), await list('?category=weather'))
  t.equal(await count('?network=base'), await list('?chain=base'))
  t.ok(await count('?network=base') > 0)
  const both = await app.inject('/api/export?network=solana&status=verified')
  t.ok(both.json<ExportBody>().items.length > 0)
  for (const item of both.json<ExportBody>().items) {
    t.equal(item.metadata.status, 'verified')
    t.ok((item.metadata.supportedChains as string[]).includes('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'))
  }
  for (const [query, field] of <Array<[string, string]>>[['?category=nope', 'category'], ['?network=nowhere', 'network'], ['?status=gone', 'status'], ['?sortBy=name', 'sortBy'], ['?testnet=yes', 'testnet']]) {
    const bad = await app.inject(`/api/export${query}`)
    t.equal(bad.statusCode, 400, query)
    t.equal(bad.json().field, field)
  }

  const first = await app.inject('/api/export')
  const etag = first.headers.etag as string
  t.match(etag, /^"[\w-]+"$/)
  t.equal((await app.inject('/api/export')).headers.etag, etag, 'same catalog, same ETag')
  t.equal((await app.inject('/api/export?network=base')).headers.etag, (await app.inject('/api/export?network=eip155:8453')).headers.etag, 'filters compare canonically')
  t.not((await app.inject('/api/export?network=base')).headers.etag, etag, 'another filter, another ETag')
  const unchanged = await app.inject({ url: '/api/export', headers: { 'if-none-match': etag } })
  t.equal(unchanged.statusCode, 304)
  t.equal(unchanged.body, '')
  t.equal((await app.inject({ url: '/api/export', headers: { 'if-none-match': `"other", W/${etag}` } })).statusCode, 304, 'weak and listed forms match')
  // A probe that changes nothing the export shows (same status and trust) is no change-feed
  // event: the body must then be byte for byte what the ETag promised.
  // An unverified service answering a 402 that does not match stays unverified, and uptime
  // earns trust only when verified: only its uptime and lastChecked move.
  const someone = first.json<ExportBody>().items.find((item) => item.metadata.status === 'unverified') as { metadata: { id: string } }
  const before = await app.store.getService(someone.metadata.id)
  const probed = await app.store.recordProbe(someone.metadata.id, { checkedAt: new Date().toISOString(), httpStatus: 402, x402Version: 2, latencyMs: 5, answered402: true, matched: false, reason: 'probe for the test', accepts: null },
    { failurePeriodMs: 0 }, null)
  t.not(probed?.lastChecked, before?.lastChecked, 'the probe was recorded')
  const afterProbe = await app.inject('/api/export')
  t.equal(afterProbe.headers.etag, etag, 'a probe with no visible change keeps the ETag')
  t.equal(afterProbe.body, first.body, 'and the body is the one the ETag stands for')
  t.equal((await register(app, validBody())).statusCode, 201)
  const changed = await app.inject({ url: '/api/export', headers: { 'if-none-match': etag } })
  t.equal(changed.statusCode, 200, 'a write changes the ETag')
  t.equal(changed.json<ExportBody>().items.length, 54)
})

test('the store streams every match in id order across batch boundaries', async (t) => {
  const store = new SqliteCatalogStore(tempDataDir(t))
  t.teardown(async () => { await store.close() })
  const records = Array.from({ length: 1000 }, (_, i) => record({ category: i % 2 === 0 ? 'weather' : 'finance' }))
  await store.insertServices(records)
  const ids: string[] = []
  for await (const service of store.streamServices({}, 100)) ids.push(service.id)
  t.equal(ids.length, 1000, 'an exact multiple of the batch size ends cleanly')
  t.same(ids, records.map((r) => r.id).sort())
  let weather = 0
  for await (const service of store.streamServices({ category: 'weather' }, 7)) {
    t.equal(service.category, 'weather')
    weather++
  }
  t.equal(weather, 500)
  let none = 0
  for await (const service of store.streamServices({ category: 'image' })) if (service.category === 'image') none++
  t.equal(none, 0)
})

test('concurrent exports over real HTTP share one build of a file sent with its length, in the encoding asked for', async (t) => {
  const dataDir = tempDataDir(t)
  const store = new SqliteCatalogStore(dataDir)
  const records = Array.from({ length: 3000 }, () => record({ description: 'Hourly weather forecasts for any city, with '.repeat(4) }))
  await store.insertServices(records)
  await store.close()
  const app = await build(t, { dataDir, seed: 'none', indexer: 'external', apiKeys: [API_KEY] })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/export`
  const encodings = ['identity', 'gzip', 'br', 'gzip, deflate, br;q=0', '*']
  // undici's fetch decompresses gzip and br itself: what arrives is the same JSON either way.
  const answers = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
    const res = await fetch(url, { headers: { 'accept-encoding': encodings[i % encodings.length] as string } })
    return { status: res.status, encoding: res.headers.get('content-encoding'), length: res.headers.get('content-length'), body: await res.text() }
  }))
  t.same(answers.map((a) => a.status), Array(20).fill(200))
  t.same([...new Set(answers.map((a) => a.encoding))].sort(), ['br', 'gzip', null].sort(), 'br when allowed, gzip when br is refused, none when not asked')
  t.ok(answers.every((a) => Number(a.length) > 0), 'every answer has its Content-Length')
  t.equal(new Set(answers.map((a) => a.body)).size, 1, 'every client got the same export')
  t.equal(app.snapshots.builds, 1, 'twenty concurrent exports walked the store once')
  const body = JSON.parse(answers[0]?.body as string) as ExportBody
  t.equal(body.items.length, 3000)
  t.same(body.pagination, { limit: 3000, offset: 0, total: 3000 })
  t.same(body.items.map((item) => item.metadata.id), records.map((r) => r.id).sort())

  const created = await register(app, validBody({ endpoint: 'https://api.example.com/v1/new-after-export' }))
  t.equal(created.statusCode, 201)
  const after = await (await fetch(url)).json() as ExportBody
  t.equal(after.items.length, 3001, 'the next export after a write has it: never a stale snapshot')
  t.equal(app.snapshots.builds, 2)
  t.equal((await fetch(url, { method: 'HEAD' })).status, 200)
})
