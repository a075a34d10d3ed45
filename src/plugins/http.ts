/**
 * HTTP hygiene shared by every route:
 * - CORS (@fastify/cors) for reads only: any origin may GET/HEAD the public catalog from
 *   a browser. Writes (POST/PUT/PATCH/DELETE) get no CORS headers and preflights allow
 *   only GET and HEAD, so a page on another origin cannot send a key-bearing write;
 *   providers register from servers and CLIs.
 * - `X-Content-Type-Options: nosniff` on every response, errors included.
 * - URLs longer than MAX_URL_LENGTH are answered 414 before routing does any work.
 */
import fp from 'fastify-plugin'
import cors, { type FastifyCorsOptions } from '@fastify/cors'
import type { FastifyInstance } from 'fastify'
import { UriTooLongError } from '../errors.js'

/** Longest accepted request target (path and query), in characters. */
export const MAX_URL_LENGTH = 8192

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

const READ_CORS: FastifyCorsOptions = {
  origin: '*',
  methods: ['GET', 'HEAD'],
  // Let browser code read the paging total and the rate-limit state.
  exposedHeaders: ['x-total-count', 'retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
  maxAge: 86_400,
  // A bare OPTIONS (no Origin) is not an error worth a text/plain 400.
  strictPreflight: false
}

export default fp(async function httpPlugin (app: FastifyInstance) {
  app.addHook('onRequest', async (request) => {
    if (request.raw.url !== undefined && request.raw.url.length > MAX_URL_LENGTH) throw new UriTooLongError(MAX_URL_LENGTH)
  })
  await app.register(cors, {
    delegator: (request, callback) => {
      callback(null, READ_METHODS.has(request.method) ? READ_CORS : { origin: false })
    }
  })
  app.addHook('onSend', async (_request, reply, payload) => {
    void reply.header('x-content-type-options', 'nosniff')
    return payload
  })
}, { name: 'http' })
