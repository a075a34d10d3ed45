/**
 * Registration from the endpoint alone, against real @x402/express v2 servers: the listing is
 * filled from the 402 answer, verified at once with that answer as its first probe; explicit
 * values win; no valid 402 is a 422 that stores nothing; probes keep prefilled text current.
 */
import { test } from 'tap'
import { API_KEY, build, register } from '../helper.js'
import { startHttpServer, startX402Server } from '../support/x402-servers.js'

const PAY_TO = '0x2222222222222222222222222222222222222222'

test('an endpoint alone registers verified, filled from its 402 answer', async (t) => {
  const server = await startX402Server({ payTo: PAY_TO, price: '$0.0025', path: '/forecast', description: 'Hourly weather forecasts for any city.', serviceName: 'SkyCast', tags: ['weather', 'forecast'] })
  t.teardown(server.close)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  const res = await register(app, { endpoint: server.url })
  t.equal(res.statusCode, 201, res.body)
  const service = res.json()
  t.match(service, {
    name: 'SkyCast',
    description: 'Hourly weather forecasts for any city.',
    endpoint: server.url,
    method: 'GET',
    category: 'weather',
    categorySource: 'inferred',
    pricing: { currency: 'USDC', pricePerRequest: '0.0025', freeQuota: 0 },
    x402Config: { paymentAddress: PAY_TO, network: 'eip155:8453' },
    supportedChains: ['eip155:8453'],
    tags: ['weather', 'forecast'],
    status: 'verified'
  })
  t.same([...service.prefilled].sort(), ['category', 'description', 'name', 'network', 'paymentAddress', 'price', 'tags'])
  const status = (await app.inject(`/api/services/${service.id as string}/status`)).json()
  t.equal(status.status, 'verified')
  t.match(status.lastProbe, { httpStatus: 402, matched: true, reason: 'matches the registration' }, 'the answer it was filled from is its first probe')
  const { categorySource: _c, prefilled: _p, ...shown } = service
  t.same((await app.inject(`/api/services/${service.id as string}`)).json(), { ...shown, callSchema: null, retired: null, sources: [], ownershipProof: null }, 'the detail is what was answered (this route declares no call schema)')
})

test('without serviceName the name comes from the description, and explicit values win', async (t) => {
  const server = await startX402Server({ payTo: PAY_TO, method: 'POST', path: '/translate', description: 'Translate text between 100 languages. Fast and cheap.' })
  t.teardown(server.close)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  const derived = (await register(app, { endpoint: server.url, method: 'POST' })).json()
  t.equal(derived.name, 'Translate text between 100 languages', 'the first sentence')
  t.equal(derived.category, 'translation')
  t.equal(derived.status, 'verified')
  await app.inject({ method: 'DELETE', url: `/api/services/${derived.id as string}`, headers: { authorization: `Bearer ${API_KEY}` } })

  const res = await register(app, { endpoint: server.url, method: 'POST', name: 'My translator', description: 'Mine, not theirs', category: 'ai-llm', tags: ['nlp'], network: 'base' })
  t.equal(res.statusCode, 201, res.body)
  t.match(res.json(), { name: 'My translator', description: 'Mine, not theirs', category: 'ai-llm', categorySource: 'given', tags: ['nlp'], status: 'verified', x402Config: { network: 'eip155:8453', paymentAddress: PAY_TO } })
  t.same([...res.json().prefilled].sort(), ['paymentAddress', 'price'])
  await app.inject({ method: 'DELETE', url: `/api/services/${res.json().id as string}`, headers: { authorization: `Bearer ${API_KEY}` } })

  const price = await register(app, { endpoint: server.url, method: 'POST', pricing: { currency: 'USDC', pricePerRequest: '0.5' } })
  t.equal(price.statusCode, 201)
  t.equal(price.json().pricing.pricePerRequest, '0.5', 'an explicit price wins')
  t.equal(price.json().status, 'unverified', 'and the answer, which asks for 0.001, does not match it')

  const elsewhere = await register(app, { endpoint: server.url, method: 'POST', network: 'solana' })
  t.equal(elsewhere.statusCode, 400)
  t.equal(elsewhere.json().field, 'network')
  t.match(elsewhere.json().message, /offers no payment on solana:/)
  const configured = await register(app, { endpoint: server.url, method: 'POST', x402Config: { paymentAddress: PAY_TO, network: 'solana' } })
  t.equal(configured.statusCode, 400)
  t.equal(configured.json().field, 'x402Config.network', 'the error names the field the network was sent in')
})

test('an endpoint without a valid x402 402 answer is a 422 naming why, and nothing is stored', async (t) => {
  const plain = await startHttpServer((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end('{"free":true}') })
  t.teardown(plain.close)
  const garbage = await startHttpServer((_req, res) => { res.writeHead(402, { 'content-type': 'text/plain' }).end('pay me') })
  t.teardown(garbage.close)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  const ok = await register(app, { endpoint: `${plain.origin}/free` })
  t.equal(ok.statusCode, 422)
  t.match(ok.json(), { code: 'ENDPOINT_NOT_PAYABLE', field: 'endpoint', message: /answered 200, not 402/ })
  t.match((await register(app, { endpoint: `${garbage.origin}/x` })).json().message, /answered 402 without payment requirements/)
  t.equal(await app.store.countServices(), 0)

  const guarded = await build(t, { seed: 'none' })
  const blocked = await register(guarded, { endpoint: `${plain.origin}/free` })
  t.equal(blocked.statusCode, 422)
  t.match(blocked.json().message, /blocked: loopback address/)
  t.equal(await guarded.store.countServices(), 0)
})

test('a later probe refreshes prefilled text and leaves explicit text alone', async (t) => {
  const first = await startX402Server({ payTo: PAY_TO, path: '/news', description: 'Headlines every hour.', serviceName: 'Wire', tags: ['news'] })
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  const prefilled = (await register(app, { endpoint: first.url })).json()
  const explicit = (await register(app, { endpoint: `${first.url}?kind=mine`, name: 'Kept name', tags: ['kept'] })).json()
  t.equal(explicit.description, 'Headlines every hour.')
  await first.close()
  const second = await startX402Server({ payTo: PAY_TO, path: '/news', port: first.port, description: 'Headlines every minute.', serviceName: 'Wire Pro', tags: ['news', 'live'] })
  t.teardown(second.close)
  for (const service of [prefilled, explicit]) {
    const probe = await app.inject({ method: 'POST', url: `/api/services/${service.id as string}/probe`, headers: { authorization: `Bearer ${API_KEY}` } })
    t.equal(probe.json().matched, true)
  }
  t.match((await app.inject(`/api/services/${prefilled.id as string}`)).json(), { name: 'Wire Pro', description: 'Headlines every minute.', tags: ['news', 'live'] })
  t.match((await app.inject(`/api/services/${explicit.id as string}`)).json(), { name: 'Kept name', description: 'Headlines every minute.', tags: ['kept'] })
  await app.searchReady()
  const found = await app.inject('/api/services?query=minute')
  t.equal(found.headers['x-total-count'], '2', 'search follows the refreshed description')

  const patched = await app.inject({ method: 'PATCH', url: `/api/services/${prefilled.id as string}`, headers: { authorization: `Bearer ${API_KEY}` }, payload: { description: 'My own words' } })
  t.equal(patched.statusCode, 200)
  await app.inject({ method: 'POST', url: `/api/services/${prefilled.id as string}/probe`, headers: { authorization: `Bearer ${API_KEY}` } })
  t.equal((await app.inject(`/api/services/${prefilled.id as string}`)).json().description, 'My own words', 'a patched field is the owner\'s from then on')
})

test('an inferred category follows the text a probe refreshes or a PATCH changes; a given or patched category stays', async (t) => {
  // A name that says nothing, so the description decides the category.
  const first = await startX402Server({ payTo: PAY_TO, path: '/feed', serviceName: 'Feed', description: 'Hourly weather forecasts for any city.' })
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  const auth = { authorization: `Bearer ${API_KEY}` }
  const inferred = (await register(app, { endpoint: first.url })).json()
  const given = (await register(app, { endpoint: `${first.url}?kind=given`, category: 'weather' })).json()
  t.match([inferred, given], [{ category: 'weather', categorySource: 'inferred' }, { category: 'weather', categorySource: 'given' }])
  await first.close()
  const second = await startX402Server({ payTo: PAY_TO, path: '/feed', port: first.port, serviceName: 'Feed', description: 'Translate text between 100 languages.' })
  t.teardown(second.close)
  for (const service of [inferred, given]) {
    t.equal((await app.inject({ method: 'POST', url: `/api/services/${service.id as string}/probe`, headers: auth })).json().matched, true)
  }
  t.match((await app.inject(`/api/services/${inferred.id as string}`)).json(), { description: 'Translate text between 100 languages.', category: 'translation' },
    'the probe refreshed the description, and the inferred category follows it')
  t.match((await app.inject(`/api/services/${given.id as string}`)).json(), { description: 'Translate text between 100 languages.', category: 'weather' }, 'a given category stays')
  t.same((await app.inject('/api/services?category=translation')).json().map((s: { id: string }) => s.id), [inferred.id], 'the list filter follows')

  const patch = async (payload: Record<string, unknown>): Promise<Record<string, any>> => {
    const res = await app.inject({ method: 'PATCH', url: `/api/services/${inferred.id as string}`, headers: auth, payload })
    t.equal(res.statusCode, 200, res.body)
    return res.json()
  }
  t.match(await patch({ description: 'Send an SMS to any phone number.' }), { category: 'communication' }, 'a PATCHed description: inferred again')
  t.match(await patch({ tags: ['weather', 'forecast', 'rain'] }), { category: 'weather' }, 'PATCHed tags are part of the text too')
  t.match(await patch({ category: 'finance' }), { category: 'finance' })
  t.match(await patch({ description: 'Translate text between 100 languages.' }), { category: 'finance' }, 'a category the owner set stays')
  await app.inject({ method: 'POST', url: `/api/services/${inferred.id as string}/probe`, headers: auth })
  t.equal((await app.inject(`/api/services/${inferred.id as string}`)).json().category, 'finance', 'and probes leave it alone')
})
