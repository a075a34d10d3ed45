import { test, type Test } from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import type { RateLimitConfig } from '../../src/config.js'
import { API_KEY, build, register, validBody } from '../helper.js'

const OTHER_KEY = 'other-key-0123456789abcdef'
const LIMITS: RateLimitConfig = { enabled: true, windowMs: 60_000, reads: 4, intentSearches: 2, writes: 2, authFailures: 3, searches: 6 }

async function get (app: FastifyInstance, url: string, ip = '203.0.113.7'): Promise<LightMyRequestResponse> {
  return await app.inject({ url, remoteAddress: ip })
}

function assertLimited (t: Test, res: LightMyRequestResponse, what: string): void {
  t.equal(res.statusCode, 429, `${what}: 429`)
  const retryAfter = Number(res.headers['retry-after'])
  t.ok(retryAfter > 0 && retryAfter <= 60, `${what}: Retry-After ${String(res.headers['retry-after'])} is within the window`)
  const body = res.json()
  t.same(Object.keys(body).sort(), ['code', 'error', 'message', 'statusCode'], `${what}: the usual error shape`)
  t.match(body, { statusCode: 429, code: 'RATE_LIMITED', error: 'Too Many Requests', message: /retry in/ })
}

test('reads are limited per client IP, cached answers and 404s included', async (t) => {
  const app = await build(t, { rateLimit: LIMITS })
  for (let i = 0; i < 4; i++) {
    const res = await get(app, '/api/categories')
    t.equal(res.statusCode, 200, `read ${i + 1} of 4`)
    t.equal(res.headers['x-ratelimit-remaining'], String(3 - i))
  }
  assertLimited(t, await get(app, '/api/categories'), 'the fifth read (a cache hit otherwise)')
  assertLimited(t, await get(app, '/api/services'), 'another read route shares the per-IP budget')
  assertLimited(t, await get(app, '/no/such/route'), 'an unknown route')
  t.equal((await get(app, '/api/categories', '198.51.100.9')).statusCode, 200, 'another IP has its own budget')

  const unknown = await get(app, '/no/such/route', '198.51.100.10')
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.headers['x-ratelimit-remaining'], '3', '404s count')
})

test('intent search has a stricter limit of its own', async (t) => {
  const app = await build(t, { rateLimit: LIMITS })
  await app.searchReady()
  for (let i = 0; i < 2; i++) t.equal((await get(app, `/api/services/search/intent?q=weather${i}`)).statusCode, 200)
  assertLimited(t, await get(app, '/api/services/search/intent?q=weather2'), 'the third intent search')
  t.equal((await get(app, '/api/catalog/search?q=weather')).statusCode, 200, 'keyword search is still allowed')
  t.equal((await get(app, '/api/services/search/intent?q=weather', '198.51.100.9')).statusCode, 200, 'another IP may search')
})

test('writes are limited per API key owner, after authentication', async (t) => {
  const app = await build(t, { seed: 'none', apiKeys: [API_KEY, OTHER_KEY], rateLimit: LIMITS })
  for (let i = 0; i < 2; i++) t.equal((await register(app, validBody())).statusCode, 201, `write ${i + 1} of 2`)
  const limited = await register(app, validBody())
  assertLimited(t, limited, 'the third write of one key')
  t.equal((await register(app, validBody(), OTHER_KEY)).statusCode, 201, 'another key from the same address writes on')
  t.equal((await register(app, validBody(), null)).statusCode, 401, 'no key: 401, not a 429 (authentication runs first)')
  t.equal((await register(app, validBody(), 'wrong-key-0123456789abcdef')).statusCode, 401)
  const list = await app.inject('/api/services')
  t.equal(list.statusCode, 200, 'reads from the same address are not affected by the write limit')
  t.equal(list.headers['x-total-count'], '3', 'the refused write stored nothing')
})

test('routes added later are covered by the read default', async (t) => {
  const app = await build(t, { rateLimit: { ...LIMITS, reads: 1 } })
  app.get('/later', async () => ({ ok: true }))
  t.equal((await get(app, '/later')).statusCode, 200)
  assertLimited(t, await get(app, '/later'), 'a route registered after the limiter')
})

test('CATALOG_RATE_LIMIT=0 turns every limit off', async (t) => {
  const app = await build(t, { seed: 'none', rateLimit: { ...LIMITS, enabled: false, reads: 1, intentSearches: 1, writes: 1 } })
  for (let i = 0; i < 5; i++) {
    t.equal((await get(app, '/api/categories')).statusCode, 200)
    t.equal((await get(app, `/api/services/search/intent?q=rain${i}`)).statusCode, 200)
    t.equal((await register(app, validBody())).statusCode, 201)
  }
  t.equal((await get(app, '/api/categories')).headers['x-ratelimit-limit'], undefined, 'no rate-limit headers either')
})

test('failed authentications are limited per client IP, before any key look-up', async (t) => {
  const app = await build(t, { seed: 'none', rateLimit: LIMITS })
  let lookups = 0
  const lookup = app.store.findActiveApiKeyByHash.bind(app.store)
  app.store.findActiveApiKeyByHash = async (hash) => { lookups++; return await lookup(hash) }
  const attempt = async (key: string | null, ip = '203.0.113.7'): Promise<LightMyRequestResponse> =>
    await app.inject({ method: 'POST', url: '/api/services', remoteAddress: ip, headers: key === null ? {} : { authorization: `Bearer ${key}` }, payload: validBody() })

  t.equal((await attempt(null)).statusCode, 401, 'no key: a failure')
  for (let i = 0; i < 2; i++) t.equal((await attempt(`guess-${i}-0123456789abcdef`)).statusCode, 401, `bad key ${i + 1}`)
  t.equal(lookups, 2, 'each bad key was looked up')
  assertLimited(t, await attempt('guess-3-0123456789abcdef'), 'the fourth failure from one address')
  assertLimited(t, await attempt(API_KEY), 'a good key from that address waits out the window too')
  assertLimited(t, await attempt(API_KEY, '::ffff:203.0.113.7'), 'the same address written as IPv4-mapped IPv6')
  t.equal(lookups, 2, 'refused before the key was hashed or looked up')
  t.equal((await attempt(API_KEY, '198.51.100.9')).statusCode, 201, 'another address authenticates')
  t.equal((await get(app, '/api/services')).statusCode, 200, 'reads from the limited address go on')
})

test('an MCP message that is not a search spends a read per client IP, not a write', async (t) => {
  const app = await build(t, { seed: 'none', rateLimit: LIMITS })
  const mcp = async (): Promise<LightMyRequestResponse> => await app.inject({
    method: 'POST',
    url: '/mcp',
    remoteAddress: '203.0.113.7',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    payload: { jsonrpc: '2.0', id: 1, method: 'ping' }
  })
  for (let i = 0; i < 3; i++) {
    const res = await mcp()
    t.equal(res.statusCode, 200, `MCP request ${i + 1}: past the write budget of 2`)
    t.equal(res.headers['x-ratelimit-limit'], '4', 'the read budget applies')
  }
  t.equal((await get(app, '/api/categories')).statusCode, 200, 'the fourth read')
  assertLimited(t, await mcp(), 'MCP shares the read budget')
  t.equal((await register(app, validBody())).statusCode, 201, 'writes keep their own budget')
})

test('keyword search (the search page as it types) has a budget of its own', async (t) => {
  const app = await build(t, { rateLimit: LIMITS })
  await app.searchReady()
  // Typing "weather" asks about once a word part.
  for (const q of ['w', 'we', 'wea', 'weat', 'weath', 'weather']) {
    const res = await get(app, `/api/catalog/search?q=${q}`)
    t.equal(res.statusCode, 200, `search "${q}" (more than the 4 reads)`)
    t.equal(res.headers['x-ratelimit-limit'], '6', 'the search budget applies')
  }
  assertLimited(t, await get(app, '/api/catalog/search?q=weather+tokyo'), 'the seventh search')
  for (let i = 0; i < 4; i++) t.equal((await get(app, '/api/categories')).statusCode, 200, `read ${i + 1}: searching spent none of the reads`)
  assertLimited(t, await get(app, '/api/categories'), 'reads have their own limit')
})
