import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { HTTPFacilitatorClient } from '@x402/core/http'
import { PaymentRequirementsV2Schema } from '@x402/core/schemas'
import { withBazaar } from '@x402/extensions/bazaar'
import { build, probeDemo, register, validBody } from '../helper.js'

interface ServiceJson { id: string, endpoint: string, status: string, x402Config: { paymentAddress: string }, supportedChains: string[] }

async function listen (app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
}

async function allServices (app: FastifyInstance, query = ''): Promise<ServiceJson[]> {
  const out: ServiceJson[] = []
  for (let offset = 0; ; offset += 100) {
    const page = (await app.inject(`/api/services?limit=100&offset=${offset}${query}`)).json() as ServiceJson[]
    out.push(...page)
    if (page.length < 100) return out
  }
}

test('the official Bazaar client lists the catalog', async (t) => {
  const app = await build(t)
  await probeDemo(app)
  const url = await listen(app)
  const bazaar = withBazaar(new HTTPFacilitatorClient({ url })).extensions.bazaar
  const services = await allServices(app)

  const first = await bazaar.listResources()
  t.equal(first.x402Version, 2)
  t.same(first.pagination, { limit: 20, offset: 0, total: services.length })
  t.equal(first.items.length, 20)
  const scores = first.items.map((item) => (item as unknown as { metadata: { trustScore: number } }).metadata.trustScore)
  t.same(scores, [...scores].sort((a, b) => b - a), 'most trusted first')
  t.ok(new Set((await bazaar.listResources({ limit: 100 })).items.map((item) => (item as unknown as { metadata: { trustScore: number } }).metadata.trustScore)).size > 1, 'the probes gave the catalog several trust scores to order by')
  for (const item of first.items) {
    t.equal(item.type, 'http')
    for (const accept of item.accepts) t.ok(PaymentRequirementsV2Schema.safeParse(accept).success, `${item.resource} accepts parse`)
  }

  // Walk every page: each service once.
  const seen: string[] = []
  for (let offset = 0; offset < services.length; offset += 25) {
    const page = await bazaar.listResources({ limit: 25, offset })
    t.equal(page.pagination.offset, offset)
    seen.push(...page.items.map((item) => item.resource))
  }
  t.same([...seen].sort(), services.map((s) => s.endpoint).sort(), 'paging covers the catalog exactly once')

  const onBase = await bazaar.listResources({ network: 'eip155:8453', limit: 100 })
  t.equal(onBase.pagination.total, services.filter((s) => s.supportedChains.includes('eip155:8453')).length)
  t.ok(onBase.items.every((item) => item.accepts.some((a) => a.network === 'eip155:8453')))
  t.equal((await bazaar.listResources({ network: 'base', limit: 1 })).pagination.total, onBase.pagination.total, 'v1 names work too')

  const target = services[3] as ServiceJson
  const byPayTo = await bazaar.listResources({ payTo: target.x402Config.paymentAddress.toUpperCase().replace('0X', '0x') })
  t.same(byPayTo.items.map((item) => item.resource), services.filter((s) => s.x402Config.paymentAddress.toLowerCase() === target.x402Config.paymentAddress.toLowerCase()).map((s) => s.endpoint),
    'payTo filter, EVM case-insensitive')
  t.equal((await bazaar.listResources({ type: 'http', scheme: 'exact', limit: 1 })).pagination.total, services.length)
  t.equal((await bazaar.listResources({ type: 'mcp' })).pagination.total, 0, 'the catalog lists http resources only')
  t.same((await bazaar.listResources({ extensions: 'bazaar' })).pagination.total, 0, 'no demo endpoint declares the Bazaar extension (test/routes/call-schema.test.ts probes real ones)')
  t.equal((await bazaar.listResources({ extensions: 'sign-in-with-x' })).pagination.total, 0, 'an extension the catalog keeps no declaration of: nothing')
  await t.rejects(bazaar.listResources({ network: 'nowhere' }), /400.*network/, 'a bad filter is a 400 naming it')
  await t.rejects(bazaar.listResources({ limit: 101 }), /400.*limit/)
})

test('the Bazaar client searches with the catalog\'s typo-tolerant search', async (t) => {
  const app = await build(t)
  const url = await listen(app)
  await app.searchReady()
  const bazaar = withBazaar(new HTTPFacilitatorClient({ url })).extensions.bazaar

  const found = await bazaar.search({ query: 'wether forcast' })
  t.equal(found.x402Version, 2)
  t.ok(found.resources.length > 0, 'typos still find weather services')
  const native = (await app.inject('/api/catalog/search?q=wether%20forcast')).json()
  t.same(found.resources.map((r) => (r as unknown as { metadata: { id: string } }).metadata.id), native.results.map((r: { service: { id: string } }) => r.service.id),
    'same hits, same order as the catalog search')
  for (const resource of found.resources) for (const accept of resource.accepts) t.ok(PaymentRequirementsV2Schema.safeParse(accept).success)

  const japanese = await bazaar.search({ query: 'てんき' })
  t.ok(japanese.resources.length > 0, 'Japanese queries work')

  const pageOne = await bazaar.search({ query: 'api', limit: 3 })
  t.equal(pageOne.resources.length, 3)
  t.equal(pageOne.partialResults, true)
  t.equal(pageOne.pagination?.limit, 3)
  const cursor = pageOne.pagination?.cursor
  t.equal(cursor, '3')
  const pageTwo = await bazaar.search({ query: 'api', limit: 3, cursor: cursor as string })
  t.equal(pageTwo.resources.filter((r) => pageOne.resources.some((p) => p.resource === r.resource)).length, 0, 'the cursor moves on')

  const target = found.resources[0] as unknown as { resource: string, accepts: Array<{ payTo: string }> }
  const narrowed = await bazaar.search({ query: 'wether forcast', payTo: target.accepts[0]?.payTo as string })
  t.ok(narrowed.resources.length >= 1)
  t.ok(narrowed.resources.every((r) => r.accepts.some((a) => a.payTo.toLowerCase() === target.accepts[0]?.payTo.toLowerCase())))
  t.equal((await bazaar.search({ query: 'weather', type: 'mcp' })).resources.length, 0)
  t.equal((await bazaar.search({ query: 'zzqqxxyy' })).resources.length, 0)
  await t.rejects(bazaar.search({ query: '   ' }), /400.*query/)
  await t.rejects(bazaar.search({ query: 'weather', cursor: 'abc' }), /400.*cursor/)
})

test('the Bazaar client finds a service by one of its tags, and reads them after its category', async (t) => {
  const app = await build(t)
  const url = await listen(app)
  const bazaar = withBazaar(new HTTPFacilitatorClient({ url })).extensions.bazaar
  const res = await register(app, validBody({ name: 'Harbour Feed', description: 'Tide tables for harbours.', category: 'weather', tags: ['barometer', 'Weather', '潮位'] }))
  t.equal(res.statusCode, 201)
  await app.searchReady()
  const found = await bazaar.search({ query: 'barometer' })
  t.same(found.resources.map((r) => r.resource), [(res.json() as ServiceJson).endpoint], 'a word only its tags hold finds it')
  t.same(found.resources[0]?.tags, ['weather', 'barometer'], 'the category, then its own tags as the Bazaar keeps them')
  t.same((await bazaar.search({ query: '潮位' })).resources.map((r) => r.resource), [(res.json() as ServiceJson).endpoint], 'a Japanese tag is searched too')
})

test('discovery search filters payTo before paging: full pages, every match once', async (t) => {
  const app = await build(t, { seed: 'none' })
  const payTo = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01'
  const wanted: string[] = []
  for (let i = 0; i < 30; i++) {
    const mine = i % 6 === 4
    const res = await register(app, validBody({
      name: `Glimmerfox ${i}`,
      description: 'glimmerfox data feed',
      x402Config: { paymentAddress: mine ? payTo : `0x${String(i).padStart(40, '0')}`, network: 'base' }
    }))
    t.equal(res.statusCode, 201)
    if (mine) wanted.push((res.json() as ServiceJson).endpoint)
  }
  await app.searchReady()
  const seen: string[] = []
  let cursor: string | null = null
  for (let pages = 0; pages < 10; pages++) {
    const res = await app.inject(`/discovery/search?query=glimmerfox&limit=2&payTo=${payTo.toLowerCase()}${cursor === null ? '' : `&cursor=${cursor}`}`)
    t.equal(res.statusCode, 200)
    const body = res.json() as { resources: Array<{ resource: string }>, partialResults: boolean, pagination: { cursor: string | null } }
    seen.push(...body.resources.map((r) => r.resource))
    cursor = body.pagination.cursor
    t.equal(body.partialResults, cursor !== null)
    if (cursor === null) {
      t.ok(body.resources.length >= 1 && body.resources.length <= 2, 'the last page holds the rest')
      break
    }
    t.equal(body.resources.length, 2, 'a page before the last is full')
  }
  t.equal(cursor, null, 'the cursor ends')
  t.same([...seen].sort(), [...wanted].sort(), 'exactly the services paid to that address, each once')
  t.equal(seen.length, 5)
})

test('discovery lists and searches leave test-network listings out unless asked', async (t) => {
  const app = await build(t, { seed: 'none' })
  const listed = async (name: string, network: string): Promise<string> => {
    const res = await register(app, validBody({ name, description: 'Surf reports for every beach.', x402Config: { paymentAddress: '0x2222222222222222222222222222222222222222', network } }))
    t.equal(res.statusCode, 201)
    return (res.json() as { endpoint: string }).endpoint
  }
  const real = await listed('Quokka Surf Report', 'base')
  const test = await listed('Quokka Surf Sandbox', 'base-sepolia')
  await app.searchReady()
  const resources = async (query: string): Promise<string[]> => {
    const res = await app.inject(`/discovery/resources${query}`)
    t.equal(res.statusCode, 200, query)
    return (res.json() as { items: Array<{ resource: string }> }).items.map((item) => item.resource).sort()
  }
  t.same(await resources(''), [real], 'the default list: the real one')
  t.same(await resources('?testnet=include'), [real, test].sort())
  t.same(await resources('?testnet=only'), [test])
  t.same(await resources('?network=base-sepolia'), [test], 'a test network named')
  const found = async (query: string): Promise<string[]> => ((await app.inject(`/discovery/search?query=surf${query}`)).json() as { resources: Array<{ resource: string }> }).resources.map((item) => item.resource).sort()
  t.same(await found(''), [real], 'a search: the real one')
  t.same(await found('&testnet=include'), [real, test].sort())
  const bad = await app.inject('/discovery/resources?testnet=no')
  t.same([bad.statusCode, bad.json().field], [400, 'testnet'])
})

test('/.well-known/x402 lists the endpoints of verified services', async (t) => {
  const app = await build(t)
  t.same((await app.inject('/.well-known/x402')).json().resources, [], 'the demo catalog starts with nothing verified')
  const statuses = await probeDemo(app)
  const res = await app.inject('/.well-known/x402')
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.version, 1)
  const verified = (await allServices(app, '&status=verified')).map((s) => s.endpoint)
  t.ok(verified.length > 0)
  const onTestNetworks = await allServices(app, '&testnet=only&status=verified')
  t.ok(onTestNetworks.length > 0, 'some verified listings are on test networks')
  const testIds = new Set(onTestNetworks.map((s) => s.id))
  t.equal(verified.length, [...statuses].filter(([id, status]) => status === 'verified' && !testIds.has(id)).length, 'the services a matching probe verified, but for test-network listings')
  t.same([...body.resources].sort(), verified.sort(), 'the verified listings the default list shows: test-network ones left out')
  const etag = res.headers.etag as string
  t.equal((await app.inject({ url: '/.well-known/x402', headers: { 'if-none-match': etag } })).statusCode, 304)
  t.equal((await register(app, validBody())).statusCode, 201)
  const after = await app.inject({ url: '/.well-known/x402', headers: { 'if-none-match': etag } })
  t.equal(after.statusCode, 200, 'a write changes the ETag')
  t.equal(after.json().resources.length, verified.length, 'an unverified registration is not listed')
})
