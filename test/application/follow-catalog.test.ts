/**
 * Catalog sources: one catalog (listening on loopback) followed by another through its
 * GET /api/changes. What the follower mirrors, how registrations, changes and deletions arrive,
 * that a caught-up follow writes nothing, a reset upstream (410) and a bad feed.
 */
import { test, type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { syncSource, type SyncOptions } from '../../src/application/sync-source.js'
import { newServiceId } from '../../src/domain/ids.js'
import { buildServiceRecord, type RegistrationBody } from '../../src/domain/registration.js'
import { newSourceId, type SourceRecord } from '../../src/domain/sources.js'
import { API_KEY, build, register, validBody } from '../helper.js'
import { startHttpServer } from '../support/x402-servers.js'

const auth = { authorization: `Bearer ${API_KEY}` }

async function upstreamCatalog (t: Test): Promise<{ app: FastifyInstance, url: string }> {
  const app = await build(t, { seed: 'none' })
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, url }
}

async function follower (t: Test, url: string): Promise<{ app: FastifyInstance, source: () => Promise<SourceRecord>, sync: (options?: SyncOptions) => ReturnType<typeof syncSource> }> {
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  const id = newSourceId()
  await app.store.insertSource({ id, kind: 'catalog', url, createdAt: new Date().toISOString(), lastSync: null, lastCompleteAt: null })
  const source = async (): Promise<SourceRecord> => await app.store.getSource(id) as SourceRecord
  const sync = async (options: SyncOptions = {}) => await syncSource({ store: app.store, readJson: async (at, maxBytes) => await app.prober.fetchOriginDocument(at, maxBytes), inferCategory: app.inferCategory, readEndpoint: async (endpoint, method, options) => await app.prober.read(endpoint, method, options) }, await source(), options)
  return { app, source, sync }
}

async function detail (app: FastifyInstance, id: string) {
  return (await app.inject(`/api/services/${id}`)).json()
}

test('a catalog source mirrors the other catalog, then follows its registrations, changes and deletions', async (t) => {
  const upstream = await upstreamCatalog(t)
  const weather = (await register(upstream.app, validBody({ name: 'Weather Now', description: 'Hourly weather forecasts for any city.' }))).json()
  const jp = (await register(upstream.app, validBody({ name: '株価速報', description: '東京証券取引所の株価をリアルタイムで返します。', category: 'finance' }))).json()
  const doomed = (await register(upstream.app, validBody({ name: 'Short Lived', description: 'Deleted upstream soon.' }))).json()
  // As a source of the other catalog's lists one whose price is not fixed.
  const metered = buildServiceRecord({ ...validBody({ name: 'Metered Search', description: 'Billed by the query.', endpoint: 'https://metered.example.com/search' }) as unknown as RegistrationBody, pricing: { currency: 'USDC', pricePerRequest: null } }, { id: newServiceId(), ownerId: null, now: new Date().toISOString() })
  await upstream.app.store.insertService(metered)
  const { app, sync, source } = await follower(t, upstream.url)

  const first = await sync()
  t.match(first, { complete: true, seen: 4, added: 4, updated: 0, retired: 0, refusedCount: 0, error: null, feed: { since: '0', wholeAt: first.startedAt } })
  const mirrored = await detail(app, weather.id)
  t.match(mirrored, { id: weather.id, name: 'Weather Now', endpoint: weather.endpoint, pricing: weather.pricing, x402Config: weather.x402Config, status: 'unverified', claimed: false }, 'the other catalog\'s id, text and terms; status is this catalog\'s own')
  t.match(mirrored.sources, [{ url: upstream.url, firstSeenAt: first.startedAt }])
  t.match(await detail(app, jp.id), { name: '株価速報', category: 'finance' })
  t.match(await detail(app, metered.id), { name: 'Metered Search', pricing: { currency: 'USDC', pricePerRequest: null } }, 'a dynamic price stays dynamic')
  await app.searchReady()
  const found = (await app.inject(`/api/catalog/search?q=${encodeURIComponent('株価')}`)).json() as { results: Array<{ service: { id: string } }> }
  t.equal(found.results[0]?.service.id, jp.id, 'searchable in Japanese on the follower')

  // Changes upstream: a registration, a new description, a deletion.
  const added = (await register(upstream.app, validBody({ name: 'Flight Prices', description: 'Cheapest flights between two airports.', x402Config: { paymentAddress: '0x2222222222222222222222222222222222222222', network: 'base-sepolia' } }))).json()
  t.equal((await upstream.app.inject({ method: 'PATCH', url: `/api/services/${weather.id as string}`, headers: auth, payload: { description: 'Weather forecasts by the hour, worldwide.' } })).statusCode, 200)
  t.equal((await upstream.app.inject({ method: 'DELETE', url: `/api/services/${doomed.id as string}`, headers: auth })).statusCode, 204)
  const second = await sync()
  t.match(second, { complete: true, seen: 3, added: 1, updated: 1, retired: 1, feed: { since: first.feed?.next, wholeAt: first.startedAt } }, 'only what changed since the last cursor')
  t.match(await detail(app, added.id), { name: 'Flight Prices', x402Config: { network: 'eip155:84532' } }, 'test networks are mirrored too: the feed is not filtered')
  t.equal((await detail(app, weather.id)).description, 'Weather forecasts by the hour, worldwide.')
  t.match(await detail(app, doomed.id), { status: 'inactive', sources: [], retired: { reason: `no longer listed by ${upstream.url}` } }, 'a deletion upstream retires the listing here, kept')

  const seq = await app.store.latestSeq()
  const third = await sync()
  t.match(third, { complete: true, seen: 0, added: 0, updated: 0, retired: 0, feed: { since: second.feed?.next, next: second.feed?.next } })
  t.equal(await app.store.latestSeq(), seq, 'a caught-up follow moves no change feed')
  const whole = await sync({ whole: true })
  t.match(whole, { complete: true, seen: 5, added: 0, updated: 0, unchanged: 4, retired: 0, feed: { since: '0', wholeAt: whole.startedAt } })
  t.equal(await app.store.latestSeq(), seq, 'a whole read of an unchanged catalog writes nothing either')

  // The upstream was reset (its feed is behind our cursor): the next pass reads it whole.
  const before = await source()
  await app.store.recordSourceSync(before.id, { ...(before.lastSync as NonNullable<SourceRecord['lastSync']>), feed: { since: '0', next: '999999', wholeAt: whole.startedAt } }, null)
  const reset = await sync()
  t.match(reset, { complete: true, seen: 5, added: 0, retired: 0, feed: { since: '0' } }, 'a 410 starts a whole read instead of failing')
})

test('a listing held here under another id gains the source only; the upstream\'s deletion reaches it with the next whole read', async (t) => {
  const upstream = await upstreamCatalog(t)
  const body = validBody({ name: 'Upstream Name' })
  const theirs = (await register(upstream.app, body)).json()
  const { app, sync } = await follower(t, upstream.url)
  const ours = (await register(app, { ...body, name: 'Our Owner\'s Name' })).json()
  t.not(ours.id, theirs.id)

  t.match(await sync(), { added: 0, unchanged: 1 })
  t.match(await detail(app, ours.id), { name: 'Our Owner\'s Name', sources: [{ url: upstream.url }] }, 'a registered listing keeps its owner\'s fields')
  t.equal((await app.inject(`/api/services/${theirs.id as string}`)).statusCode, 404, 'no second listing of one identity')

  t.equal((await upstream.app.inject({ method: 'DELETE', url: `/api/services/${theirs.id as string}`, headers: auth })).statusCode, 204)
  t.match(await sync(), { seen: 1, retired: 0 })
  t.equal((await detail(app, ours.id)).sources.length, 1, 'the deletion names an id this catalog does not hold')
  t.match(await sync({ whole: true }), { complete: true, retired: 0 })
  t.match(await detail(app, ours.id), { name: 'Our Owner\'s Name', status: 'unverified', sources: [] }, 'the whole read drops the source; an owned listing stays as it is')
})

test('a feed that fails or lies changes nothing; a bad change is refused alone', async (t) => {
  let answer: (since: string) => { status: number, body: string } = () => ({ status: 200, body: '<html>' })
  const server = await startHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname !== '/api/changes') { res.writeHead(404).end(); return }
    const { status, body } = answer(url.searchParams.get('since') ?? '')
    res.writeHead(status, { 'content-type': 'application/json' }).end(body)
  })
  t.teardown(server.close)
  const { app, sync } = await follower(t, server.origin)

  t.match(await sync(), { complete: false, seen: 0, error: new RegExp(`^${server.origin}: the changes since cursor 0 failed: the body is not JSON`), feed: { since: '0', next: '0', wholeAt: null } })
  answer = () => ({ status: 200, body: JSON.stringify({ changes: [], next: 'soon' }) })
  t.match(await sync(), { complete: false, error: /"next" is not a cursor/ })
  answer = () => ({ status: 503, body: '{}' })
  t.match(await sync(), { complete: false, error: /answered 503/ })
  t.equal(await app.store.countServices(), 0)

  const good = { cursor: '1', op: 'upsert', id: 'svc_aaaaaaaaaaaaaaaaaaaaaaaa', service: { ...validBody({ name: 'Kept' }), method: 'GET', pricing: { currency: 'USDC', pricePerRequest: '0.001', freeQuota: 0 }, status: 'verified', trustScore: 100 } }
  const changes = [
    good,
    { cursor: '2', op: 'upsert', id: 'svc_bbbbbbbbbbbbbbbbbbbbbbbb', service: { ...validBody(), x402Config: { paymentAddress: 'nobody', network: 'base' } } },
    { cursor: '3', op: 'upsert', id: 'svc_cccccccccccccccccccccccc', service: { ...validBody(), description: 'x'.repeat(70 * 1024) } },
    { cursor: '4', op: 'rename', id: 'svc_dddddddddddddddddddddddd' },
    { cursor: '5', op: 'upsert', id: '../../etc', service: { ...validBody({ name: 'Not Their Id' }) } },
    'not a change'
  ]
  answer = (since) => ({ status: 200, body: JSON.stringify(since === '0' ? { changes, next: '6' } : { changes: [], next: since }) })
  const report = await sync()
  t.match(report, { complete: true, seen: 6, added: 2, refusedCount: 4, feed: { next: '6' } })
  for (const reason of [/paymentAddress/, /over 64 KiB/, /op "rename"/, /not a change/]) t.ok(report.refused.some((refused) => reason.test(refused.reason)), `refused: ${reason.source}`)
  const kept = await detail(app, good.id)
  t.match(kept, { name: 'Kept', status: 'unverified' }, 'the other catalog\'s status is not taken')
  t.not(kept.trustScore, 100, 'nor its trust score')
  const other = await app.store.findServiceByResource(canonical(String((changes[4] as { service: Record<string, unknown> }).service.endpoint)), 'GET')
  t.match(other?.id, /^svc_[a-z2-7]{24}$/, 'an id that is not a service id is not kept')
})

function canonical (endpoint: string): string {
  return new URL(endpoint).href
}
