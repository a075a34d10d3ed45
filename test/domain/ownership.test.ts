import { test, type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { decideOwnership } from '../../src/domain/ownership.js'
import type { ProbeOutcome } from '../../src/domain/probe.js'
import { buildServiceRecord } from '../../src/domain/registration.js'
import { newServiceId } from '../../src/domain/ids.js'
import type { ServiceRecord } from '../../src/domain/service.js'
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js'
import { API_KEY, build, register, tempDataDir, validBody } from '../helper.js'
import { startHttpServer, startX402Server } from '../support/x402-servers.js'

const OTHER_KEY = 'other-key-0123456789abcdef'
const SQUATTER = '0x1111111111111111111111111111111111111111'
const PROVIDER = '0x6a8607afb7ac96d2c8a3e1b44560ff101b34550b'
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'

function record (payTo: string, overrides: Partial<ServiceRecord> = {}): ServiceRecord {
  const built = buildServiceRecord(validBody({ endpoint: 'https://api.example.com/paid', x402Config: { paymentAddress: payTo, network: 'base' } }) as never,
    { id: newServiceId(), ownerId: 'key_a', now: '2026-01-01T00:00:00.000Z' })
  return { ...built, ...overrides }
}

function answered (payTo: string, amount = '1000', network = 'eip155:8453'): ProbeOutcome {
  return {
    checkedAt: '2026-01-02T00:00:00.000Z',
    httpStatus: 402,
    x402Version: 2,
    latencyMs: 3,
    answered402: true,
    matched: false,
    reason: 'n/a',
    accepts: [{ scheme: 'exact', network, amount, asset: BASE_USDC, payTo, maxTimeoutSeconds: 300 }]
  }
}

test('the live answer decides between holder and newcomer', async (t) => {
  const squatter = record(SQUATTER)
  const provider = record(PROVIDER.toUpperCase().replace('0X', '0x'))
  const takeover = decideOwnership(provider, squatter, answered(PROVIDER))
  t.equal(takeover.kind, 'takeover', 'matching newcomer (EVM payTo compared case-insensitively) displaces a non-matching holder')
  t.match(takeover.reason, /payTo 0x6a86…550b, amount 1000 on eip155:8453/)
  t.match(takeover.reason, /payTo 0x6a86…550b differs from registered 0x1111…1111/, 'says what the holder got wrong')

  const refused = decideOwnership(squatter, provider, answered(PROVIDER))
  t.equal(refused.kind, 'refuse', 'a non-matching newcomer never takes over')
  t.match(refused.reason, /does not match the endpoint's live 402 answer: payTo/)
  const verifiedHolder = decideOwnership(squatter, { ...provider, status: 'verified' }, answered(PROVIDER))
  t.match(verifiedHolder.reason, /a verified listing/)

  t.match(decideOwnership(provider, { ...provider, id: 'svc_other' }, answered(PROVIDER)).reason, /already matches/, 'both match: the holder stays')
  t.match(decideOwnership(record(PROVIDER, { priceAtomic: 2000 }), squatter, answered(PROVIDER)).reason, /price 0\.001 USDC differs from registered 0\.002 USDC/)
  t.match(decideOwnership(record(PROVIDER), squatter, answered(PROVIDER, '1000', 'eip155:137')).reason, /network eip155:137 differs/)
  // Each is judged by the answer to its own request: the holder's own answer still matches it.
  t.match(decideOwnership(provider, { ...squatter, endpoint: `${squatter.endpoint}/` }, answered(PROVIDER), answered(SQUATTER)).reason, /already matches/, 'the holder judged with its own answer')
  t.equal(decideOwnership(provider, { ...squatter, endpoint: `${squatter.endpoint}/` }, answered(PROVIDER), answered(PROVIDER)).kind, 'takeover')
  const getHolder = { ...squatter, status: 'verified' as const }
  const postNewcomer = { ...provider, method: 'POST' as const }
  t.match(decideOwnership(postNewcomer, getHolder, answered(PROVIDER)), { kind: 'refuse', reason: /a POST answer cannot decide a GET listing/ }, 'another method never displaces')
  const silent: ProbeOutcome = { ...answered(PROVIDER), httpStatus: null, answered402: false, accepts: null, reason: 'connection refused' }
  const undecided = decideOwnership(provider, squatter, silent)
  t.equal(undecided.kind, 'refuse')
  t.match(undecided.reason, /cannot decide ownership \(connection refused\)/)
})

async function twoKeyApp (t: Test): Promise<FastifyInstance> {
  return await build(t, { seed: 'none', probeAllowPrivate: true, apiKeys: [API_KEY, OTHER_KEY] })
}

test('a registration matching the live 402 answer takes the endpoint over from one that does not', async (t) => {
  const server = await startX402Server({ payTo: PROVIDER })
  t.teardown(server.close)
  const app = await twoKeyApp(t)
  const squat = await register(app, validBody({ name: 'Squatted API', description: 'zanzibar listing', endpoint: server.url, x402Config: { paymentAddress: SQUATTER, network: 'base' } }), OTHER_KEY)
  t.equal(squat.statusCode, 201, 'an untaken identity is registered (its probe only names the resource)')
  const squatId = squat.json().id as string
  await app.searchReady()
  t.equal((await app.inject('/api/catalog/search?q=zanzibar')).json().total, 1)

  // Another spelling of the same endpoint, with the payTo the endpoint really advertises.
  const spelled = server.url.replace('http://127.0.0.1', 'HTTP://127.0.0.1.') + '?'
  const claim = await register(app, validBody({ name: 'Real API', description: 'kilimanjaro listing', endpoint: spelled, x402Config: { paymentAddress: PROVIDER, network: 'base' } }))
  t.equal(claim.statusCode, 201, 'the provider takes over')
  const claimId = claim.json().id as string
  t.equal(claim.json().endpoint, server.url)

  for (const path of [`/api/services/${squatId}`, `/api/services/${squatId}/status`]) {
    const gone = await app.inject(path)
    t.equal(gone.statusCode, 404, path)
    t.equal(gone.json().code, 'SERVICE_DISPLACED')
    t.match(gone.json().message, new RegExp(`${claimId} took over ${server.url.replace(/[.?]/g, '\\$&')} because .*payTo 0x6a86…550b`))
    t.match(gone.json().message, /differs from registered 0x1111…1111/)
  }
  const patch = await app.inject({ method: 'PATCH', url: `/api/services/${squatId}`, headers: { authorization: `Bearer ${OTHER_KEY}` }, payload: { description: 'x' } })
  t.equal(patch.json().code, 'SERVICE_DISPLACED', 'its owner sees why on a change, too')

  const listed = (await app.inject('/api/services')).json() as Array<{ id: string }>
  t.same(listed.map((s) => s.id), [claimId])
  await app.searchReady()
  t.equal((await app.inject('/api/catalog/search?q=zanzibar')).json().total, 0, 'search follows the displacement')
  t.equal((await app.inject('/api/catalog/search?q=kilimanjaro')).json().total, 1)
  const exported = (await app.inject('/api/export')).json()
  t.same(exported.items.map((item: { metadata: { id: string } }) => item.metadata.id), [claimId])
})

test('a verified listing keeps its endpoint against registrations that do not match', async (t) => {
  const server = await startX402Server({ payTo: PROVIDER })
  t.teardown(server.close)
  const app = await twoKeyApp(t)
  const owner = await register(app, validBody({ endpoint: server.url, x402Config: { paymentAddress: PROVIDER, network: 'base' } }))
  const id = owner.json().id as string
  const probe = await app.inject({ method: 'POST', url: `/api/services/${id}/probe`, headers: { authorization: `Bearer ${API_KEY}` } })
  t.equal(probe.statusCode, 200)
  t.equal(probe.json().matched, true)
  t.equal((await app.inject(`/api/services/${id}`)).json().status, 'verified')

  const attempts: Array<[string, Record<string, unknown>, RegExp]> = [
    ['another payTo', { x402Config: { paymentAddress: SQUATTER, network: 'base' } }, /verified listing.*payTo 0x6a86…550b differs from registered 0x1111…1111/],
    ['another price', { x402Config: { paymentAddress: PROVIDER, network: 'base' }, pricing: { currency: 'USDC', pricePerRequest: '0.002' } }, /price 0\.001 USDC differs from registered 0\.002 USDC/],
    ['another network', { x402Config: { paymentAddress: PROVIDER, network: 'polygon' } }, /network eip155:8453 differs from registered eip155:137/],
    ['the same terms', { x402Config: { paymentAddress: PROVIDER, network: 'base' } }, /already matches the endpoint's live 402 answer/]
  ]
  for (const [what, overrides, reason] of attempts) {
    const res = await register(app, validBody({ endpoint: server.url, ...overrides }), OTHER_KEY)
    t.equal(res.statusCode, 409, what)
    t.equal(res.json().code, 'DUPLICATE_ENDPOINT')
    t.equal(res.json().field, 'endpoint')
    t.match(res.json().message, new RegExp(`is listed by ${id}`))
    t.match(res.json().message, reason, what)
  }
  t.equal((await app.inject(`/api/services/${id}`)).json().status, 'verified', 'the holder is untouched')
  t.equal(Number((await app.inject('/api/services')).headers['x-total-count']), 1)
})

test('when the endpoint cannot decide, the holder stays', async (t) => {
  const app = await twoKeyApp(t)
  const plain = await startHttpServer((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end('{"free":true}') })
  t.teardown(plain.close)
  const gone = await startHttpServer((_req, res) => { res.end() })
  const goneUrl = `${gone.origin}/paid`
  await gone.close()
  for (const [what, url, reason] of [['answers 200', `${plain.origin}/paid`, /answered 200, not 402/], ['is down', goneUrl, /cannot decide ownership \(.+\)/]] as const) {
    t.equal((await register(app, validBody({ endpoint: url, x402Config: { paymentAddress: SQUATTER, network: 'base' } }))).statusCode, 201)
    const res = await register(app, validBody({ endpoint: url, x402Config: { paymentAddress: PROVIDER, network: 'base' } }), OTHER_KEY)
    t.equal(res.statusCode, 409, `endpoint ${what}`)
    t.match(res.json().message, reason)
  }
})

test('the store displaces atomically and refuses a stale decision', async (t) => {
  const store = new SqliteCatalogStore(tempDataDir(t))
  t.teardown(async () => { await store.close() })
  const holder = record(SQUATTER)
  await store.insertService(holder)
  const newcomer = { ...record(PROVIDER), endpoint: holder.endpoint, resource: holder.resource }
  const displacement = { id: holder.id, displacedBy: newcomer.id, endpoint: holder.endpoint, ownerId: holder.ownerId, reason: 'test', at: newcomer.createdAt }

  await store.updateService({ ...holder, description: 'changed meanwhile', updatedAt: '2026-01-05T00:00:00.000Z' })
  t.equal(await store.displaceService(holder, newcomer, displacement), false, 'the holder changed since the decision')
  t.equal((await store.getService(holder.id))?.description, 'changed meanwhile', 'nothing was removed')
  t.equal(await store.getService(newcomer.id), null, 'nothing was inserted')
  t.equal(await store.getDisplacement(holder.id), null)

  const current = await store.getService(holder.id) as ServiceRecord
  t.equal(await store.displaceService(current, newcomer, displacement), true)
  t.equal(await store.getService(holder.id), null)
  t.equal((await store.findServiceByResource(holder.resource, holder.method))?.id, newcomer.id)
  t.same(await store.getDisplacement(holder.id), displacement)
  t.equal((await store.listServices({ payTo: PROVIDER.toUpperCase().replace('0X', '0x') }, { field: 'createdAt', order: 'desc' }, { limit: 10, offset: 0 })).total, 1, 'payTo filter, EVM case-insensitive')
  t.equal((await store.listServices({ payTo: SQUATTER }, { field: 'createdAt', order: 'desc' }, { limit: 10, offset: 0 })).total, 0)
})
