/**
 * Bazaar sources against a facilitator-shaped loopback server (GET /discovery/resources with
 * limit/offset paging, x402 v1 and v2 items as real lists hold them, injected faults): what a
 * pass lists, refuses, keeps, retires, and that an unchanged pass writes nothing.
 */
import { test, type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { removeSource, syncSource } from '../../src/application/sync-source.js'
import { newSourceId, type SourceRecord } from '../../src/domain/sources.js'
import { API_KEY, build, register, validBody } from '../helper.js'
import { startHttpServer, startX402Server } from '../support/x402-servers.js'

const PAY_TO = '0x3333333333333333333333333333333333333333'
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'

function v2Item (path: string, fields: Record<string, unknown> = {}, amount = '1000'): Record<string, unknown> {
  return {
    resource: `https://api.example.com${path}`,
    type: 'http',
    x402Version: 2,
    accepts: [{ scheme: 'exact', network: 'eip155:8453', amount, asset: BASE_USDC, payTo: PAY_TO, maxTimeoutSeconds: 60, extra: { name: 'USD Coin', version: '2' } }],
    lastUpdated: '2026-11-01T00:00:00.000Z',
    quality: { l30DaysTotalCalls: 99999 },
    ...fields
  }
}

function v1Item (path: string, description: string, method = 'POST', network = 'base'): Record<string, unknown> {
  return {
    resource: `https://v1.example.com${path}`,
    type: 'http',
    x402Version: 1,
    accepts: [{ scheme: 'exact', network, maxAmountRequired: '2000', asset: BASE_USDC, payTo: PAY_TO, resource: `https://v1.example.com${path}`, description, mimeType: '', maxTimeoutSeconds: 60, outputSchema: { input: { type: 'http', method } } }],
    lastUpdated: '2026-11-01T00:00:00.000Z'
  }
}

/** A facilitator's discovery list: pages of `items`, with `fault` deciding how a page answers. */
async function facilitator (t: Test, items: () => unknown[], fault: (offset: number) => 'ok' | 'error' | 'garbage' = () => 'ok') {
  const server = await startHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname !== '/discovery/resources') { res.writeHead(404).end(); return }
    const limit = Number(url.searchParams.get('limit') ?? 20)
    const offset = Number(url.searchParams.get('offset') ?? 0)
    const how = fault(offset)
    if (how === 'error') { res.writeHead(503).end('busy'); return }
    if (how === 'garbage') { res.writeHead(200, { 'content-type': 'application/json' }).end('<html>'); return }
    const all = items()
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ x402Version: 2, items: all.slice(offset, offset + limit), pagination: { limit, offset, total: all.length } }))
  })
  t.teardown(server.close)
  return server
}

async function addSource (app: FastifyInstance, url: string): Promise<SourceRecord> {
  const source: SourceRecord = { id: newSourceId(), kind: 'bazaar', url, createdAt: new Date().toISOString(), lastSync: null, lastCompleteAt: null }
  await app.store.insertSource(source)
  return source
}

async function sync (app: FastifyInstance, source: SourceRecord) {
  return await syncSource({ store: app.store, readJson: async (url, maxBytes) => await app.prober.fetchOriginDocument(url, maxBytes), inferCategory: app.inferCategory, readEndpoint: async (endpoint, method, options) => await app.prober.read(endpoint, method, options) }, source)
}

async function detail (app: FastifyInstance, id: string) {
  return (await app.inject(`/api/services/${id}`)).json()
}

test('a pass lists what real lists hold, refuses what cannot be listed with its reason, and keeps upstream usage out', async (t) => {
  const items: unknown[] = [
    v2Item('/weather', { description: 'Hourly weather forecasts for any city', serviceName: 'Tenki', tags: ['weather', 'forecast'] }),
    v1Item('/translate', 'Translate text between 100 languages'),
    v2Item('/bell', { description: 'Rings\u0007 a bell\u202e twice' }),
    v2Item('/empty', { description: '' }),
    v2Item('/jp', { description: '全国の天気予報', metadata: { name: 'てんき予報', trustScore: 100, status: 'verified' } }),
    v2Item('/dynamic', { description: 'Pay what the model used' }, ''),
    v2Item('/free', { description: 'Costs nothing' }, '0'),
    v2Item('/upto', { accepts: [{ scheme: 'upto', network: 'eip155:8453', amount: '5000', asset: BASE_USDC, payTo: PAY_TO, maxTimeoutSeconds: 60 }] }),
    v2Item('/nopay', { accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: BASE_USDC, payTo: '', maxTimeoutSeconds: 60 }] }),
    v2Item('/huge', { description: 'x'.repeat(70 * 1024) }),
    { type: 'mcp', resource: 'mcp://tools.example.com' },
    'not an item',
    v2Item('/weather', { description: 'listed twice by the source' })
  ]
  for (let i = 0; i < 130; i++) items.push(v2Item(`/agents/${i}`, { description: `Agent ${i}: answers questions about travel` }))
  const upstream = await facilitator(t, () => items)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  const source = await addSource(app, upstream.origin)

  const report = await sync(app, source)
  t.match(report, { complete: true, seen: items.length, added: 138, updated: 0, unchanged: 0, retired: 0, refusedCount: 4, error: null })
  const reasons = Object.fromEntries(report.refused.map(({ item, reason }) => [item, reason]))
  t.match(reasons['https://api.example.com/nopay'], /paymentAddress/)
  t.match(reasons['https://api.example.com/huge'], /over 64 KiB/)
  t.match(reasons['mcp://tools.example.com'], /not an HTTP resource/)
  t.match(reasons['item 12'], /not an object/)
  t.equal(await app.store.countServices(), 138, 'the rest of each page was kept')

  const listed = async (path: string) => {
    const found = await app.store.findServiceByResource(`https://${path}`, path.includes('translate') ? 'POST' : 'GET')
    t.ok(found, path)
    return await detail(app, found?.id as string)
  }
  const weather = await listed('api.example.com/weather')
  t.match(weather, { name: 'Tenki', description: 'Hourly weather forecasts for any city', tags: ['weather', 'forecast'], category: 'weather', pricing: { pricePerRequest: '0.001' }, x402Config: { paymentAddress: PAY_TO, network: 'eip155:8453' }, status: 'unverified', claimed: false })
  t.match(weather.sources, [{ id: source.id, url: upstream.origin, firstSeenAt: report.startedAt, lastSeenAt: report.startedAt }])
  t.equal(weather.sources.length, 1)
  const status = (await app.inject(`/api/services/${weather.id as string}/status`)).json()
  t.match(status, { status: 'unverified', uptimeScore: null, lastChecked: null, txCount: 0 }, 'the upstream\'s usage and word are not ours')
  t.match(await listed('v1.example.com/translate'), { name: 'Translate text between 100 languages', method: 'POST', pricing: { pricePerRequest: '0.002' }, x402Config: { network: 'eip155:8453' } }, 'a v1 item: name derived, method from its schema')
  t.equal((await listed('api.example.com/bell')).description, 'Rings  a bell  twice', 'control and bidi characters cleaned')
  t.match(await listed('api.example.com/jp'), { name: 'てんき予報', status: 'unverified', trustScore: weather.trustScore }, 'a catalog export\'s metadata.name; its status and trust are not ours')
  t.equal((await listed('api.example.com/empty')).description, 'GET https://api.example.com/empty', 'an empty description, as registration from the endpoint words it')
  for (const path of ['dynamic', 'free', 'upto']) {
    t.match(await listed(`api.example.com/${path}`), { pricing: { currency: 'USDC', pricePerRequest: null }, x402Config: { paymentAddress: PAY_TO, network: 'eip155:8453' } }, `no fixed price (${path}): listed, its price dynamic`)
  }
})

test('a dynamic price: the price filter leaves it out, the price sort puts it last cheapest first and first dearest first, in lists, search and export', async (t) => {
  const items = [
    v2Item('/cheap', { description: 'Weather for one city' }, '1000'),
    v2Item('/dear', { description: 'Weather for every city' }, '900000'),
    v2Item('/metered', { description: 'Weather by the token, billed as used' }, ''),
    v2Item('/capped', { description: 'Weather at up to a cent', accepts: [{ scheme: 'upto', network: 'eip155:8453', amount: '10000', asset: BASE_USDC, payTo: PAY_TO, maxTimeoutSeconds: 60 }] })
  ]
  const upstream = await facilitator(t, () => items)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  t.match(await sync(app, await addSource(app, upstream.origin)), { added: 4, refusedCount: 0 })
  await app.searchReady()
  const paths = (services: Array<{ endpoint: string }>): string[] => services.map((s) => new URL(s.endpoint).pathname)
  const list = async (query: string): Promise<string[]> => paths((await app.inject(`/api/services?${query}`)).json())
  const search = async (query: string): Promise<string[]> => paths((await app.inject(`/api/catalog/search?q=weather&${query}`)).json().results.map((r: { service: { endpoint: string } }) => r.service))

  const ascending = await list('sortBy=price')
  t.same([ascending.slice(0, 2), ascending.slice(2).sort()], [['/cheap', '/dear'], ['/capped', '/metered']], 'cheapest first: fixed prices, then the dynamic ones')
  t.same((await list('sortBy=price&sortOrder=desc')).slice(0, 2).sort(), ['/capped', '/metered'], 'dearest first: the dynamic ones first')
  t.same((await list('maxPricePerRequest=1&sortBy=price')), ['/cheap', '/dear'], 'a price bound leaves the dynamic ones out')
  t.same((await list('maxPricePerRequest=99999999999999999999&sortBy=price')), ['/cheap', '/dear'], 'however high the bound')
  t.same(await search('sortBy=price'), ascending, 'search orders them the same way')
  t.same((await search('maxPricePerRequest=1000000')).sort(), ['/cheap', '/dear'], 'and filters them the same way')

  const exported = (await app.inject('/api/export')).json()
  const metered = exported.items.find((item: { resource: string }) => item.resource.endsWith('/metered'))
  t.match(metered, { accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '', maxAmountRequired: '', payTo: PAY_TO }], metadata: { pricing: { pricePerRequest: null } } }, 'the export writes an unknown amount as Bazaar lists do: empty')
})

test('the live 402 answer replaces the terms a source gave an unowned listing; an owned listing keeps its owner\'s', async (t) => {
  const server = await startX402Server({ payTo: PAY_TO, path: '/paid', price: '$0.002', description: 'Live weather' })
  t.teardown(server.close)
  const stale = '0x4444444444444444444444444444444444444444'
  const items = [v2Item('/paid', { resource: `${server.origin}/paid`, accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: BASE_USDC, payTo: stale, maxTimeoutSeconds: 60 }] })]
  const upstream = await facilitator(t, () => items)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  const source = await addSource(app, upstream.origin)
  t.match(await sync(app, source), { added: 1 })
  const listed = await app.store.findServiceByResource(`${server.origin}/paid`, 'GET')
  t.match(listed, { priceAtomic: 1000, paymentAddress: stale, status: 'unverified' }, 'the source\'s word first')
  const seq = await app.store.latestSeq()
  t.match(await app.prober.probeService(listed?.id as string), { matched: true, reason: /^the live answer's terms replace the source's \(payTo 0x3333…3333 differs from registered 0x4444…4444\)/ })
  const probed = await app.store.getService(listed?.id as string)
  t.match(probed, { priceAtomic: 2000, paymentAddress: PAY_TO, status: 'verified', paymentRequirements: [{ amount: '2000', payTo: PAY_TO }] }, 'price and payTo from the live answer; verified by them')
  t.ok(await app.store.latestSeq() > seq, 'a change the feed carries')
  t.match(await sync(app, source), { unchanged: 1, updated: 0 }, 'the source\'s stale word no longer moves it')
  t.match(await app.store.getService(listed?.id as string), { priceAtomic: 2000, paymentAddress: PAY_TO })

  // A key's registration with terms its endpoint does not ask: the probe says so, the terms stay the owner's.
  const owned = await register(app, validBody({ endpoint: `${server.origin}/paid?owned=1`, pricing: { currency: 'USDC', pricePerRequest: '0.005' }, x402Config: { paymentAddress: PAY_TO, network: 'base' } }))
  t.equal(owned.statusCode, 201, owned.body)
  t.match(await app.prober.probeService(owned.json().id), { matched: false, reason: /price 0.002 USDC differs from registered 0.005 USDC/ })
  t.match(await app.store.getService(owned.json().id), { priceAtomic: 5000, status: 'unverified' })
})

test('a dynamic price is verified by a live 402 to its payTo in USDC at any amount, and stays dynamic', async (t) => {
  const server = await startX402Server({ payTo: PAY_TO, path: '/paid', price: '$0.002', description: 'Metered weather' })
  t.teardown(server.close)
  const elsewhere = '0x4444444444444444444444444444444444444444'
  const items = [
    v2Item('/paid', { resource: `${server.origin}/paid` }, ''),
    v2Item('/other', { resource: `${server.origin}/paid?to=elsewhere`, accepts: [{ scheme: 'upto', network: 'eip155:8453', amount: '9000', asset: BASE_USDC, payTo: elsewhere, maxTimeoutSeconds: 60 }] })
  ]
  const upstream = await facilitator(t, () => items)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  t.match(await sync(app, await addSource(app, upstream.origin)), { added: 2 })
  const ours = await app.store.findServiceByResource(`${server.origin}/paid`, 'GET')
  t.match(ours, { priceAtomic: null, status: 'unverified' })
  t.match(await app.prober.probeService(ours?.id as string), { matched: true, reason: 'matches the registration' })
  const probed = await app.store.getService(ours?.id as string)
  t.match(probed, { status: 'verified', priceAtomic: null, paymentRequirements: [{ amount: '2000', payTo: PAY_TO }] }, 'the live terms are kept beside it; one answer does not fix the price')
  t.equal((await detail(app, ours?.id as string)).pricing.pricePerRequest, null)
  const theirs = await app.store.findServiceByResource(`${server.origin}/paid?to=elsewhere`, 'GET')
  t.match(await app.prober.probeService(theirs?.id as string), { matched: true, reason: /replace the source's \(payTo 0x3333…3333 differs from registered 0x4444…4444\)/ }, 'another payTo: the live one replaces the source\'s')
  t.match(await app.store.getService(theirs?.id as string), { paymentAddress: PAY_TO, priceAtomic: null }, 'and the price stays dynamic')
})

test('an unchanged pass writes nothing; changes upstream update unowned listings; what the source drops is retired only after a complete pass', async (t) => {
  let items: unknown[] = [v2Item('/a', { description: 'Stock quotes' }), v2Item('/b', { description: 'Weather now' }), v2Item('/c', { description: 'Flight prices' })]
  let failAt = -1
  const upstream = await facilitator(t, () => items, (offset) => offset === failAt ? 'error' : 'ok')
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  const source = await addSource(app, upstream.origin)
  t.equal((await sync(app, source)).added, 3)
  const ids = Object.fromEntries(await Promise.all(['a', 'b', 'c'].map(async (name) => [name, (await app.store.findServiceByResource(`https://api.example.com/${name}`, 'GET'))?.id as string])))

  const seq = await app.store.latestSeq()
  t.match(await sync(app, source), { complete: true, added: 0, updated: 0, unchanged: 3, retired: 0 })
  t.equal(await app.store.latestSeq(), seq, 'no change in the feed')

  items = [v2Item('/a', { description: 'Stock quotes, delayed 15 minutes' }), v2Item('/b', { description: 'Weather now' })]
  failAt = 0
  const failed = await sync(app, source)
  t.match(failed, { complete: false, retired: 0, error: new RegExp(`^${upstream.origin}: the page at offset 0 failed: answered 503`) })
  t.equal((await detail(app, ids.c)).status, 'unverified', 'an incomplete pass retires nothing')

  failAt = -1
  t.match(await sync(app, source), { complete: true, updated: 1, unchanged: 1, retired: 1 })
  t.equal((await detail(app, ids.a)).description, 'Stock quotes, delayed 15 minutes')
  const dropped = await detail(app, ids.c)
  t.match(dropped, { status: 'inactive', retired: { reason: `no longer listed by ${upstream.origin}` }, sources: [] }, 'kept, inactive, with the reason')

  items.push(v2Item('/c', { description: 'Flight prices' }))
  t.match(await sync(app, source), { updated: 1 })
  t.match(await detail(app, ids.c), { status: 'unverified', retired: null, sources: [{ id: source.id }] }, 'listed again: back, until a probe decides')
})

test('a listing a key registered keeps its fields; two sources make one listing; removing the last source retires it', async (t) => {
  const shared = v2Item('/shared', { description: 'Listed by both' })
  const owned = validBody({ endpoint: 'https://api.example.com/owned', name: 'Owner Named', description: 'The owner wrote this' })
  const first = await facilitator(t, () => [shared, v2Item('/owned', { description: 'The source says otherwise' })])
  const second = await facilitator(t, () => [shared])
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  const registered = (await register(app, owned)).json()
  const one = await addSource(app, first.origin)
  const two = await addSource(app, second.origin)

  t.match(await sync(app, one), { added: 1, unchanged: 1 })
  t.match(await sync(app, two), { added: 0, unchanged: 1 })
  const mine = await detail(app, registered.id)
  t.match(mine, { name: 'Owner Named', description: 'The owner wrote this', sources: [{ id: one.id }] }, 'the owner\'s fields; the source only in its provenance')
  const sharedId = (await app.store.findServiceByResource('https://api.example.com/shared', 'GET'))?.id as string
  t.same((await detail(app, sharedId)).sources.map((s: { id: string }) => s.id).sort(), [one.id, two.id].sort(), 'one listing, both sources')

  // Oldest first; two sources added within one millisecond are in id order.
  const sources = (await app.inject('/api/sources')).json() as Array<{ id: string }>
  t.match(sources.find((s) => s.id === one.id), { kind: 'bazaar', url: first.origin, listings: 2, lastSync: { complete: true, added: 1, unchanged: 1 }, lastCompleteAt: String })
  t.match(sources.find((s) => s.id === two.id), { url: second.origin, listings: 1 })
  t.equal(sources.length, 2)

  const patch = await app.inject({ method: 'PATCH', url: `/api/services/${sharedId}`, headers: { authorization: `Bearer ${API_KEY}` }, payload: { description: 'mine now' } })
  t.equal(patch.statusCode, 403)
  t.match(patch.json().message, /is listed by http:\/\/127\.0\.0\.1:\d+, http:\/\/127\.0\.0\.1:\d+ and has no owner: prove control of its origin/)

  t.same(await removeSource(app.store, two), { lost: 1, retired: 0 }, 'still listed by the first source')
  t.match(await detail(app, sharedId), { status: 'unverified', sources: [{ id: one.id }] })
  t.same(await removeSource(app.store, one), { lost: 2, retired: 1 }, 'the registered listing is never retired by a source')
  t.match(await detail(app, sharedId), { status: 'inactive', retired: { reason: `no longer listed by ${first.origin}` }, sources: [] })
  t.match(await detail(app, registered.id), { status: 'unverified', retired: null, sources: [] })
  t.same((await app.inject('/api/sources')).json(), [])
  t.equal(await removeSource(app.store, one), null)
})

test('a source that caps its pages below the limit asked is read to its total', async (t) => {
  const items = Array.from({ length: 120 }, (_, i) => v2Item(`/capped/${i}`, { description: `Item ${i}` }))
  const upstream = await startHttpServer((req, res) => {
    const offset = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('offset') ?? 0)
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ x402Version: 2, items: items.slice(offset, offset + 25), pagination: { limit: 25, offset, total: items.length } }))
  })
  t.teardown(upstream.close)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  t.match(await sync(app, await addSource(app, upstream.origin)), { complete: true, seen: 120, added: 120 })
})

test('a source that ignores limit and offset is read once over, not page after page', async (t) => {
  const items = Array.from({ length: 250 }, (_, i) => v2Item(`/all/${i}`, { description: `Item ${i}` }))
  let pages = 0
  const upstream = await startHttpServer((_req, res) => {
    pages++
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ x402Version: 2, items, pagination: { limit: 1000, offset: 0, total: items.length } }))
  })
  t.teardown(upstream.close)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  t.match(await sync(app, await addSource(app, upstream.origin)), { complete: true, seen: 250, added: 250 })
  t.equal(pages, 1)
})

test('a source on a loopback address is refused by the prober\'s guard, naming the source, and changes nothing', async (t) => {
  const upstream = await facilitator(t, () => [v2Item('/a')])
  const app = await build(t, { seed: 'none' })
  const source = await addSource(app, upstream.origin)
  const report = await sync(app, source)
  t.match(report, { complete: false, seen: 0, added: 0, error: new RegExp(`^${upstream.origin}: the page at offset 0 failed: .*(private|loopback|blocked)`, 'i') })
  t.equal(await app.store.countServices(), 0)
  t.same((await app.store.getSource(source.id))?.lastSync, report, 'the failed pass is on record')
})

test('a pass\'s new listings are first probed spread over the probe interval; a key\'s registration is due at once', async (t) => {
  const items = Array.from({ length: 200 }, (_, i) => v2Item(`/spread/${i}`, { description: `Agent ${i}` }))
  const upstream = await facilitator(t, () => items)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  const source = await addSource(app, upstream.origin)
  const intervalMs = 3_600_000
  const report = await syncSource({ store: app.store, readJson: async (url, maxBytes) => await app.prober.fetchOriginDocument(url, maxBytes), inferCategory: app.inferCategory, readEndpoint: async (endpoint, method, options) => await app.prober.read(endpoint, method, options), probeIntervalMs: intervalMs }, source)
  t.equal(report.added, 200)
  const registered = (await register(app, validBody())).json()
  const start = Date.parse(report.startedAt)
  const dueBy = async (ms: number) => (await app.store.dueForProbe(new Date(start + ms).toISOString(), 1000, false)).map(({ id }) => id)
  t.same(await dueBy(0), [registered.id], 'only the registration is due when the pass ends')
  const firstTenth = (await dueBy(intervalMs / 10)).length - 1
  t.ok(firstTenth > 5 && firstTenth < 40, `a tenth of the interval brings a tenth of them (${firstTenth} of 200)`)
  t.equal((await dueBy(intervalMs)).length, 201, 'all are due within one interval')
})

test('the export carries each listing\'s provenance, and a pass that only moves lastSeenAt gives it a new ETag', async (t) => {
  const upstream = await facilitator(t, () => [v2Item('/tides', { description: 'Tide tables' })])
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  const own = (await register(app, validBody({ name: 'Registered Here' }))).json()
  const source = await addSource(app, upstream.origin)
  const first = await sync(app, source)
  const exported = async () => {
    const res = await app.inject('/api/export')
    return { etag: res.headers.etag, items: (res.json() as { items: Array<{ resource: string, metadata: { id: string, sources: unknown[] } }> }).items }
  }
  const before = await exported()
  const mirrored = before.items.find((item) => item.resource === 'https://api.example.com/tides')
  t.same(mirrored?.metadata.sources, [{ id: source.id, url: upstream.origin, firstSeenAt: first.startedAt, lastSeenAt: first.startedAt }])
  t.same(before.items.find((item) => item.metadata.id === own.id)?.metadata.sources, [], 'a listing registered here alone')

  const seq = await app.store.latestSeq()
  const second = await sync(app, (await app.store.getSource(source.id)) as SourceRecord)
  t.equal(await app.store.latestSeq(), seq, 'the pass changed no listing')
  const after = await exported()
  t.not(after.etag, before.etag, 'yet the export is another version')
  const again = after.items.find((item) => item.resource === 'https://api.example.com/tides')
  t.match(again?.metadata.sources, [{ firstSeenAt: first.startedAt, lastSeenAt: second.startedAt }], 'seen again by the newer pass')
})
