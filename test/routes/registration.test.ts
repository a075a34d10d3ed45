import { test } from 'tap'
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js'
import { generateApiKey, hashApiKey } from '../../src/domain/api-keys.js'
import { API_KEY, build, register, tempDataDir, validBody } from '../helper.js'

const SOLANA_ADDRESS = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM'

test('a valid registration is stored unverified with derived fields', async (t) => {
  const app = await build(t, { seed: 'none' })
  const body = validBody({ pricing: { currency: 'USDC', pricePerRequest: '0.0010', freeQuota: 100 } })
  const res = await register(app, body)
  t.equal(res.statusCode, 201)
  const service = res.json()
  t.match(service.id, /^svc_[a-z2-7]{24}$/)
  t.equal(res.headers.location, `/api/services/${service.id as string}`)
  t.same(service.pricing, { currency: 'USDC', pricePerRequest: '0.001', freeQuota: 100 })
  t.same(service.x402Config, { paymentAddress: '0x1111111111111111111111111111111111111111', network: 'eip155:8453' })
  t.same(service.supportedChains, ['eip155:8453'])
  t.equal(service.status, 'unverified')
  t.equal(service.trustScore, 10)
  t.equal(service.createdAt, service.updatedAt)
  t.ok(!Number.isNaN(Date.parse(service.createdAt)))
  const { categorySource, prefilled, ...shown } = service
  t.equal(categorySource, 'given', 'the 201 answer says the category was given')
  t.same(prefilled, [], 'and that nothing was prefilled')
  const fetched = await app.inject(`/api/services/${service.id as string}`)
  t.same(fetched.json(), { ...shown, callSchema: null, retired: null, sources: [], ownershipProof: null }, 'the detail: the service, no call schema before a probe read one, not retired')
  const status = (await app.inject(`/api/services/${service.id as string}/status`)).json()
  t.same(status, {
    id: service.id,
    trustScore: 10,
    status: 'unverified',
    uptimeScore: null,
    lastChecked: null,
    txCount: 0,
    totalRevenue: 0,
    uniquePayers: 0,
    lastPaymentAt: null,
    txCount30d: 0,
    revenue30d: 0,
    uniquePayers30d: 0,
    revenueSource: 'none',
    revenueScope: 'service',
    lastProbe: null,
    retired: null
  }, 'no uptime before a probe measured one, zeros before any payment, no watched network, no probe yet')
})

test('name and description lengths count characters, not bytes', async (t) => {
  const app = await build(t, { seed: 'none' })
  t.equal((await register(app, validBody({ name: '天'.repeat(255) }))).statusCode, 201, '255 kanji is valid')
  const long = await register(app, validBody({ name: '天'.repeat(256) }))
  t.equal(long.statusCode, 400)
  t.equal(long.json().field, 'name')
  t.equal((await register(app, validBody({ name: 'a' }))).statusCode, 201, 'one character is valid')
  t.equal((await register(app, validBody({ name: '' }))).json().field, 'name')
  t.equal((await register(app, validBody({ name: '   ' }))).json().field, 'name', 'blank is not a name')
  t.equal((await register(app, validBody({ name: 'a\nb' }))).json().field, 'name', 'names are one line')
  t.equal((await register(app, validBody({ description: '説'.repeat(2000) }))).statusCode, 201, '2000 characters is valid')
  const tooLong = await register(app, validBody({ description: '説'.repeat(2001) }))
  t.equal(tooLong.statusCode, 400)
  t.equal(tooLong.json().field, 'description')
  t.equal((await register(app, validBody({ description: 'line one\nline two' }))).statusCode, 201, 'descriptions may span lines')
  t.equal((await register(app, validBody({ description: 'nul\u0000byte' }))).json().field, 'description')
})

test('prices are decimal strings with at most the currency decimals', async (t) => {
  const app = await build(t, { seed: 'none' })
  const price = async (value: unknown, currency = 'USDC') =>
    await register(app, validBody({ pricing: { currency, pricePerRequest: value } }))
  t.equal((await price('0.000001')).json().pricing.pricePerRequest, '0.000001', 'six decimals (USDC) is valid')
  t.equal((await price('1000000')).json().pricing.pricePerRequest, '1000000', 'the maximum is valid')
  t.equal((await price('12.5')).json().pricing.pricePerRequest, '12.5')
  for (const bad of ['0.0000001', '0', '0.000000', '-1', '1e-3', 'abc', '.5', '1.', ' 1', '1000000.000001', '99999999999999999999']) {
    const res = await price(bad)
    t.equal(res.statusCode, 400, `price ${bad} is rejected`)
    t.equal(res.json().field, 'pricing.pricePerRequest', `price ${bad} names the field`)
  }
  const numeric = await price(0.001)
  t.equal(numeric.statusCode, 400, 'a JSON number is not a decimal string')
  t.equal(numeric.json().field, 'pricing.pricePerRequest')
  const currency = await price('0.01', 'JPYC')
  t.equal(currency.statusCode, 400)
  t.equal(currency.json().field, 'pricing.currency')
  const quota = await register(app, validBody({ pricing: { currency: 'USDC', pricePerRequest: '0.01', freeQuota: -1 } }))
  t.equal(quota.json().field, 'pricing.freeQuota')
  const fractionalQuota = await register(app, validBody({ pricing: { currency: 'USDC', pricePerRequest: '0.01', freeQuota: 1.5 } }))
  t.equal(fractionalQuota.json().field, 'pricing.freeQuota')
})

test('endpoint must be an absolute http(s) URL and unique', async (t) => {
  const app = await build(t, { seed: 'none' })
  for (const bad of ['not a url', '/relative/path', 'ftp://example.com/x', 'https://user:pw@example.com/x', 'javascript:alert(1)', 'https://example.com/x#frag']) {
    const res = await register(app, validBody({ endpoint: bad }))
    t.equal(res.statusCode, 400, `${bad} is rejected`)
    t.equal(res.json().field, 'endpoint')
  }
  // localhost: the duplicate's ownership probe is refused by the address guard, with no traffic.
  t.equal((await register(app, validBody({ endpoint: 'http://localhost/paid' }))).statusCode, 201, 'http is allowed')
  const dup = await register(app, validBody({ endpoint: 'HTTP://LocalHost:80/paid' }))
  t.equal(dup.statusCode, 409, 'the same endpoint spelled differently is a duplicate')
  t.equal(dup.json().code, 'DUPLICATE_ENDPOINT')
  t.equal(dup.json().field, 'endpoint')
  t.equal(app.store ? await app.store.countServices() : -1, 1, 'the duplicate stored nothing')
})

test('category must exist', async (t) => {
  const app = await build(t, { seed: 'none' })
  const res = await register(app, validBody({ category: 'astrology' }))
  t.equal(res.statusCode, 400)
  t.equal(res.json().field, 'category')
  t.match(res.json().message, /unknown category/)
})

test('registration accepts a method and shows it; GET by default', async (t) => {
  const app = await build(t, { seed: 'none' })
  const post = await register(app, validBody({ method: 'POST' }))
  t.equal(post.statusCode, 201)
  t.equal(post.json().method, 'POST')
  t.equal((await register(app, validBody())).json().method, 'GET')
  const bad = await register(app, validBody({ method: 'TRACE' }))
  t.equal(bad.statusCode, 400)
  t.match(bad.json().message, /method/)
})

test('networks: v1 names and CAIP-2 ids are stored as CAIP-2; addresses are checked per family', async (t) => {
  const app = await build(t, { seed: 'none' })
  const net = async (network: string, paymentAddress: string, extra: Record<string, unknown> = {}) =>
    await register(app, validBody({ x402Config: { paymentAddress, network }, ...extra }))
  const evm = '0xAbCdEf0123456789abcdef0123456789ABCDEF01'
  for (const [input, canonical] of [['base', 'eip155:8453'], ['base-sepolia', 'eip155:84532'], ['polygon', 'eip155:137'], ['polygon-amoy', 'eip155:80002'], ['avalanche', 'eip155:43114'], ['avalanche-fuji', 'eip155:43113'], ['sei', 'eip155:1329'], ['iotex', 'eip155:4689'], ['eip155:8453', 'eip155:8453'], ['BASE', 'eip155:8453']]) {
    const res = await net(input as string, evm)
    t.equal(res.statusCode, 201, `${input as string} is accepted`)
    t.equal(res.json().x402Config.network, canonical)
  }
  for (const [input, canonical] of [['solana', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'], ['solana-devnet', 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'], ['solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp']]) {
    const res = await net(input as string, SOLANA_ADDRESS)
    t.equal(res.statusCode, 201, `${input as string} is accepted`)
    t.equal(res.json().x402Config.network, canonical)
  }
  for (const [network, address] of [['base', SOLANA_ADDRESS], ['base', '0x123'], ['base', '0x' + 'g'.repeat(40)], ['solana', evm], ['solana', '0OIl' + SOLANA_ADDRESS.slice(4)], ['solana', '1111111111111111111111111111111']]) {
    const res = await net(network as string, address as string)
    t.equal(res.statusCode, 400, `${address as string} is not an address on ${network as string}`)
    t.equal(res.json().field, 'x402Config.paymentAddress')
  }
  const unknown = await net('dogechain', evm)
  t.equal(unknown.statusCode, 400)
  t.equal(unknown.json().field, 'x402Config.network')
  const extra = await net('base', evm, { supportedChains: ['polygon', 'eip155:8453', 'eip155:43114'] })
  t.same(extra.json().supportedChains, ['eip155:8453', 'eip155:137', 'eip155:43114'], 'extra chains are canonical, deduplicated, primary first')
  const mixed = await net('base', evm, { supportedChains: ['solana'] })
  t.equal(mixed.statusCode, 400, 'one EVM address cannot receive on Solana')
  t.equal(mixed.json().field, 'supportedChains.0')
  const badExtra = await net('base', evm, { supportedChains: ['polygon', 'nope'] })
  t.equal(badExtra.json().field, 'supportedChains.1')
})

test('bodies that are not a registration object are 400 and store nothing', async (t) => {
  const app = await build(t, { seed: 'none' })
  const auth = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' }
  // Broken JSON, an empty body and __proto__ keys are the body parser's (test/plugins/http.test.ts).
  const cases: Array<[string, string]> = [
    ['an array', '[]'],
    ['a string', '"service"'],
    ['null', 'null']
  ]
  for (const [label, payload] of cases) {
    const res = await app.inject({ method: 'POST', url: '/api/services', headers: auth, payload })
    t.equal(res.statusCode, 400, `${label} is a 400`)
    t.equal(res.json().statusCode, 400, `${label} answers the JSON error shape`)
  }
  const noBody = await app.inject({ method: 'POST', url: '/api/services', headers: { authorization: `Bearer ${API_KEY}` } })
  t.equal(noBody.statusCode, 400, 'no body at all is a 400')
  const unknownField = await register(app, validBody({ owner: 'me' }))
  t.equal(unknownField.statusCode, 400)
  t.equal(unknownField.json().field, 'owner')
  t.match(unknownField.json().message, /unknown field/)
  const nested = await register(app, validBody({ pricing: { currency: 'USDC', pricePerRequest: '1', discount: '5' } }))
  t.equal(nested.json().field, 'pricing.discount')
  const missing = validBody()
  delete missing.x402Config
  // A body without payment terms registers from the endpoint: this one answers nothing.
  const fromEndpoint = await register(app, missing)
  t.equal(fromEndpoint.statusCode, 422)
  t.equal(fromEndpoint.json().field, 'endpoint')
  t.equal(await app.store.countServices(), 0)
})

test('a registration hears of every problem at once, in plain words', async (t) => {
  const app = await build(t, { seed: 'none' })
  const { name: _name, description: _description, endpoint: _endpoint, ...rest } = validBody()
  const missing = await register(app, rest)
  t.equal(missing.statusCode, 400)
  t.same(missing.json(), { statusCode: 400, code: 'VALIDATION_ERROR', error: 'Bad Request', message: 'endpoint: is required', field: 'endpoint' }, 'name and description may be left to the endpoint\'s 402 answer')
  const several = await register(app, validBody({ name: '', pricing: { currency: 'USDC', pricePerRequest: 0.01 } }))
  t.equal(several.json().message, 'name: must not be empty; pricing.pricePerRequest: must be text (a JSON string)')
})

test('query mistakes are told in plain words, never as a regular expression', async (t) => {
  const app = await build(t, { seed: 'none' })
  const message = async (url: string): Promise<string> => (await app.inject(url)).json().message as string
  t.equal(await message('/api/services/search/intent?q='), 'q: must not be empty')
  t.equal(await message('/api/catalog/search?q=tea&maxPricePerRequest=cheap'), 'maxPricePerRequest: must be a decimal number such as 0.01')
  t.equal(await message('/api/services?maxPricePerRequest=1e-3'), 'maxPricePerRequest: must be a decimal number such as 0.01')
  t.equal(await message('/api/services?limit=0'), 'limit: must be at least 1')
  t.equal(await message('/api/services?limit=ten'), 'limit: must be a whole number')
  t.equal(await message('/api/services?limit=0&offset=-1'), 'limit: must be at least 1; offset: must be at least 0')
})

test('registration needs a valid Bearer key', async (t) => {
  const app = await build(t, { seed: 'none' })
  const cases: Array<[string, Record<string, string>]> = [
    ['no header', {}],
    ['a wrong key', { authorization: 'Bearer wrong-key-0123456789abcdef' }],
    ['a Basic scheme', { authorization: `Basic ${Buffer.from(`user:${API_KEY}`).toString('base64')}` }],
    ['the key without a scheme', { authorization: API_KEY }],
    ['an empty bearer', { authorization: 'Bearer ' }]
  ]
  for (const [label, headers] of cases) {
    const res = await app.inject({ method: 'POST', url: '/api/services', headers, payload: validBody() })
    t.equal(res.statusCode, 401, `${label} is a 401`)
    t.match(res.headers['www-authenticate'], /^Bearer/, `${label} says how to authenticate`)
    t.equal(res.json().code, 'UNAUTHORIZED')
  }
  const invalidAndUnauthenticated = await app.inject({ method: 'POST', url: '/api/services', payload: { name: 1 } })
  t.equal(invalidAndUnauthenticated.statusCode, 401, 'strangers get 401 before any validation detail')
  t.equal(await app.store.countServices(), 0)
  const scheme = await app.inject({ method: 'POST', url: '/api/services', headers: { authorization: `bearer ${API_KEY}` }, payload: validBody() })
  t.equal(scheme.statusCode, 201, 'the scheme name is case-insensitive')
})

test('operator keys from the store work until revoked and are recorded as owner', async (t) => {
  const dataDir = tempDataDir(t)
  const app = await build(t, { dataDir, seed: 'none' })
  const { key, id } = generateApiKey()
  await app.store.insertApiKey({ id, name: 'acme', hash: hashApiKey(key), createdAt: new Date().toISOString(), revokedAt: null })
  const res = await register(app, validBody(), key)
  t.equal(res.statusCode, 201)
  const record = await app.store.getService(res.json().id)
  t.equal(record?.ownerId, id, 'the owner id, not the key, is recorded')
  const bootstrap = await register(app, validBody())
  t.match((await app.store.getService(bootstrap.json().id))?.ownerId, /^env_[0-9a-f]{12}$/)
  t.not((await app.store.getService(bootstrap.json().id))?.ownerId, API_KEY)
  t.ok(await app.store.revokeApiKey(id, new Date().toISOString()))
  t.equal((await register(app, validBody(), key)).statusCode, 401, 'a revoked key is refused')
  const keys = await new SqliteCatalogStore(dataDir).listApiKeys()
  t.equal(keys[0]?.hash, hashApiKey(key))
  t.notOk(JSON.stringify(keys).includes(key), 'the key itself is not stored')
})
