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
 * - a route that stands for several (/mcp: one POST carries tool calls) opts out with
 *   `config.rateLimit: false` and spends `app.budgets.spend(request, budget)` per call. Every
 *   budget keeps its counters in one store, so an MCP search and an HTTP intent search from
 *   one address spend the same budget.
 * Failed authentications are counted by app.authenticate itself (src/plugins/auth.ts).
 * Over the limit: 429 with Retry-After and the usual error body. CATALOG_RATE_LIMIT=0
 * registers nothing, so `config.rateLimit` on routes is then inert.
 *
 * Clients are told apart by the socket's address: behind a reverse proxy every client
 * would share the proxy's address (trustProxy is not enabled).
 */
import { createRequire } from 'node:module'
import fp from 'fastify-plugin'
import rateLimit, { normalizeIP, type FastifyRateLimitStore, type FastifyRateLimitStoreCtor, type RateLimitOptions } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { RateLimitConfig } from '../config.js'
import { RateLimitedError } from '../errors.js'

/** The per-IP budgets a request can spend: reads, intent searches (costly), keyword searches. */
export type Budget = 'read' | 'costly' | 'search'

/** What spending one unit left: the headers a limited route sends, and the 429 to throw when over. */
export interface Spent { headers: Record<string, string>, error: RateLimitedError | null }

declare module 'fastify' {
  interface FastifyInstance {
    /** Route-level overrides for `config.rateLimit`. */
    rateLimits: { costly: RateLimitOptions, search: RateLimitOptions }
    /** Spends one unit of a budget for `request`'s client (always allowed when limits are off). */
    budgets: { spend: (request: FastifyRequest, budget: Budget) => Promise<Spent> }
  }
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
/** Clients counted at once across every budget (the limiter's LRU; the oldest are forgotten first). */
const COUNTED_CLIENTS = 20_000

const ipKey = (request: FastifyRequest): string => `ip:${normalizeIP(request.ip)}`

/** @fastify/rate-limit's own in-memory store: the package declares no types for it, hence require. */
const LocalStore = createRequire(import.meta.url)('@fastify/rate-limit/store/LocalStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean, cache: number) => FastifyRateLimitStore

/**
 * One LocalStore for every route and spender: the plugin gives each route with its own
 * options a child store, which would keep an MCP search apart from an HTTP one. Keys name
 * their budget (`costly:ip:…`), so sharing the counters mixes nothing.
 */
function sharedStore (): FastifyRateLimitStoreCtor {
  const store = new LocalStore(false, false, COUNTED_CLIENTS)
  store.child = () => store
  return function SharedStore () { return store } as unknown as FastifyRateLimitStoreCtor
}

function defaultKey (request: FastifyRequest): string {
  if (!WRITE_METHODS.has(request.method)) return ipKey(request)
  // ownerId is set by a route's `onRequest: app.authenticate`, which runs before this limiter.
  return request.ownerId == null ? `write-ip:${normalizeIP(request.ip)}` : `write-owner:${request.ownerId}`
}

export default fp(async function rateLimitPlugin (app: FastifyInstance, opts: { config: RateLimitConfig }) {
  const { enabled, windowMs, reads, writes, intentSearches, searches } = opts.config
  const limits: Record<Budget, RateLimitOptions> = {
    read: { max: reads, timeWindow: windowMs, keyGenerator: ipKey },
    costly: { max: intentSearches, timeWindow: windowMs, keyGenerator: (request: FastifyRequest) => `costly:${ipKey(request)}` },
    search: { max: searches, timeWindow: windowMs, keyGenerator: (request: FastifyRequest) => `search:${ipKey(request)}` }
  }
  app.decorate('rateLimits', { costly: limits.costly, search: limits.search })
  if (!enabled) {
    app.decorate('budgets', { spend: async (): Promise<Spent> => ({ headers: {}, error: null }) })
    return
  }
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    timeWindow: windowMs,
    store: sharedStore(),
    keyGenerator: defaultKey,
    max: async (_request, key) => (key.startsWith('write') ? writes : reads),
    errorResponseBuilder: (_request, context) => new RateLimitedError(`too many requests (at most ${context.max} per ${windowMs / 1000} s); retry in ${context.after}`)
  })
  const spenders = {
    read: app.createRateLimit(limits.read),
    costly: app.createRateLimit(limits.costly),
    search: app.createRateLimit(limits.search)
  }
  app.decorate('budgets', {
    spend: async (request: FastifyRequest, budget: Budget): Promise<Spent> => {
      const spent = await spenders[budget](request)
      if (spent.isAllowed) return { headers: {}, error: null }
      const headers = { 'x-ratelimit-limit': String(spent.max), 'x-ratelimit-remaining': String(spent.remaining), 'x-ratelimit-reset': String(spent.ttlInSeconds) }
      if (!spent.isExceeded) return { headers, error: null }
      const what = budget === 'read' ? 'reads' : budget === 'costly' ? 'intent searches' : 'searches'
      return {
        headers: { ...headers, 'retry-after': String(spent.ttlInSeconds) },
        error: new RateLimitedError(`too many requests (at most ${spent.max} ${what} per ${windowMs / 1000} s); retry in ${spent.ttlInSeconds} s`)
      }
    }
  })
}, { name: 'rate-limit' })
