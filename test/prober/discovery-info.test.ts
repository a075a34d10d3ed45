/**
 * Call schemas read from real x402 servers: @x402/express v2 routes declaring the Bazaar
 * discovery extension (declareDiscoveryExtension + bazaarResourceServerExtension, as a provider
 * does), a v1 x402-express route with an outputSchema, and declarations the catalog refuses.
 */
import { test, type Test } from 'tap'
import { encodePaymentRequiredHeader } from '@x402/core/http'
import { declareDiscoveryExtension } from '@x402/extensions/bazaar'
import { HttpEndpointProber } from '../../src/prober/endpoint-prober.js'
import type { ProbeOutcome, ProbeTarget } from '../../src/domain/probe.js'
import { MAX_DISCOVERY_BYTES, callSchemaWords, exampleCall } from '../../src/domain/call-schema.js'
import { TRANSLATE, WEATHER } from '../support/discovery-declarations.js'
import { startHttpServer, startX402Server, x402V1Available, X402_V1_SKIP } from '../support/x402-servers.js'

const PAY_TO = '0x1111111111111111111111111111111111111111'

function target (endpoint: string, overrides: Partial<ProbeTarget> = {}): ProbeTarget {
  return { endpoint, method: 'GET', network: 'eip155:8453', paymentAddress: PAY_TO, priceAtomic: 1000, ...overrides }
}

function prober (t: Test): HttpEndpointProber {
  const p = new HttpEndpointProber({ allowPrivate: true, timeoutMs: 10_000 })
  t.teardown(async () => { await p.close() })
  return p
}

function declared (probe: ProbeOutcome): Extract<ProbeOutcome['discovery'], { kind: 'declared' }> {
  if (probe.discovery?.kind !== 'declared') throw new Error(`no declaration read: ${JSON.stringify(probe.discovery)} (${probe.reason})`)
  return probe.discovery
}

test('v2 GET route with a query input: method, query schema and example, output, and extensions.bazaar as sent', async (t) => {
  const server = await startX402Server({ payTo: PAY_TO, extensions: WEATHER })
  t.teardown(server.close)
  const probe = await prober(t).probe(target(server.url))
  t.match(probe, { matched: true, reason: 'matches the registration' })
  const { callSchema, bazaar } = declared(probe)
  t.same(callSchema, {
    declaredIn: 'extensions.bazaar',
    method: 'GET',
    inputKind: 'query',
    bodyType: null,
    inputSchema: { type: 'object', properties: { city: { type: 'string', description: 'City to forecast' }, units: { type: 'string', enum: ['metric', 'imperial'] } }, required: ['city'] },
    inputExample: { city: 'Tokyo', units: 'metric' },
    outputSchema: { type: 'object', properties: { temperature: { type: 'number' } } },
    outputExample: { city: 'Tokyo', temperature: 21.5, summary: 'clear' },
    mcpTool: null
  })
  // What the server sent: its declaration enriched with the method by bazaarResourceServerExtension.
  t.same(bazaar, probe.extensions?.bazaar, 'extensions.bazaar kept exactly as the answer carried it')
  t.match(bazaar, { info: { input: { type: 'http', method: 'GET', queryParams: { city: 'Tokyo' } } }, schema: { $schema: 'https://json-schema.org/draft/2020-12/schema' } })
  t.same(exampleCall(server.url, 'GET', callSchema), {
    method: 'GET', url: `${server.url}?city=Tokyo&units=metric`, headers: {}, body: null, curl: `curl -X GET '${server.url}?city=Tokyo&units=metric'`
  }, 'an example call an agent can make')
  t.equal(callSchemaWords(callSchema), 'city City to forecast units', 'field names and descriptions for search')
})

test('v2 POST route with a JSON body', async (t) => {
  const server = await startX402Server({ payTo: PAY_TO, method: 'POST', extensions: TRANSLATE })
  t.teardown(server.close)
  const probe = await prober(t).probe(target(server.url, { method: 'POST' }))
  const { callSchema } = declared(probe)
  t.match(callSchema, {
    method: 'POST',
    inputKind: 'body',
    bodyType: 'json',
    inputSchema: { properties: { text: { type: 'string' }, targetLanguage: { description: 'ISO 639-1 code' } }, required: ['text', 'targetLanguage'] },
    inputExample: { text: 'hello', targetLanguage: 'ja' },
    outputExample: { translation: 'こんにちは' }
  })
  t.same(exampleCall(server.url, 'POST', callSchema).curl,
    `curl -X POST '${server.url}' -H 'Content-Type: application/json' --data '{"text":"hello","targetLanguage":"ja"}'`)
})

test('a route without a declaration: nothing declared, reason untouched', async (t) => {
  const server = await startX402Server({ payTo: PAY_TO })
  t.teardown(server.close)
  const probe = await prober(t).probe(target(server.url))
  t.same(probe.discovery, { kind: 'none' })
  t.equal(probe.reason, 'matches the registration')
})

/** A v2 402 answer from a plain server, with `bazaar` as its extensions.bazaar. */
async function answering (t: Test, bazaar: unknown): Promise<string> {
  const header = encodePaymentRequiredHeader({
    x402Version: 2,
    resource: { url: 'http://127.0.0.1/x', description: 'x', mimeType: 'application/json' },
    accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: PAY_TO, maxTimeoutSeconds: 60, extra: {} }],
    extensions: { bazaar }
  } as Parameters<typeof encodePaymentRequiredHeader>[0])
  const server = await startHttpServer((_req, res) => { res.writeHead(402, { 'payment-required': header }).end() })
  t.teardown(server.close)
  return server.origin + '/x'
}

test('refused declarations: the probe says why in plain words and still counts as a valid 402', async (t) => {
  const p = prober(t)
  const huge = declareDiscoveryExtension({ input: { q: 'x' }, inputSchema: { properties: { q: { type: 'string', description: 'd'.repeat(MAX_DISCOVERY_BYTES) } } } })
  const tooLarge = await p.probe(target(await answering(t, huge.bazaar)))
  t.match(tooLarge, { answered402: true, matched: true, discovery: { kind: 'refused' } })
  t.match(tooLarge.reason, /^matches the registration; call schema not taken: extensions\.bazaar is \d+\.\d KiB, over the 64\.0 KiB limit$/)

  const mismatched = structuredClone(WEATHER.bazaar) as unknown as { info: { input: Record<string, unknown> } }
  mismatched.info.input.queryParams = { city: 42 }
  mismatched.info.input.method = 'GET'
  const invalid = await p.probe(target(await answering(t, { ...mismatched, schema: { ...(WEATHER.bazaar as unknown as { schema: object }).schema, properties: { input: { type: 'object', properties: { queryParams: { type: 'object', properties: { city: { type: 'string' } } } } } } } })))
  t.match(invalid.reason, /call schema not taken: extensions\.bazaar is invalid: \/input\/queryParams\/city: must be string/)

  t.match((await p.probe(target(await answering(t, 'weather')))).reason, /call schema not taken: extensions\.bazaar is not an object$/)
  t.match((await p.probe(target(await answering(t, { info: { input: { type: 'ftp' } } })))).reason, /extensions\.bazaar is invalid: info\.input\.type must be "http" or "mcp"/)
  t.match((await p.probe(target(await answering(t, { info: { input: { type: 'http' } } })))).reason, /extensions\.bazaar is invalid: it has no schema object/)
  t.match((await p.probe(target(await answering(t, WEATHER.bazaar)))).reason, /extensions\.bazaar is invalid: \/input: must have required property 'method'$/,
    'a declaration without bazaarResourceServerExtension lacks the method its own schema requires')
  const post = structuredClone(TRANSLATE.bazaar) as unknown as { info: { input: Record<string, unknown> } }
  post.info.input.method = 'POST'
  t.match((await p.probe(target(await answering(t, post)))).reason, /call schema not taken: it declares method POST, but the listing is GET$/)
  const external = { info: { input: { type: 'http', method: 'GET' } }, schema: { $ref: 'https://attacker.example/schema.json' } }
  t.match((await p.probe(target(await answering(t, external)))).reason, /must not contain external \$ref/)
})

test('a catastrophic pattern in a declared schema does not stall the prober (patterns are not run)', async (t) => {
  const evil = declareDiscoveryExtension({ input: { q: 'a'.repeat(40) + '!' }, inputSchema: { properties: { q: { type: 'string', pattern: '^(a+)+$' } } } })
  // The method bazaarResourceServerExtension adds at request time (this plain server has none).
  const sent = structuredClone(evil.bazaar) as unknown as { info: { input: Record<string, unknown> } }
  sent.info.input.method = 'GET'
  const probe = await prober(t).probe(target(await answering(t, sent)))
  t.match(declared(probe).callSchema.inputSchema, { properties: { q: { pattern: '^(a+)+$' } } }, 'kept as declared')
})

test('an MCP tool declaration', async (t) => {
  const mcp = declareDiscoveryExtension({
    toolName: 'forecast',
    description: 'Weather forecast by city',
    transport: 'streamable-http',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    example: { city: 'Paris' }
  })
  const { callSchema } = declared(await prober(t).probe(target(await answering(t, mcp.bazaar))))
  t.same(callSchema, {
    declaredIn: 'extensions.bazaar',
    method: null,
    inputKind: 'mcp',
    bodyType: null,
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    inputExample: { city: 'Paris' },
    outputSchema: null,
    outputExample: null,
    mcpTool: { toolName: 'forecast', description: 'Weather forecast by city', transport: 'streamable-http' }
  })
  t.equal(callSchemaWords(callSchema), 'Weather forecast by city city')
})

/** What x402-express v1 puts in accepts[].outputSchema for a route `config` (its middleware, verbatim shape). */
const V1_CONFIG = {
  inputSchema: { queryParams: { city: { type: 'string', description: 'City to forecast', required: true } } },
  outputSchema: { type: 'object', properties: { temperature: { type: 'number' } } }
}

const V1_CALL_SCHEMA = {
  declaredIn: 'accepts.outputSchema',
  method: 'GET',
  inputKind: 'query',
  bodyType: null,
  inputSchema: { type: 'object', properties: { city: { type: 'string', description: 'City to forecast' } }, required: ['city'] },
  inputExample: null,
  outputSchema: { type: 'object', properties: { temperature: { type: 'number' } } },
  outputExample: null,
  mcpTool: null
}

test('v1 outputSchema (the shape x402-express v1 sends), from a plain server', async (t) => {
  const server = await startHttpServer((req, res) => {
    res.writeHead(402, { 'content-type': 'application/json' }).end(JSON.stringify({
      x402Version: 1,
      error: 'X-PAYMENT header is required',
      accepts: [{
        scheme: 'exact',
        network: 'base',
        maxAmountRequired: '1000',
        resource: `http://${req.headers.host}/v1`,
        description: 'weather',
        mimeType: 'application/json',
        payTo: PAY_TO,
        maxTimeoutSeconds: 60,
        asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        outputSchema: { input: { type: 'http', method: 'GET', discoverable: true, ...V1_CONFIG.inputSchema }, output: V1_CONFIG.outputSchema },
        extra: { name: 'USD Coin', version: '2' }
      }]
    }))
  })
  t.teardown(server.close)
  const probe = await prober(t).probe(target(server.origin + '/v1'))
  const { callSchema, bazaar } = declared(probe)
  t.same(callSchema, V1_CALL_SCHEMA)
  t.match(bazaar, { info: { input: { type: 'http', method: 'GET', queryParams: V1_CONFIG.inputSchema.queryParams }, output: { example: V1_CONFIG.outputSchema } } },
    'extensions.bazaar as the Bazaar synthesizes it for a v1 resource')
})

test('v1 (x402-express) route with an outputSchema', { skip: x402V1Available() ? false : X402_V1_SKIP }, async (t) => {
  const server = await startX402Server({ version: 1, payTo: PAY_TO, network: 'base', v1Config: V1_CONFIG })
  t.teardown(server.close)
  t.same(declared(await prober(t).probe(target(server.url))).callSchema, V1_CALL_SCHEMA)
})
