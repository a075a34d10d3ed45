/**
 * Bearer API keys through @fastify/bearer-auth (`addHook: false`: routes opt in with
 * `onRequest: app.authenticate`; `rfc6749`: the scheme is matched case-insensitively).
 * Bootstrap keys come from CATALOG_API_KEYS, operator keys from the store (npm run keys):
 * the plugin's async `auth` hashes the key and looks it up. Only hashes are compared, in
 * constant time; keys are never logged.
 *
 * Failed authentications are counted per client IP (CATALOG_RATE_LIMIT_AUTH_FAILURES per
 * window): the write limiter counts per key owner, so it runs after authentication and never
 * saw a wrong key. Past the budget every authentication from that address, a good key's
 * included, is a 429 until the window ends, answered before any hash or store look-up.
 */
import fp from 'fastify-plugin'
import bearerAuth from '@fastify/bearer-auth'
import { normalizeIP } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { bootstrapOwnerId, hashApiKey, sameHash } from '../domain/api-keys.js'
import { RateLimitedError, UnauthorizedError } from '../errors.js'

declare module 'fastify' {
  interface FastifyInstance {
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
  }
  interface FastifyRequest {
    /** Owner id of the API key that authenticated this request. */
    ownerId: string | null
  }
}

export interface AuthOptions {
  apiKeys: readonly string[]
  /** Failed authentications allowed per client IP per window; undefined: not limited. */
  failureLimit?: { max: number, windowMs: number }
}

/** Addresses tracked at once; past it the oldest window is forgotten (bounds memory under a spray of addresses). */
export const MAX_TRACKED_ADDRESSES = 100_000

/** Fixed-window counts of failed authentications per address. */
export class FailureCounter {
  readonly #windows = new Map<string, { count: number, resetAt: number }>()

  constructor (readonly max: number, readonly windowMs: number) {}

  /** Seconds until `address` may try again; 0 when it may now. */
  retryAfter (address: string, now: number): number {
    const window = this.#windows.get(address)
    if (window === undefined) return 0
    if (window.resetAt <= now) {
      this.#windows.delete(address)
      return 0
    }
    return window.count >= this.max ? Math.ceil((window.resetAt - now) / 1000) : 0
  }

  record (address: string, now: number): void {
    const window = this.#windows.get(address)
    if (window !== undefined && window.resetAt > now) {
      window.count++
      return
    }
    this.#windows.delete(address)
    if (this.#windows.size >= MAX_TRACKED_ADDRESSES) this.#windows.delete(this.#windows.keys().next().value as string)
    this.#windows.set(address, { count: 1, resetAt: now + this.windowMs })
  }
}

/** The owner id of a key, or null when no active key has its hash. */
async function ownerOfKey (app: FastifyInstance, bootstrapHashes: readonly string[], key: string): Promise<string | null> {
  const hash = hashApiKey(key)
  // Visit every bootstrap hash so timing does not reveal which one matched.
  let bootstrapMatch: string | null = null
  for (const candidate of bootstrapHashes) {
    if (sameHash(candidate, hash)) bootstrapMatch = candidate
  }
  if (bootstrapMatch !== null) return bootstrapOwnerId(bootstrapMatch)
  const stored = await app.store.findActiveApiKeyByHash(hash)
  return stored === null || !sameHash(stored.hash, hash) ? null : stored.id
}

/** Set on a request whose key the lookup refused, to tell "wrong key" from "no Bearer header". */
const KEY_REFUSED = Symbol('keyRefused')

export default fp(async function authPlugin (app: FastifyInstance, opts: AuthOptions) {
  const bootstrapHashes = opts.apiKeys.map(hashApiKey)
  const failures = opts.failureLimit === undefined ? undefined : new FailureCounter(opts.failureLimit.max, opts.failureLimit.windowMs)
  app.decorateRequest('ownerId', null)
  await app.register(bearerAuth, {
    addHook: false,
    keys: [],
    specCompliance: 'rfc6749',
    // 401s are answered and logged as every other error is.
    verifyErrorLogLevel: null as unknown as string,
    auth: async (key: string, request: FastifyRequest) => {
      const ownerId = await ownerOfKey(app, bootstrapHashes, key)
      if (ownerId === null) (request as FastifyRequest & { [KEY_REFUSED]?: true })[KEY_REFUSED] = true
      else request.ownerId = ownerId
      return ownerId !== null
    }
  })
  const verify = app.verifyBearerAuth as NonNullable<typeof app.verifyBearerAuth>

  app.decorate('authenticate', async function authenticate (request: FastifyRequest, reply: FastifyReply) {
    const address = normalizeIP(request.ip)
    const wait = failures?.retryAfter(address, Date.now()) ?? 0
    if (wait > 0) {
      void reply.header('retry-after', String(wait))
      throw new RateLimitedError(`too many failed authentications from this address (at most ${failures?.max ?? 0} per ${(failures?.windowMs ?? 0) / 1000} s); retry in ${wait} seconds`)
    }
    const refuse = (message: string): UnauthorizedError => {
      failures?.record(address, Date.now())
      return new UnauthorizedError(message)
    }
    const failed = await new Promise<Error | undefined>((resolve) => { verify(request, reply, resolve) })
    if (failed === undefined) return
    // The lookup failing (a store that is down) is its own error, not a refusal.
    if (reply.statusCode !== 401) throw failed
    throw refuse((request as FastifyRequest & { [KEY_REFUSED]?: true })[KEY_REFUSED] === true ? 'invalid or revoked API key' : 'Authorization: Bearer <api key> is required')
  })
}, { name: 'auth', dependencies: ['store'] })
