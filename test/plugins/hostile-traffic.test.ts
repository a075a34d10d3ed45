/**
 * Hostile traffic over real sockets: slow clients are cut off, refused bodies are not read,
 * and the protocol edges Node or Fastify answer on their own get the catalog's JSON errors.
 * Deadlines are generous (conditions, not sleeps), so a loaded machine passes too.
 */
import { connect, type Socket } from 'node:net'
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { API_KEY, build } from '../helper.js'

async function listen (app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  return (app.server.address() as { port: number }).port
}

interface Exchange {
  /** Everything the server sent. */
  received: string
  /** ms from connect until the server closed the connection; null when it was still open at the deadline. */
  closedAfterMs: number | null
}

/**
 * Opens a connection, sends `head`, then whatever `feed` writes, until the server closes the
 * connection or `deadlineMs` passes (then the client closes it).
 */
async function exchange (port: number, head: string, feed: (socket: Socket) => void = () => {}, deadlineMs = 20_000): Promise<Exchange> {
  return await new Promise((resolve) => {
    const started = Date.now()
    let received = ''
    let closedAfterMs: number | null = null
    const socket = connect(port, '127.0.0.1', () => { socket.write(head); feed(socket) })
    const deadline = setTimeout(() => { socket.destroy() }, deadlineMs)
    socket.on('data', (chunk) => { received += chunk.toString('utf8') })
    socket.on('end', () => { closedAfterMs ??= Date.now() - started })
    socket.on('error', () => { closedAfterMs ??= Date.now() - started })
    socket.on('close', () => {
      clearTimeout(deadline)
      resolve({ received, closedAfterMs })
    })
  })
}

/** Writes one byte every `everyMs` while the socket is open. */
function drip (byte: string, everyMs: number) {
  return (socket: Socket): void => {
    const timer = setInterval(() => { if (socket.writable) socket.write(byte) }, everyMs)
    socket.on('close', () => { clearInterval(timer) })
  }
}

function statusOf (received: string): number {
  return Number(received.split(' ')[1])
}

function jsonOf (received: string): Record<string, unknown> {
  return JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>
}

test('a client dripping its request is answered 408 and cut off within the request timeout', async (t) => {
  const app = await build(t, { seed: 'none', requestTimeoutMs: 1000 })
  const port = await listen(app)
  t.equal(app.server.requestTimeout, 1000)
  t.equal(app.server.headersTimeout, 1000, 'headersTimeout does not override the shorter request timeout')

  const cases = {
    'headers, a byte at a time': ['GET /api/categories HTTP/1.1\r\nHost: x\r\nX-Slow: ', drip('a', 250)],
    'a body, a byte at a time': [`POST /api/services HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${API_KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`, drip(' ', 250)],
    'nothing at all after connecting': ['', () => {}]
  } as const
  for (const [what, [head, feed]] of Object.entries(cases)) {
    const { received, closedAfterMs } = await exchange(port, head, feed)
    t.not(closedAfterMs, null, `${what}: the server closed the connection`)
    t.comment(`${what}: closed after ${String(closedAfterMs)} ms (bound 1000 ms + a check interval)`)
    if (received !== '') {
      t.equal(statusOf(received), 408, `${what}: 408`)
      t.match(jsonOf(received), { statusCode: 408, code: 'REQUEST_TIMEOUT' }, `${what}: the usual error shape`)
    }
  }
})

/** Streams `total` bytes of body as fast as the server takes them, while the connection is open. */
function stream (total: number, onWritten: (bytes: number) => void) {
  return (socket: Socket): void => {
    const chunk = Buffer.alloc(64 * 1024, 0x20)
    let written = 0
    const more = (): void => {
      while (written < total && socket.writable) {
        written += chunk.length
        onWritten(written)
        if (!socket.write(chunk)) { socket.once('drain', more); return }
      }
    }
    more()
  }
}

test('a write refused before its body is read is answered at once and the body is not read', async (t) => {
  const app = await build(t, { seed: 'none' })
  const port = await listen(app)
  const serverSockets: Socket[] = []
  app.server.on('connection', (socket: Socket) => { serverSockets.push(socket) })
  const BODY = 50 * 1024 * 1024

  for (const [what, authorization] of [['no key', ''], ['a wrong key', 'Authorization: Bearer wrong-key-0123456789abcdef\r\n']]) {
    let written = 0
    const { received, closedAfterMs } = await exchange(port,
      `POST /api/services HTTP/1.1\r\nHost: x\r\n${authorization}Content-Type: application/json\r\nContent-Length: ${BODY}\r\n\r\n`,
      stream(BODY, (bytes) => { written = bytes }))
    const server = serverSockets.at(-1) as Socket
    t.equal(statusOf(received), 401, `${what}: 401`)
    t.match(received, /\r\nconnection: close\r\n/i, `${what}: the answer says the connection closes`)
    t.match(jsonOf(received), { statusCode: 401, code: 'UNAUTHORIZED' }, `${what}: the usual error`)
    t.not(closedAfterMs, null, `${what}: the server closed the connection`)
    t.ok(server.bytesRead < 5 * 1024 * 1024, `${what}: the server read ${server.bytesRead} bytes, not the 50 MB body`)
    t.comment(`${what}: closed after ${String(closedAfterMs)} ms; client wrote ${written} bytes, server read ${server.bytesRead}`)
  }
})

/** One request on its own connection; the whole answer (the server closes, or the client after `deadlineMs`). */
async function once (port: number, request: string | Buffer, deadlineMs = 5000): Promise<{ status: number, headers: Record<string, string>, body: string }> {
  const { received } = await exchange(port, request as string, (socket) => { socket.end() }, deadlineMs)
  const [head = '', body = ''] = received.split('\r\n\r\n')
  const [statusLine = '', ...lines] = head.split('\r\n')
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
  return { status: Number(statusLine.split(' ')[1]), headers, body }
}

const JSON_ERROR = { statusCode: Number, code: String, error: String, message: String }

/** The body as JSON; {} when it is not (a bare answer fails the shape check, not the test run). */
function parsed (body: string): Record<string, unknown> {
  try {
    return JSON.parse(body) as Record<string, unknown>
  } catch {
    return {}
  }
}

test('protocol edges Node answers by itself get the JSON error shape', async (t) => {
  const app = await build(t, { seed: 'none' })
  const port = await listen(app)

  const connectMethod = await once(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n')
  t.equal(connectMethod.status, 405, 'CONNECT: 405, not a closed socket')
  t.equal(connectMethod.headers['x-content-type-options'], 'nosniff')
  t.match(parsed(connectMethod.body), { ...JSON_ERROR, statusCode: 405, code: 'METHOD_NOT_ALLOWED', message: /CONNECT/ })

  const noHost = await once(port, 'GET /api/categories HTTP/1.1\r\nConnection: close\r\n\r\n')
  t.equal(noHost.status, 400, 'HTTP/1.1 without Host: 400')
  t.match(noHost.headers['content-type'], /^application\/json/)
  t.match(parsed(noHost.body), { ...JSON_ERROR, statusCode: 400, code: 'BAD_REQUEST', message: /Host/ })
  t.equal((await once(port, 'GET /api/categories HTTP/1.0\r\n\r\n')).status, 200, 'HTTP/1.0 needs no Host')

  // curl 'http://…/api/services?query=天気' sends the UTF-8 bytes as they are.
  const raw = await once(port, Buffer.concat([Buffer.from('GET /api/services?query='), Buffer.from('天気', 'utf8'), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]) as unknown as string)
  t.equal(raw.status, 400, 'unencoded UTF-8 in the URL: 400')
  const rawError = parsed(raw.body)
  t.match(rawError, { ...JSON_ERROR, code: 'BAD_URL', message: /percent-encoded/ })
  t.comment(String(rawError.message))
  t.match(String(rawError.message), "curl -G --data-urlencode 'query=天気'", 'shows how to send it with curl')
})

test('bodies: only UTF-8 JSON, unencoded; Fastify codes never reach clients', async (t) => {
  const app = await build(t, { seed: 'none' })
  const post = (headers: Record<string, string>, payload: string | Buffer) => app.inject({
    method: 'POST', url: '/api/services', headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', ...headers }, payload
  })
  const body = JSON.stringify({ name: 'x' })
  const expectError = (res: Awaited<ReturnType<typeof post>>, status: number, code: string, message: RegExp, what: string): void => {
    t.equal(res.statusCode, status, `${what}: ${status}`)
    t.match(res.json(), { ...JSON_ERROR, statusCode: status, code, message }, what)
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
  expectError(await post({}, 'x'.repeat(70 * 1024)), 413, 'BODY_TOO_LARGE', /64 KiB|65536/, 'too large')
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

  // /mcp writes its answers itself (hijacked reply): it sets nosniff there too.
  const mcp = await app.inject({ method: 'POST', url: '/mcp', headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' }, payload: { jsonrpc: '2.0', id: 1, method: 'ping' } })
  t.equal(mcp.statusCode, 200)
  t.equal(mcp.headers['x-content-type-options'], 'nosniff', '/mcp answers carry nosniff')
})
