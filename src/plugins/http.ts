/**
 * HTTP hygiene shared by every route:
 * - CORS (@fastify/cors) for reads only: any origin may GET/HEAD the public catalog from
 *   a browser. Writes (POST/PUT/PATCH/DELETE) get no CORS headers and preflights allow
 *   only GET and HEAD, so a page on another origin cannot send a key-bearing write;
 *   providers register from servers and CLIs.
 * - `X-Content-Type-Options: nosniff` on every response, errors included.
 * - URLs longer than MAX_URL_LENGTH are answered 414 before routing does any work.
 * - An error answered before the request's body was read (401 without a valid key, 429,
 *   415, 413) closes the connection once the answer is sent: keeping it alive would
 *   make Node read and discard the rest of the body, 50 MB if the client says so.
 * - Bodies are JSON in UTF-8, uncompressed: another charset or any Content-Encoding is a 415
 *   naming it (they were read as UTF-8 and called invalid JSON), and so is text/plain (Fastify
 *   parses it by default). The JSON parser names a `__proto__` or `constructor.prototype` key
 *   instead of calling the body invalid JSON.
 * - Requests Node would answer with a bare 400 or a closed socket get the JSON error shape:
 *   an HTTP/1.1 request without Host, and CONNECT.
 */
import fp from 'fastify-plugin'
import cors, { type FastifyCorsOptions } from '@fastify/cors'
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { BadRequestError, InvalidJsonError, UnsupportedMediaTypeError, UriTooLongError, ValidationError } from '../errors.js'

/** Longest accepted request target (path and query), in characters. */
export const MAX_URL_LENGTH = 8192

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: @fastify/cors adds nothing to this route's answers. */
    cors?: false
  }
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** A body arrives with this request (a declared length above 0, or chunked). */
function hasBody (raw: IncomingMessage): boolean {
  const length = raw.headers['content-length']
  return (length !== undefined && length !== '0') || raw.headers['transfer-encoding'] !== undefined
}

/** Why the catalog cannot read this request's body as sent (charset or encoding), or null. */
export function unreadableBody (headers: IncomingMessage['headers']): string | null {
  const encoding = headers['content-encoding']?.trim().toLowerCase()
  if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
    return `Content-Encoding ${encoding} is not supported: send the body uncompressed`
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(headers['content-type'] ?? '')?.[1]?.toLowerCase()
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    return `charset ${charset} is not supported: send JSON in UTF-8 (Content-Type: application/json; charset=utf-8, or no charset)`
  }
  return null
}

/** The dotted path of a key that could reach an object's prototype once merged or copied, or null. */
function prototypeKey (value: unknown): string | null {
  // A stack, not recursion: nesting depth is the client's to choose.
  const stack: Array<[unknown, string]> = [[value, '']]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, path] = next
    if (typeof item !== 'object' || item === null) continue
    for (const key of Object.keys(item)) {
      const at = path === '' ? key : `${path}.${key}`
      if (key === '__proto__') return at
      const child = (item as Record<string, unknown>)[key]
      if (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype')) return `${at}.prototype`
      stack.push([child, at])
    }
  }
  return null
}

/** Fastify's JSON parser said "not valid JSON" for every failure; this one says which. */
export function parseJsonBody (text: string): unknown {
  // A leading byte-order mark is not part of the JSON.
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  if (json.trim() === '') throw new InvalidJsonError('the body is empty: send a JSON object')
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch (err) {
    throw new InvalidJsonError(`the body is not valid JSON: ${(err as Error).message}`)
  }
  const key = prototypeKey(value)
  if (key !== null) throw new ValidationError(key, `a "${key.endsWith('.prototype') ? 'constructor.prototype' : '__proto__'}" key is not accepted (it could change the prototype of objects); remove it`)
  return value
}

/** CONNECT asks for a tunnel: the catalog is not a proxy. */
const CONNECT_ANSWER = JSON.stringify({ statusCode: 405, code: 'METHOD_NOT_ALLOWED', error: 'Method Not Allowed', message: 'CONNECT is not supported: the catalog is not a proxy' })

/**
 * Answers without reading the rest of the request body: `Connection: close` (so Node does
 * not drain the body to reuse the connection), and the socket is destroyed once the
 * answer is flushed, whatever of the body is still arriving.
 */
function refuseBody (raw: IncomingMessage, reply: FastifyReply): void {
  void reply.header('connection', 'close')
  const socket = raw.socket
  reply.raw.once('finish', () => { socket.destroy() })
}

const READ_CORS: FastifyCorsOptions = {
  origin: '*',
  methods: ['GET', 'HEAD'],
  // Let browser code read the paging total and the rate-limit state.
  exposedHeaders: ['x-total-count', 'retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
  maxAge: 86_400,
  // A bare OPTIONS (no Origin) is not an error worth a text/plain 400.
  strictPreflight: false
}

// The hooks take callbacks, not promises: they run on every request, and a promise apiece
// is measurable on a list answered in a fraction of a millisecond.
export default fp(async function httpPlugin (app: FastifyInstance) {
  app.addHook('onRequest', (request, _reply, done) => {
    done(request.raw.url !== undefined && request.raw.url.length > MAX_URL_LENGTH ? new UriTooLongError(MAX_URL_LENGTH) : undefined)
  })
  // Fixed options (normalized once, not per request), and every route with a write method
  // opts out. Unrouted writes (404s) do get the read headers: they carry no data.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    if (methods.some((method) => !READ_METHODS.has(method))) route.config = { ...route.config, cors: false }
  })
  await app.register(cors, READ_CORS)
  // Node answers a missing Host itself, with a bare 400 (requireHostHeader is off in app.ts).
  app.addHook('onRequest', (request, _reply, done) => {
    done(request.raw.httpVersion === '1.1' && request.headers.host === undefined ? new BadRequestError('an HTTP/1.1 request needs a Host header') : undefined)
  })
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const problem = hasBody(request.raw) ? unreadableBody(request.headers) : null
    if (problem === null) done(null, payload)
    else done(new UnsupportedMediaTypeError(problem))
  })
  app.removeContentTypeParser(['application/json', 'text/plain'])
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string))
    } catch (err) {
      done(err as Error, undefined)
    }
  })
  // Without a listener Node destroys the socket of a CONNECT without a word.
  app.server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => {})
    if (!socket.writable) { socket.destroy(); return }
    socket.once('finish', () => { socket.destroy() })
    socket.end('HTTP/1.1 405 Method Not Allowed\r\nallow: GET, HEAD, POST, PATCH, DELETE, OPTIONS\r\ncontent-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(CONNECT_ANSWER)}\r\nx-content-type-options: nosniff\r\nconnection: close\r\n\r\n${CONNECT_ANSWER}`)
  })
  app.addHook('onSend', (request, reply, payload, done) => {
    void reply.header('x-content-type-options', 'nosniff')
    if (reply.statusCode >= 400 && request.raw.complete === false) refuseBody(request.raw, reply)
    done(null, payload)
  })
}, { name: 'http' })
