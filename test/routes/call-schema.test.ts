/**
 * Call schemas end to end: a listing of a real @x402/express server declaring the Bazaar
 * discovery extension, probed by the catalog; detail, export, discovery, search and MCP carry
 * what the endpoint declared, unchanged. Refused declarations say why and write nothing.
 */
import { test, type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { decodePaymentRequiredHeader, HTTPFacilitatorClient } from '@x402/core/http'
import { declareDiscoveryExtension, withBazaar } from '@x402/extensions/bazaar'
import { build, register, validBody } from '../helper.js'
import { startX402Server, type X402Server } from '../support/x402-servers.js'
import { MAX_DISCOVERY_BYTES } from '../../src/domain/call-schema.js'
import { TRANSLATE, WEATHER } from '../support/discovery-declarations.js'

const PROVIDER = '0x6a8607afb7ac96d2c8a3e1b44560ff101b34550b'

/** extensions.bazaar exactly as the server sends it, read here by a plain client. */
async function sentBazaar (server: X402Server, method = 'GET'): Promise<unknown> {
  const res = await fetch(server.url, { method })
  const header = res.headers.get('payment-required')
  if (header === null) throw new Error(`no PAYMENT-REQUIRED header (${res.status})`)
  return decodePaymentRequiredHeader(header).extensions?.bazaar
}

async function listed (t: Test, app: FastifyInstance, server: X402Server, body: Record<string, unknown>): Promise<string> {
  const res = await register(app, validBody({ endpoint: server.url, x402Config: { paymentAddress: PROVIDER, network: 'base' }, ...body }))
  t.equal(res.statusCode, 201, res.body)
  const id = res.json().id as string
  t.match(await app.prober.probeService(id), { matched: true })
  return id
}

interface Item { resource: string, extensions?: { bazaar: unknown }, metadata: { id: string } }

test('a probed listing: detail, export, discovery, search and MCP carry the declared schema unchanged', async (t) => {
  const weather = await startX402Server({ payTo: PROVIDER, extensions: WEATHER })
  t.teardown(weather.close)
  const translate = await startX402Server({ payTo: PROVIDER, method: 'POST', extensions: TRANSLATE })
  t.teardown(translate.close)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  const weatherId = await listed(t, app, weather, { name: 'Sky Oracle', description: 'Meteorological data.' })
  const translateId = await listed(t, app, translate, { name: 'Lingo Relay', description: 'Language conversion.', method: 'POST', category: 'translation' })
  const plain = await startX402Server({ payTo: PROVIDER, path: '/plain' })
  t.teardown(plain.close)
  const plainId = await listed(t, app, plain, { name: 'Plain Paid', description: 'Nothing declared.' })

  const detail = (await app.inject(`/api/services/${weatherId}`)).json()
  t.match(detail.callSchema, {
    declaredIn: 'extensions.bazaar',
    method: 'GET',
    inputKind: 'query',
    inputSchema: { properties: { city: { type: 'string', description: 'City to forecast' } }, required: ['city'] },
    inputExample: { city: 'Tokyo', units: 'metric' },
    outputExample: { city: 'Tokyo', temperature: 21.5, summary: 'clear' },
    exampleCall: { method: 'GET', url: `${weather.url}?city=Tokyo&units=metric`, curl: `curl -X GET '${weather.url}?city=Tokyo&units=metric'` }
  })
  t.match((await app.inject(`/api/services/${translateId}`)).json().callSchema, {
    inputKind: 'body', bodyType: 'json', exampleCall: { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: { text: 'hello', targetLanguage: 'ja' } }
  })
  t.equal((await app.inject(`/api/services/${plainId}`)).json().callSchema, null, 'no declaration: null')
  const list = (await app.inject('/api/services')).json() as object[]
  t.ok(list.length === 3 && list.every((service) => !('callSchema' in service)), 'lists stay small: the schema is in the detail only')

  const declared = { [weatherId]: await sentBazaar(weather), [translateId]: await sentBazaar(translate, 'POST') }
  const exported = ((await app.inject('/api/export')).json() as { items: Item[] }).items
  const discovered = ((await app.inject('/discovery/resources')).json() as { items: Item[] }).items
  for (const items of [exported, discovered]) {
    const byId = new Map(items.map((item) => [item.metadata.id, item]))
    t.same(byId.get(weatherId)?.extensions, { bazaar: declared[weatherId] }, 'extensions.bazaar exactly as the endpoint sent it')
    t.same(byId.get(translateId)?.extensions, { bazaar: declared[translateId] })
    t.notOk(byId.has(plainId) && 'extensions' in (byId.get(plainId) as object), 'none declared: no extensions')
  }

  // extensions=bazaar: only the endpoints declaring it (the official client sends the filter).
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const bazaar = withBazaar(new HTTPFacilitatorClient({ url: address })).extensions.bazaar
  const declaring = await bazaar.listResources({ extensions: 'bazaar' })
  t.same(declaring.items.map((item) => (item as unknown as Item).metadata.id).sort(), [weatherId, translateId].sort(), 'extensions=bazaar lists the declaring endpoints only')
  t.equal(declaring.pagination.total, 2)
  t.ok(declaring.items.every((item) => item.extensions?.bazaar !== undefined), 'each with its extensions.bazaar')
  t.same((await bazaar.listResources({ extensions: 'bazaar', limit: 1, offset: 1 })).pagination, { limit: 1, offset: 1, total: 2 }, 'paged with its own total')
  const withPayTo = await bazaar.listResources({ extensions: 'bazaar', payTo: PROVIDER.toUpperCase().replace('0X', '0x'), network: 'base' })
  t.equal(withPayTo.pagination.total, 2, 'with payTo and network too')
  t.equal((await bazaar.listResources({ extensions: 'bazaar', payTo: '0x1111111111111111111111111111111111111111' })).pagination.total, 0)
  t.equal((await bazaar.listResources({ extensions: 'mcp' })).pagination.total, 0, 'another key: an empty page')
  t.equal((await bazaar.listResources({ extensions: 'Bazaar' })).pagination.total, 0, 'keys compare exactly')
  t.equal((await bazaar.listResources({})).pagination.total, 3, 'without it: every listing')

  await app.searchReady()
  const paid = await bazaar.search({ query: 'paid', extensions: 'bazaar' })
  t.same(paid.resources, [], 'the search leaves out the listing declaring nothing')
  t.same((await bazaar.search({ query: 'paid' })).resources.map((r) => (r as unknown as Item).metadata.id), [plainId], '(which it finds without the filter)')
  const declaredSearch = await bazaar.search({ query: 'language', extensions: 'bazaar' })
  t.same(declaredSearch.resources.map((r) => (r as unknown as Item).metadata.id), [translateId], 'and keeps the declaring ones')
  const search = (await app.inject('/api/catalog/search?q=forecast%20by%20city')).json() as { results: Array<{ service: { id: string } }> }
  // Its name, description and category (Sky Oracle, Meteorological data., weather) say neither word.
  t.equal(search.results[0]?.service.id, weatherId, 'the input field city and its description find it, first')
  const found = (await app.inject('/discovery/search?query=target%20language')).json() as { resources: Item[] }
  t.same(found.resources.map((r) => r.metadata.id), [translateId], 'a body field too, through the discovery search')
  t.same(found.resources[0]?.extensions, { bazaar: declared[translateId] })

  const client = new Client({ name: 'catalog-test-agent', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${address}/mcp`)))
  t.teardown(async () => { await client.close() })
  const res = await client.callTool({ name: 'get_service', arguments: { id: weatherId } }) as CallToolResult
  t.notOk(res.isError)
  t.match(res.structuredContent, {
    callSchema: {
      inputSchema: detail.callSchema.inputSchema,
      inputExample: { city: 'Tokyo', units: 'metric' },
      exampleCall: { method: 'GET', url: `${weather.url}?city=Tokyo&units=metric` }
    }
  }, 'MCP get_service: the input schema and a call an agent can make')
})

test('a later probe that sees a new schema replaces it; a refused one keeps it and says why', async (t) => {
  const first = await startX402Server({ payTo: PROVIDER, extensions: WEATHER })
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  const id = await listed(t, app, first, {})
  await first.close()

  const renamed = declareDiscoveryExtension({ input: { town: 'Kyoto' }, inputSchema: { properties: { town: { type: 'string' } } } })
  const second = await startX402Server({ payTo: PROVIDER, extensions: renamed, port: first.port })
  t.match(await app.prober.probeService(id), { matched: true, reason: 'matches the registration' })
  t.match((await app.inject(`/api/services/${id}`)).json().callSchema, { inputExample: { town: 'Kyoto' } }, 'replaced')
  const kept = await sentBazaar(second)
  await second.close()

  const huge = declareDiscoveryExtension({ input: { q: 'x' }, inputSchema: { properties: { q: { type: 'string', description: 'd'.repeat(MAX_DISCOVERY_BYTES) } } } })
  const third = await startX402Server({ payTo: PROVIDER, extensions: huge, port: first.port })
  t.teardown(third.close)
  const seq = (await app.inject('/api/export')).headers.etag
  t.match(await app.prober.probeService(id), { matched: true, reason: /^matches the registration; call schema not taken: extensions\.bazaar is \d+\.\d KiB, over the 64\.0 KiB limit$/ })
  const status = (await app.inject(`/api/services/${id}/status`)).json()
  t.match(status, { status: 'verified', lastProbe: { reason: /call schema not taken: extensions\.bazaar is .* over the 64\.0 KiB limit/ } }, 'the status says why; the listing stays verified')
  t.match((await app.inject(`/api/services/${id}`)).json().callSchema, { inputExample: { town: 'Kyoto' } }, 'the last good schema stays')
  const exported = (await app.inject('/api/export')).json() as { items: Item[] }
  t.same(exported.items[0]?.extensions, { bazaar: kept }, 'nothing of the refused one is written')
  t.equal((await app.inject('/api/export')).headers.etag, seq, 'and the export did not change')
})

test('the OpenAPI document describes callSchema and extensions.bazaar', async (t) => {
  const app = await build(t, { seed: 'none' })
  const spec = (await app.inject('/openapi.json')).json()
  const detail = spec.paths['/api/services/{id}'].get.responses['200'].content['application/json'].schema
  t.match(detail.properties.callSchema, { description: /How to call the service/ })
  t.match(JSON.stringify(detail.properties.callSchema), /inputSchema.*exampleCall/)
  const item = spec.paths['/discovery/resources'].get.responses['200'].content['application/json'].schema.properties.items.items
  t.match(item.properties.extensions, { properties: { bazaar: { description: /exactly as the endpoint/ } } })
  for (const path of ['/discovery/resources', '/discovery/search']) {
    const parameter = (spec.paths[path].get.parameters as Array<{ name: string, description?: string, schema?: { description?: string } }>).find((p) => p.name === 'extensions')
    t.match(parameter?.description ?? parameter?.schema?.description, /`bazaar`: only resources whose endpoint declares the Bazaar discovery extension.*any other key.*empty list/, `${path}: the extensions filter as applied`)
  }
})
