/** HTTP hygiene: one error shape for every error (also those Node answers before Fastify), nosniff, CORS for reads. */
import { connect } from 'node:net'
import { test, type Test } from 'tap'
import type { LightMyRequestResponse } from 'fastify'
import { BODY_LIMIT } from '../../src/app.js'
import { MAX_URL_LENGTH } from '../../src/plugins/http.js'
import { API_KEY, build, register, validBody } from '../helper.js'

function assertErrorShape (t: Test, status: number, headers: Record<string, unknown>, body: string, code: string | RegExp, what: string): void {
  t.equal(headers['x-content-type-options'], 'nosniff', `${what}: nosniff`)
  t.match(String(headers['content-type']), /^application\/json/, `${what}: JSON`)
  const parsed = JSON.parse(body) as Record<string, unknown>
  t.same(Object.keys(parsed).filter((k) => k !== 'field').sort(), ['code', 'error', 'message', 'statusCode'], `${what}: the error shape`)
  t.match(parsed, { statusCode: status, code, error: String, message: String }, what)
}

const errorOf = (t: Test, res: LightMyRequestResponse, status: number, code: string | RegExp, what: string): void => {
  t.equal(res.statusCode, status, what)
  assertErrorShape(t, res.statusCode, res.headers, res.body, code, what)
}

test('every error answered by the app has one shape and nosniff', async (t) => {
  const app = await build(t)
  errorOf(t, await app.inject('/no/such/route'), 404, 'NOT_FOUND', 'unknown route')
  errorOf(t, await app.inject({ method: 'DELETE', url: '/api/categories' }), 404, 'NOT_FOUND', 'unknown method on a known path')
  errorOf(t, await app.inject(`/api/services/svc_${'a'.repeat(300)}`), 404, 'NOT_FOUND', 'an id longer than any route parameter')
  errorOf(t, await app.inject('/api/services/svc_%zz'), 400, 'BAD_URL', 'a path that is not valid percent-encoding')
  errorOf(t, await app.inject('/api/services?limit=0'), 400, 'VALIDATION_ERROR', 'bad query')
  errorOf(t, await app.inject(`/api/services?query=${'a'.repeat(MAX_URL_LENGTH)}`), 414, 'URI_TOO_LONG', 'a URL over the limit')
  errorOf(t, await register(app, validBody(), null), 401, 'UNAUTHORIZED', 'no key')
  const post = { method: 'POST' as const, url: '/api/services', headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' } }
  errorOf(t, await app.inject({ ...post, payload: 'x'.repeat(BODY_LIMIT + 1) }), 413, 'BODY_TOO_LARGE', 'body over the limit')
  errorOf(t, await app.inject({ ...post, payload: '{"name":' }), 400, 'INVALID_JSON', 'broken JSON')
  errorOf(t, await app.inject({ ...post, headers: { ...post.headers, 'content-type': 'text/csv' }, payload: 'a,b' }), 415, 'UNSUPPORTED_MEDIA_TYPE', 'unsupported content type')

  const ok = await app.inject('/api/categories')
  t.equal(ok.headers['x-content-type-options'], 'nosniff', 'successful answers too')
  t.equal((await app.inject('/api/categories')).headers['x-content-type-options'], 'nosniff', 'and answers from the cache')
  t.equal((await app.inject('/openapi.json')).headers['x-content-type-options'], 'nosniff')
})

test('CORS: any origin may read; writes are not offered to browsers on other origins', async (t) => {
  const app = await build(t, { seed: 'none' })
  const origin = 'https://explorer.example'
  const read = await app.inject({ url: '/api/services', headers: { origin } })
  t.equal(read.headers['access-control-allow-origin'], '*')
  t.match(String(read.headers['access-control-expose-headers']), /x-total-count/, 'browser code can read the total')

  const preflight = await app.inject({ method: 'OPTIONS', url: '/api/services', headers: { origin, 'access-control-request-method': 'GET' } })
  t.equal(preflight.statusCode, 204)
  t.equal(preflight.headers['access-control-allow-methods'], 'GET, HEAD')
  t.equal(preflight.headers['access-control-allow-origin'], '*')

  const writePreflight = await app.inject({ method: 'OPTIONS', url: '/api/services', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } })
  t.notMatch(String(writePreflight.headers['access-control-allow-methods']), /POST/, 'a preflight for POST does not allow it')

  const write = await app.inject({ method: 'POST', url: '/api/services', headers: { origin, authorization: `Bearer ${API_KEY}` }, payload: validBody() })
  t.equal(write.statusCode, 201, 'servers and CLIs still write')
  t.equal(write.headers['access-control-allow-origin'], undefined, 'no CORS headers on writes')
  t.equal(write.headers['x-content-type-options'], 'nosniff')

  const bare = await app.inject({ method: 'OPTIONS', url: '/api/services' })
  t.ok(bare.statusCode < 400, 'an OPTIONS without Origin is not an error')
})

/** Sends raw bytes and reads the whole answer (the server closes the connection after a parse error). */
async function raw (port: number, request: string): Promise<{ status: number, headers: Record<string, string>, body: string }> {
  const text = await new Promise<string>((resolve, reject) => {
    let received = ''
    const socket = connect(port, '127.0.0.1', () => { socket.end(request) })
    socket.on('data', (chunk) => { received += chunk.toString() })
    socket.on('error', (err: NodeJS.ErrnoException) => { if (err.code === 'ECONNRESET' || err.code === 'EPIPE') resolve(received); else reject(err) })
    socket.on('close', () => { resolve(received) })
  })
  const [head = '', body = ''] = text.split('\r\n\r\n')
  const [statusLine = '', ...lines] = head.split('\r\n')
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
  return { status: Number(statusLine.split(' ')[1]), headers, body }
}

test('errors Node answers before Fastify (over a real socket) have the same shape', async (t) => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as { port: number }).port

  const longUrl = await raw(port, `GET /api/services?query=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`)
  t.equal(longUrl.status, 414, 'a request line beyond the header limit is 414')
  assertErrorShape(t, longUrl.status, longUrl.headers, longUrl.body, 'URI_TOO_LONG', 'URL beyond the parser limit')

  const midUrl = await raw(port, `GET /api/services?query=${'a'.repeat(MAX_URL_LENGTH)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
  t.equal(midUrl.status, 414, 'a URL over our limit but within the parser limit is 414 too')
  assertErrorShape(t, midUrl.status, midUrl.headers, midUrl.body, 'URI_TOO_LONG', 'URL over the app limit')

  const bigHeader = await raw(port, `GET /api/categories HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`)
  t.equal(bigHeader.status, 431)
  assertErrorShape(t, bigHeader.status, bigHeader.headers, bigHeader.body, 'HEADERS_TOO_LARGE', 'headers too large')

  const manyHeaders = await raw(port, `GET /api/categories HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 600 }, (_, i) => `X-H${i}: ${'b'.repeat(30)}`).join('\r\n')}\r\n\r\n`)
  t.equal(manyHeaders.status, 431, 'many headers adding up past the limit')

  const garbage = await raw(port, 'HELLO\r\n\r\n')
  t.equal(garbage.status, 400)
  assertErrorShape(t, garbage.status, garbage.headers, garbage.body, 'BAD_REQUEST', 'not HTTP')

  const fine = await raw(port, 'GET /api/categories HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
  t.equal(fine.status, 200, 'the server keeps serving')
})
