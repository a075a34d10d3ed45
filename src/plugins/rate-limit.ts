/**
 * Rate limits (@fastify/rate-limit), one global default plus per-route overrides:
 * - reads: per client IP (`CATALOG_RATE_LIMIT_READS` per window), every route including
 *   unknown ones (404s) and routes added later, unless the route says otherwise;
 * - writes (POST/PUT/PATCH/DELETE): per authenticated API key owner
 *   (`CATALOG_RATE_LIMIT_WRITES`). The limiter runs in onRequest after a route's own
 *   `onRequest: app.authenticate`, so the owner id is known; a write route that
 *   authenticates later is limited per IP at the write rate instead;
 * - costly routes (intent search, kuromoji analysis) opt into `app.rateLimits.costly`
 *   through `config.rateLimit`: a stricter per-IP limit (`CATALOG_RATE_LIMIT_INTENT`);
 * - keyword search (`/api/catalog/search`) opts into `app.rateLimits.search`: a per-IP budget
 *   of its own (`CATALOG_RATE_LIMIT_SEARCH`), because the search page asks on every typed
 *   word (about ten requests per query) and would otherwise spend the reads its detail
 *   views need;
 * - a POST that only reads (`config.limitAs: 'read'`, /mcp) counts as a read per IP.
 * Failed authentications are counted by app.authenticate itself (src/plugins/auth.ts).
 * Over the limit: 429 with Retry-After and the usual error body. CATALOG_RATE_LIMIT=0
 * registers nothing, so `config.rateLimit` on routes is then inert.
 *
 * Clients are told apart by the socket's address: behind a reverse proxy every client
 * would share the proxy's address (trustProxy is not enabled).
 */
import fp from 'fastify-plugin'
import rateLimit, { normalizeIP, type RateLimitOptions } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { RateLimitConfig } from '../config.js'
import { RateLimitedError } from '../errors.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Route-level overrides for `config.rateLimit`. */
    rateLimits: { costly: RateLimitOptions, search: RateLimitOptions }
  }
  interface FastifyContextConfig {
    /** 'read': a POST route that changes nothing (MCP) is limited as a read, per client IP. */
    limitAs?: 'read'
  }
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

const ipKey = (request: FastifyRequest): string => `ip:${normalizeIP(request.ip)}`

function defaultKey (request: FastifyRequest): string {
  if (!WRITE_METHODS.has(request.method) || request.routeOptions.config.limitAs === 'read') return ipKey(request)
  // ownerId is set by a route's `onRequest: app.authenticate`, which runs before this limiter.
  return request.ownerId == null ? `write-ip:${normalizeIP(request.ip)}` : `write-owner:${request.ownerId}`
}

export default fp(async function rateLimitPlugin (app: FastifyInstance, opts: { config: RateLimitConfig }) {
  const { enabled, windowMs, reads, writes, intentSearches, searches } = opts.config
  app.decorate('rateLimits', {
    costly: { max: intentSearches, timeWindow: windowMs, keyGenerator: (request: FastifyRequest) => `costly:${ipKey(request)}` },
    search: { max: searches, timeWindow: windowMs, keyGenerator: (request: FastifyRequest) => `search:${ipKey(request)}` }
  })
  if (!enabled) return
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    timeWindow: windowMs,
    keyGenerator: defaultKey,
    max: async (_request, key) => (key.startsWith('write') ? writes : reads),
    errorResponseBuilder: (_request, context) => new RateLimitedError(`too many requests (at most ${context.max} per ${windowMs / 1000} s); retry in ${context.after}`)
  })
}, { name: 'rate-limit' })
