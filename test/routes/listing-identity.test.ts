/** A listing's identity: the resource its 402 answer declares, with the method; takeovers judged with the holder's own method. */
import { test, type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { API_KEY, build, register, validBody } from '../helper.js'
import { startX402Server } from '../support/x402-servers.js'
import { canonicalEndpoint } from '../../src/domain/endpoint-url.js'
import { parsePaymentAnswer } from '../../src/prober/payment-answer.js'

const OTHER_KEY = 'other-key-0123456789abcdef'
const SQUATTER = '0x1111111111111111111111111111111111111111'
const PROVIDER = '0x6a8607afb7ac96d2c8a3e1b44560ff101b34550b'

async function twoKeyApp (t: Test): Promise<FastifyInstance> {
  return await build(t, { seed: 'none', probeAllowPrivate: true, apiKeys: [API_KEY, OTHER_KEY] })
}

test('spellings a server answers as one resource are one listing', async (t) => {
  // Every spelling below reaches the middleware's `/paid*` route, which declares `/paid` as its resource.
  const server = await startX402Server({ payTo: PROVIDER, pattern: '/paid*', resource: '/paid' })
  t.teardown(server.close)
  const app = await twoKeyApp(t)
  const first = await register(app, validBody({ endpoint: server.url, x402Config: { paymentAddress: PROVIDER, network: 'base' } }))
  t.equal(first.statusCode, 201)
  const id = first.json().id as string
  for (const spelling of ['/paid/', '/PAID', '/paid?ref=1', '//paid', '/paid%2F', '/paid;']) {
    const res = await register(app, validBody({ endpoint: server.origin + spelling, x402Config: { paymentAddress: PROVIDER, network: 'base' } }), OTHER_KEY)
    t.equal(res.statusCode, 409, `${spelling} answers as /paid: the same listing`)
    t.equal(res.json().field, 'endpoint', spelling)
    t.match(res.json().message, new RegExp(`is listed by ${id}.*already matches`), spelling)
  }
  t.equal(Number((await app.inject('/api/services')).headers['x-total-count']), 1, 'one listing')
})

test('a spelling that matches takes over a squatter listed under another spelling', async (t) => {
  const server = await startX402Server({ payTo: PROVIDER, pattern: '/paid*', resource: '/paid' })
  t.teardown(server.close)
  const app = await twoKeyApp(t)
  const squat = await register(app, validBody({ endpoint: `${server.origin}/paid/`, x402Config: { paymentAddress: SQUATTER, network: 'base' } }), OTHER_KEY)
  t.equal(squat.statusCode, 201)
  const real = await register(app, validBody({ endpoint: `${server.origin}/paid?ref=1`, x402Config: { paymentAddress: PROVIDER, network: 'base' } }))
  t.equal(real.statusCode, 201, 'the matching registration takes the resource over')
  const gone = await app.inject(`/api/services/${squat.json().id as string}`)
  t.equal(gone.json().code, 'SERVICE_DISPLACED')
  t.equal(Number((await app.inject('/api/services')).headers['x-total-count']), 1)
})

test('distinct resources of one server stay distinct listings', async (t) => {
  // The middleware's default: each request's own URL is the declared resource.
  const server = await startX402Server({ payTo: PROVIDER, pattern: '/paid*' })
  t.teardown(server.close)
  const app = await twoKeyApp(t)
  for (const spelling of ['/paid', '/paid/']) {
    const res = await register(app, validBody({ endpoint: server.origin + spelling, x402Config: { paymentAddress: PROVIDER, network: 'base' } }))
    t.equal(res.statusCode, 201, `${spelling}: its own resource`)
  }
})

test('a declared resource on another origin cannot reach into that origin', async (t) => {
  const victim = await startX402Server({ payTo: PROVIDER })
  t.teardown(victim.close)
  const app = await twoKeyApp(t)
  t.equal((await register(app, validBody({ endpoint: victim.url, x402Config: { paymentAddress: PROVIDER, network: 'base' } }))).statusCode, 201)
  // localhost and 127.0.0.1 are different origins to the catalog: the other one declares the victim's URL.
  const attacker = await startX402Server({ payTo: SQUATTER, resource: '/paid' })
  t.teardown(attacker.close)
  const res = await register(app, validBody({ endpoint: attacker.url.replace('127.0.0.1', 'localhost'), x402Config: { paymentAddress: SQUATTER, network: 'base' } }), OTHER_KEY)
  t.equal(res.statusCode, 201, 'only the path of a declared resource counts, on the endpoint\'s own origin')
  t.equal(Number((await app.inject('/api/services')).headers['x-total-count']), 2)
})

test('IPv4-mapped IPv6 hosts canonicalise as the IPv4 address', async (t) => {
  t.equal(canonicalEndpoint('http://[::ffff:127.0.0.1]:8080/paid'), 'http://127.0.0.1:8080/paid')
  t.equal(canonicalEndpoint('http://[::ffff:7f00:1]/paid'), 'http://127.0.0.1/paid')
  t.equal(canonicalEndpoint('http://[::1]/paid'), 'http://[::1]/paid', 'other IPv6 stays')
  const server = await startX402Server({ payTo: PROVIDER })
  t.teardown(server.close)
  const app = await twoKeyApp(t)
  t.equal((await register(app, validBody({ endpoint: server.url, x402Config: { paymentAddress: PROVIDER, network: 'base' } }))).statusCode, 201)
  const mapped = await register(app, validBody({ endpoint: server.url.replace('127.0.0.1', '[::ffff:127.0.0.1]'), x402Config: { paymentAddress: PROVIDER, network: 'base' } }), OTHER_KEY)
  t.equal(mapped.statusCode, 409)
})

test('the declared resource is read from v2 resource.url and v1 accepts[].resource', async (t) => {
  const accepts = { scheme: 'exact', network: 'base', maxAmountRequired: '1000', resource: 'https://api.example.com/paid', description: '', mimeType: '', payTo: PROVIDER, maxTimeoutSeconds: 60, asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' }
  const v1 = parsePaymentAnswer(undefined, JSON.stringify({ x402Version: 1, accepts: [accepts] }))
  t.match(v1, { ok: true, resource: 'https://api.example.com/paid' })
})

test('a takeover is judged with the holder\'s own method: another method is another listing', async (t) => {
  // GET /paid asks 0.001 of PROVIDER; POST /paid asks 0.002 of SQUATTER.
  const server = await startX402Server({ payTo: PROVIDER, also: [{ method: 'POST', price: '$0.002', payTo: SQUATTER }] })
  t.teardown(server.close)
  const app = await twoKeyApp(t)
  const get = await register(app, validBody({ endpoint: server.url, x402Config: { paymentAddress: PROVIDER, network: 'base' } }))
  const id = get.json().id as string
  t.match(await app.prober.probeService(id), { matched: true })
  t.equal((await app.inject(`/api/services/${id}`)).json().status, 'verified')
  const post = await register(app, validBody({
    endpoint: server.url, method: 'POST', pricing: { currency: 'USDC', pricePerRequest: '0.002' }, x402Config: { paymentAddress: SQUATTER, network: 'base' }
  }), OTHER_KEY)
  t.equal(post.statusCode, 201, 'POST on the same URL is its own listing')
  const held = await app.inject(`/api/services/${id}`)
  t.equal(held.statusCode, 200, 'the verified GET listing is not displaced')
  t.equal(held.json().status, 'verified')
  t.equal(Number((await app.inject('/api/services')).headers['x-total-count']), 2)
  // A second POST registration is judged against the POST listing, not the GET one.
  const again = await register(app, validBody({ endpoint: server.url, method: 'POST', x402Config: { paymentAddress: PROVIDER, network: 'base' } }))
  t.equal(again.statusCode, 409)
  t.match(again.json().message, new RegExp(`is listed by ${post.json().id as string}`))
})
