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
 */
import fp from 'fastify-plugin'
import cors, { type FastifyCorsOptions } from '@fastify/cors'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { UriTooLongError } from '../errors.js'

/** Longest accepted request target (path and query), in characters. */
export const MAX_URL_LENGTH = 8192

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: @fastify/cors adds nothing to this route's answers. */
    cors?: false
  }
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

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
  app.addHook('onSend', (request, reply, payload, done) => {
    void reply.header('x-content-type-options', 'nosniff')
    if (reply.statusCode >= 400 && request.raw.complete === false) refuseBody(request.raw, reply)
    done(null, payload)
  })
}, { name: 'http' })
