/** HTTP hygiene (src/plugins/http.ts): one error shape for every error (also those Node answers before Fastify), nosniff, CORS for reads, UTF-8 JSON bodies. */
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
  // Errors about the body: 'bodies: only UTF-8 JSON, …' below.

  const ok = await app.inject('/api/categories')
  t.equal(ok.headers['x-content-type-options'], 'nosniff', 'successful answers too')
  t.equal((await app.inject('/api/categories')).headers['x-content-type-options'], 'nosniff', 'and answers from the cache')
  t.equal((await app.inject('/openapi.json')).headers['x-content-type-options'], 'nosniff')
  // /mcp writes its answers itself (hijacked reply): it sets nosniff there too.
  const mcp = await app.inject({ method: 'POST', url: '/mcp', headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' }, payload: { jsonrpc: '2.0', id: 1, method: 'ping' } })
  t.equal(mcp.statusCode, 200)
  t.equal(mcp.headers['x-content-type-options'], 'nosniff', '/mcp answers carry nosniff')
})

test('bodies: only UTF-8 JSON, unencoded; Fastify codes never reach clients', async (t) => {
  const app = await build(t, { seed: 'none' })
  const post = async (headers: Record<string, string>, payload: string | Buffer): Promise<LightMyRequestResponse> => await app.inject({
    method: 'POST', url: '/api/services', headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', ...headers }, payload
  })
  const body = JSON.stringify({ name: 'x' })
  const expectError = (res: LightMyRequestResponse, status: number, code: string, message: RegExp, what: string): void => {
    errorOf(t, res, status, code, what)
    t.match(res.json().message, message, `${what}: says why`)
    t.notMatch(res.body, /FST_/, `${what}: no framework code`)
  }
  expectError(await post({ 'content-type': 'text/plain' }, body), 415, 'UNSUPPORTED_MEDIA_TYPE', /text\/plain/, 'text/plain')
  expectError(await post({ 'content-type': 'text/csv' }, 'a,b'), 415, 'UNSUPPORTED_MEDIA_TYPE', /text\/csv/, 'text/csv')
  expectError(await post({ 'content-type': 'application/json; charset=utf-16le' }, Buffer.from(body, 'utf16le')), 415, 'UNSUPPORTED_MEDIA_TYPE', /charset utf-16le/, 'UTF-16')
  expectError(await post({ 'content-type': 'application/json; charset="Shift_JIS"' }, body), 415, 'UNSUPPORTED_MEDIA_TYPE', /charset shift_jis/, 'Shift_JIS')
  expectError(await post({ 'content-encoding': 'gzip' }, Buffer.from([0x1f, 0x8b, 8, 0])), 415, 'UNSUPPORTED_MEDIA_TYPE', /Content-Encoding gzip/, 'gzip')
  expectError(await post({ 'content-encoding': 'br' }, body), 415, 'UNSUPPORTED_MEDIA_TYPE', /Content-Encoding br/, 'br')
  expectError(await post({}, '{"name":'), 400, 'INVALID_JSON', /JSON/, 'broken JSON')
  expectError(await post({}, ''), 400, 'INVALID_JSON', /empty/, 'an empty JSON body')
  expectError(await post({}, 'x'.repeat(BODY_LIMIT + 1)), 413, 'BODY_TOO_LARGE', /64 KiB|65536/, 'a body over the limit')
  const proto = await post({}, '{"name":"x","__proto__":{"admin":true}}')
  expectError(proto, 400, 'VALIDATION_ERROR', /__proto__/, '__proto__ key')
  t.notMatch(proto.json().message, /not valid JSON/, '__proto__ is named, not called invalid JSON')
  expectError(await post({}, '{"constructor":{"prototype":{"admin":true}}}'), 400, 'VALIDATION_ERROR', /constructor/, 'constructor.prototype')
  for (const charset of ['utf-8', 'UTF-8', 'utf8', '"utf-8"']) {
    t.equal((await post({ 'content-type': `application/json; charset=${charset}` }, body)).statusCode, 400, `charset=${charset} is read (and validated)`)
  }
  t.equal((await post({ 'content-encoding': 'identity' }, body)).statusCode, 400, 'identity is no encoding')
  const unauthenticated = await app.inject({ method: 'POST', url: '/api/services', headers: { 'content-type': 'text/plain' }, payload: 'x' })
  t.equal(unauthenticated.statusCode, 401, 'strangers still get 401 before anything about the body')
  t.equal(await app.store.countServices(), 0, 'no refused body stored anything')
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

test('errors Node answers before Fastify (over a real socket) have the same shape: parser limits, CONNECT, no Host, raw UTF-8', async (t) => {
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

  const connectMethod = await raw(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n')
  t.equal(connectMethod.status, 405, 'CONNECT: 405, not a closed socket')
  assertErrorShape(t, connectMethod.status, connectMethod.headers, connectMethod.body, 'METHOD_NOT_ALLOWED', 'CONNECT')
  t.match(connectMethod.body, /CONNECT/)

  const noHost = await raw(port, 'GET /api/categories HTTP/1.1\r\nConnection: close\r\n\r\n')
  t.equal(noHost.status, 400, 'HTTP/1.1 without Host: 400')
  assertErrorShape(t, noHost.status, noHost.headers, noHost.body, 'BAD_REQUEST', 'no Host')
  t.match(noHost.body, /Host/)
  t.equal((await raw(port, 'GET /api/categories HTTP/1.0\r\n\r\n')).status, 200, 'HTTP/1.0 needs no Host')

  // curl 'http://…/api/services?query=天気' sends the UTF-8 bytes as they are.
  const unencoded = await raw(port, 'GET /api/services?query=天気 HTTP/1.1\r\nHost: x\r\n\r\n')
  t.equal(unencoded.status, 400, 'unencoded UTF-8 in the URL: 400')
  assertErrorShape(t, unencoded.status, unencoded.headers, unencoded.body, 'BAD_URL', 'unencoded UTF-8 in the URL')
  const message = String((JSON.parse(unencoded.body) as { message: unknown }).message)
  t.match(message, /percent-encoded/)
  t.match(message, "curl -G --data-urlencode 'query=天気'", 'shows how to send it with curl')

  const fine = await raw(port, 'GET /api/categories HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
  t.equal(fine.status, 200, 'the server keeps serving')
})
