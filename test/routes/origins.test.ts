/**
 * Origin import against a real @x402/express v2 server serving /.well-known/x402: one row per
 * resource, re-import updates and retires, and bad documents change nothing.
 */
import { test } from 'tap'
import { encodePaymentRequiredHeader } from '@x402/core/http'
import { API_KEY, build } from '../helper.js'
import { bootstrapOwnerId, hashApiKey } from '../../src/domain/api-keys.js'
import { OriginDocumentError } from '../../src/errors.js'
import { startHttpServer, startX402Server } from '../support/x402-servers.js'
import type { FastifyInstance } from 'fastify'

const PAY_TO = '0x3333333333333333333333333333333333333333'
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const OTHER_KEY = 'other-key-0123456789abcdef'

async function importOrigin (app: FastifyInstance, origin: string, key: string | null = API_KEY) {
  return await app.inject({ method: 'POST', url: '/api/origins/import', headers: key === null ? {} : { authorization: `Bearer ${key}` }, payload: { origin } })
}

test('an origin\'s /.well-known/x402 registers what answers 402, one row per resource; a re-import updates and retires', async (t) => {
  let document: unknown = {
    version: 1,
    resources: ['GET /paid', 'POST /paid', '/free', 'GET /gone', 'https://elsewhere.example.com/paid', 'TRACE /paid'],
    instructions: 'Pay with USDC on Base'
  }
  const server = await startX402Server({
    payTo: PAY_TO,
    description: 'Stock prices and FX rates',
    also: [{ method: 'POST', price: '$0.002' }],
    free: ['/free'],
    wellKnown: () => JSON.stringify(document)
  })
  t.teardown(server.close)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })

  t.equal((await importOrigin(app, server.origin, null)).statusCode, 401, 'an API key is required')
  const first = await importOrigin(app, `${server.origin}/anything`)
  t.equal(first.statusCode, 200, first.body)
  const answer = first.json()
  t.equal(answer.document, `${server.origin}/.well-known/x402`)
  t.same(answer.rows.map((row: { resource: string, result: string }) => [row.resource, row.result]), [
    ['GET /paid', 'registered'],
    ['POST /paid', 'registered'],
    ['/free', 'refused'],
    ['GET /gone', 'refused'],
    ['https://elsewhere.example.com/paid', 'refused'],
    ['TRACE /paid', 'refused']
  ])
  t.match(answer.rows[0], { method: 'GET', endpoint: `${server.origin}/paid`, status: 'verified', reason: 'matches the registration' })
  t.match(answer.rows[1], { method: 'POST', status: 'verified' })
  t.match(answer.rows[2].reason, /answered 200, not 402/)
  t.match(answer.rows[3].reason, /answered 404, not 402/)
  t.match(answer.rows[4].reason, /not on http:\/\/127\.0\.0\.1:\d+/)
  t.match(answer.rows[5].reason, /method TRACE/)
  t.same(answer.inactive, [])
  const post = (await app.inject(`/api/services/${answer.rows[1].serviceId as string}`)).json()
  t.match(post, { pricing: { pricePerRequest: '0.002' }, category: 'finance', status: 'verified' })

  const again = (await importOrigin(app, server.origin)).json()
  t.same(again.rows.slice(0, 2).map((row: { result: string }) => row.result), ['unchanged', 'unchanged'], 'nothing changed since')
  t.equal(again.rows[0].serviceId, answer.rows[0].serviceId)

  document = { version: 1, resources: ['GET /paid'] }
  const third = (await importOrigin(app, server.origin)).json()
  t.same(third.rows.map((row: { result: string }) => row.result), ['unchanged'])
  t.same(third.inactive, [{ serviceId: answer.rows[1].serviceId, endpoint: `${server.origin}/paid`, method: 'POST', reason: 'removed from /.well-known/x402' }])
  const retired = (await app.inject(`/api/services/${answer.rows[1].serviceId as string}`)).json()
  t.equal(retired.status, 'inactive')
  t.match(retired.retired, { reason: 'removed from /.well-known/x402', at: /^\d{4}-/ }, 'the detail says why it was retired')
  t.same((await app.inject(`/api/services/${answer.rows[1].serviceId as string}/status`)).json().retired, retired.retired, 'and so does its status')
  t.equal(post.retired, null, 'a listing that was not retired says so')
  const probe = await app.inject({ method: 'POST', url: `/api/services/${answer.rows[1].serviceId as string}/probe`, headers: { authorization: `Bearer ${API_KEY}` } })
  t.equal(probe.json().matched, true)
  t.equal((await app.inject(`/api/services/${answer.rows[1].serviceId as string}`)).json().status, 'inactive', 'a probe does not bring back what its origin no longer lists')

  document = { version: 1, resources: ['GET /paid', 'POST /paid'] }
  const back = (await importOrigin(app, server.origin)).json()
  t.same(back.rows.map((row: { result: string }) => row.result), ['unchanged', 'updated'], 'listed again')
  t.equal(back.rows[1].status, 'verified')
  t.equal((await app.inject(`/api/services/${answer.rows[1].serviceId as string}`)).json().retired, null, 'listed again: no longer retired')
})

/** An OpenAPI 3.1 document listing `paid` operations with x402scan's x-payment-info and `free` ones without. */
function openApi (origin: string, paid: string[], free: string[] = [], base = ''): string {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const [entries, payment] of [[paid, true], [free, false]] as const) {
    for (const entry of entries) {
      const [method, path] = entry.split(' ') as [string, string]
      paths[path] ??= {}
      ;(paths[path] as Record<string, unknown>)[method.toLowerCase()] = {
        summary: entry,
        ...(payment ? { 'x-payment-info': { protocols: ['x402'], price: { mode: 'fixed', currency: 'USD', amount: '0.001' } } } : {}),
        responses: { 200: { description: 'ok' } }
      }
    }
  }
  return JSON.stringify({ openapi: '3.1.0', info: { title: 'paid API', version: '1.0.0' }, servers: [{ url: origin + base }], paths })
}

test('OpenAPI first: /openapi.json\'s paid operations are imported, then /.well-known/openapi.json, and /.well-known/x402 only when neither lists one', async (t) => {
  const docs: Record<string, string | undefined> = {}
  const server = await startX402Server({
    payTo: PAY_TO,
    path: '/v1/paid',
    also: [{ method: 'POST' }],
    wellKnown: () => JSON.stringify({ version: 1, resources: ['POST /v1/paid'] }),
    documents: { '/openapi.json': () => docs.root, '/.well-known/openapi.json': () => docs.wellKnown }
  })
  t.teardown(server.close)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })

  // The server's base path (servers[0].url) prefixes each path; a free operation is not imported.
  docs.root = openApi(server.origin, ['GET /paid', 'GET /users/{id}'], ['GET /health'], '/v1')
  const first = (await importOrigin(app, server.origin)).json()
  t.equal(first.document, `${server.origin}/openapi.json`, 'the answer names the document read')
  t.same(first.rows.map((row: { resource: string, result: string }) => [row.resource, row.result]), [['GET /v1/paid', 'registered'], ['GET /v1/users/{id}', 'refused']],
    'its paid operations only: not /.well-known/x402\'s POST')
  t.match(first.rows[0], { endpoint: `${server.origin}/v1/paid`, method: 'GET', status: 'verified' }, 'judged by its live 402, as any import')
  t.match(first.rows[1].reason, /path with parameters/)
  const get = (await app.inject(`/api/services/${first.rows[0].serviceId as string}`)).json()
  t.equal(get.pricing.pricePerRequest, '0.001')

  // An OpenAPI document without a paid operation does not count: the next document is read.
  docs.root = openApi(server.origin, [], ['GET /v1/paid'])
  docs.wellKnown = openApi(server.origin, ['POST /v1/paid'])
  const second = (await importOrigin(app, server.origin)).json()
  t.equal(second.document, `${server.origin}/.well-known/openapi.json`)
  t.same(second.rows.map((row: { resource: string, result: string }) => [row.resource, row.result]), [['POST /v1/paid', 'registered']])
  t.same(second.inactive.map((row: { method: string, reason: string }) => [row.method, row.reason]), [['GET', 'removed from /.well-known/openapi.json']],
    'what the origin\'s earlier document listed and this one does not is retired, whichever document listed it')

  docs.root = undefined
  docs.wellKnown = JSON.stringify({ openapi: '3.1.0' })
  const third = (await importOrigin(app, server.origin)).json()
  t.equal(third.document, `${server.origin}/.well-known/x402`)
  t.same(third.rows.map((row: { result: string, serviceId: string }) => [row.result, row.serviceId]), [['updated', second.rows[0].serviceId]], 'the same listing, now imported from /.well-known/x402')
})

test('when no document lists a paid resource, the 422 says what each answered, and nothing changes', async (t) => {
  const server = await startX402Server({
    payTo: PAY_TO,
    wellKnown: () => 'not json {',
    documents: { '/openapi.json': () => JSON.stringify({ swagger: '2.0', paths: 7 }), '/.well-known/openapi.json': () => openApi('http://127.0.0.1', [], ['GET /paid']) }
  })
  t.teardown(server.close)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  const before = await app.store.latestSeq()
  const res = await importOrigin(app, server.origin)
  t.equal(res.statusCode, 422)
  const { message } = res.json()
  t.match(message, `${server.origin} lists no paid resource`)
  t.match(message, /\/openapi\.json: not an OpenAPI document \(openapi: [^;]+; info: [^;]+; paths: /, 'the parser\'s own findings, field by field')
  t.match(message, /\/\.well-known\/openapi\.json: lists no paid operation \(none has x-payment-info\)/)
  t.match(message, /\/\.well-known\/x402: the body is not JSON/)
  t.equal(await app.store.latestSeq(), before)
})

test('a document that is not JSON, too large, the wrong shape or too long is a 422 and changes nothing', async (t) => {
  let body = ''
  const server = await startX402Server({ payTo: PAY_TO, wellKnown: () => body })
  t.teardown(server.close)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  body = JSON.stringify({ version: 1, resources: ['GET /paid'] })
  t.equal((await importOrigin(app, server.origin)).json().rows[0].result, 'registered')
  const before = await app.store.latestSeq()

  const cases: Array<[string, RegExp]> = [
    ['not json {', /the body is not JSON/],
    [JSON.stringify({ version: 1, resources: ['GET /paid'], pad: 'x'.repeat(300 * 1024) }), /too large \(over 256 KiB\)/],
    [JSON.stringify({ version: 1, resources: Array.from({ length: 10_000 }, (_, i) => `GET /r${i}`) }), /lists 10000 resources; at most 100/],
    [JSON.stringify({ version: 1, resources: 'GET /paid' }), /resources is a string, not a list/],
    [JSON.stringify({ version: 1, resources: ['GET /paid', 7] }), /resources\.1 is a number/],
    [JSON.stringify({ version: 2, resources: [] }), /only version 1/],
    [JSON.stringify(['GET /paid']), /an array, not an object/]
  ]
  for (const [text, message] of cases) {
    body = text
    const res = await importOrigin(app, server.origin)
    t.equal(res.statusCode, 422, String(message))
    t.match(res.json(), { code: 'INVALID_ORIGIN_DOCUMENT', field: 'origin', message })
    t.match(res.json().message, /nothing was changed/)
  }
  t.equal(await app.store.latestSeq(), before, 'no listing was written or retired')
  t.equal(await app.store.countServices(), 1)

  const missing = await startHttpServer((_req, res) => { res.writeHead(404).end() })
  t.teardown(missing.close)
  t.match((await importOrigin(app, missing.origin)).json(), { statusCode: 422, message: /answered 404, not 200/ })
  t.equal((await importOrigin(app, 'ftp://example.com')).statusCode, 400)

  // The origin's document is the origin's word only when the origin serves it: a redirect off it is refused.
  body = JSON.stringify({ version: 1, resources: ['GET /paid'] })
  const redirecting = await startHttpServer((_req, res) => { res.writeHead(302, { location: `${server.origin}/.well-known/x402` }).end() })
  t.teardown(redirecting.close)
  const redirected = await importOrigin(app, redirecting.origin)
  t.equal(redirected.statusCode, 422)
  t.match(redirected.json().message, `redirected to ${server.origin}`, 'the reason says where the read was sent')
  t.equal(await app.store.latestSeq(), before, 'nothing was written')
})

test('the import and the endpoint-only registration are in the OpenAPI document', async (t) => {
  const app = await build(t, { seed: 'none' })
  const spec = (await app.inject('/openapi.json')).json()
  const imported = spec.paths['/api/origins/import'].post
  t.same(imported.security, [{ bearerAuth: [] }])
  t.ok(imported.responses['422'], 'a bad document is documented')
  t.ok(imported.responses['200'].content['application/json'].schema.properties.rows)
  const post = spec.paths['/api/services'].post
  t.same(post.requestBody.content['application/json'].schema.required, ['endpoint'], 'only the endpoint is required')
  t.ok(post.responses['201'].content['application/json'].schema.properties.categorySource)
  t.ok(post.responses['422'])
})

test('an import that outlasts the answer bound answers 202 with a job to follow until every row is there', async (t) => {
  const paths = Array.from({ length: 6 }, (_, i) => `/slow/${i}`)
  // Each resource answers its 402 after 600 ms; the probe client takes two at a time per address.
  const slow = await startHttpServer((req, res) => {
    if (req.url === '/.well-known/x402') { res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ version: 1, resources: paths })); return }
    const answer = encodePaymentRequiredHeader({
      x402Version: 2,
      resource: { url: `http://127.0.0.1${req.url ?? '/'}`, description: 'slow', mimeType: '' },
      accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: BASE_USDC, payTo: PAY_TO, maxTimeoutSeconds: 60, extra: {} }]
    } as never)
    setTimeout(() => { res.writeHead(402, { 'payment-required': answer }).end('{}') }, 600)
  })
  t.teardown(slow.close)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true, answerWithinMs: 300, apiKeys: [API_KEY, OTHER_KEY] })

  const started = await importOrigin(app, slow.origin)
  t.equal(started.statusCode, 202, 'answered before every resource was probed')
  const job = started.json()
  t.equal(started.headers.location, `/api/jobs/${job.id as string}`, 'Location names the job')
  t.match(job, { kind: 'origin-import', state: 'running', result: null, progress: { total: 6 } })
  t.ok(job.progress.done < 6, `${job.progress.done as number} of 6 done when it answered`)

  const follow = async (key = API_KEY) => await app.inject({ url: started.headers.location as string, headers: { authorization: `Bearer ${key}` } })
  t.equal((await follow(OTHER_KEY)).statusCode, 404, 'another key cannot read the job')
  t.equal((await app.inject(started.headers.location as string)).statusCode, 401)
  let view = (await follow()).json()
  for (let i = 0; i < 200 && view.state === 'running'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    view = (await follow()).json()
  }
  t.equal(view.state, 'done')
  t.same(view.progress, { done: 6, total: 6 })
  t.same(view.result.rows.map((row: { result: string }) => row.result), Array(6).fill('registered'), 'every row is there')
  t.equal(await app.store.countServices(), 6)

  // Re-importing within the bound answers the rows themselves.
  const quick = await startX402Server({ payTo: PAY_TO, wellKnown: () => JSON.stringify({ version: 1, resources: ['GET /paid'] }) })
  t.teardown(quick.close)
  const done = await importOrigin(app, quick.origin)
  t.equal(done.statusCode, 200)
  t.equal(done.json().rows[0].result, 'registered')
})

test('a job that failed shows the error answer its request would have had', async (t) => {
  const app = await build(t, { seed: 'none' })
  const owner = bootstrapOwnerId(hashApiKey(API_KEY))
  const job = app.jobs.board.start(owner, 'origin-import', 0, async () => { throw new OriginDocumentError('https://a.example/.well-known/x402: the body is not JSON') })
  await job.finished
  const res = await app.inject({ url: `/api/jobs/${job.id}`, headers: { authorization: `Bearer ${API_KEY}` } })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { state: 'failed', result: null, error: { statusCode: 422, code: 'INVALID_ORIGIN_DOCUMENT', error: 'Unprocessable Entity', field: 'origin', message: /not JSON; nothing was changed/ } })
})
