/**
 * Hostile traffic over real sockets: slow clients are cut off, refused bodies are not read.
 * (Protocol edges Node answers on its own, and the bodies the app refuses: test/plugins/http.test.ts.)
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
