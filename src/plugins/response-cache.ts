/**
 * Serialized responses of read routes, reused while what they were built from is unchanged.
 *
 * Reads far outnumber writes in a catalog, and a write changes little: validity follows
 * what changed (src/plugins/catalog-changes.ts follows the change feed). A route opts in
 * with `config.cache`: 'service' answers (one service's detail, keyed by its `:id`) stay
 * valid while that service is unchanged, so a registration leaves every other detail page
 * cached; 'store' answers (lists, categories) while nothing in the catalog changed;
 * 'search' answers while neither the catalog nor the search index changed. How fresh the
 * followed versions are is the follower's mode: exact per request for the embedded
 * topology, within CATALOG_CHANGE_FOLLOW_MS for another process's writes in the scaled one.
 *
 * The key is the route plus its validated query and params (after coercion and defaults,
 * keys sorted), not the raw URL: `offset=0`, `offset=00` and no offset are one entry, so
 * spelling variants cannot multiply entries. The cache is an LRU bounded in bytes.
 */
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Cache this GET route's 200 responses, keyed by its validated query and params, while what they depend on is unchanged. */
    cache?: CacheKind | ((request: FastifyRequest) => CacheKind)
  }
  interface FastifyRequest {
    /** What this request's answer was built from, when its route is cached. */
    cacheToken?: string
    cacheKey?: string
  }
  interface FastifyInstance {
    responseCache: { stats: () => ResponseCacheStats }
  }
}

export type CacheKind = 'service' | 'store' | 'search'

export interface ResponseCacheStats {
  entries: number
  /** Accounted size of every entry: payload bytes, key and headers (UTF-16, 2 bytes a unit) and a fixed overhead. */
  bytes: number
  maxBytes: number
}

interface Entry {
  token: string
  payload: Buffer
  headers: Record<string, string>
  size: number
}

/** Headers a cached answer must repeat. */
const KEPT_HEADERS = ['content-type', 'x-total-count']
/** Map slot, entry object, header object: a rough per-entry cost beyond the measured strings. */
const ENTRY_OVERHEAD = 256

/**
 * An answer's bytes in memory of their own, as the cache keeps them. A small Buffer.from is a
 * slice of Node's shared 8 KiB pool, and a search answer a slice of a buffer sized for its
 * worst case: kept as they are, each would hold all that memory while counted at its length.
 */
export function ownBytes (payload: string | Buffer): Buffer {
  if (typeof payload !== 'string' && payload.byteOffset === 0 && payload.byteLength === payload.buffer.byteLength) return payload
  const size = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.byteLength
  const own = Buffer.allocUnsafeSlow(size)
  if (typeof payload === 'string') own.write(payload)
  else own.set(payload)
  return own
}

/** JSON with object keys sorted at every level, so equal values give equal text. */
export function canonicalJson (value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

const textBytes = (text: string): number => text.length * 2

export default fp(async function responseCache (app: FastifyInstance, opts: { maxBytes: number }) {
  const { maxBytes } = opts
  // A Map keeps insertion order: re-inserting on a hit makes it an LRU.
  const entries = new Map<string, Entry>()
  let bytes = 0

  function remove (key: string): void {
    const entry = entries.get(key)
    if (entry === undefined) return
    entries.delete(key)
    bytes -= entry.size
  }

  app.decorate('responseCache', { stats: () => ({ entries: entries.size, bytes, maxBytes }) })

  // preHandler: the query and params are validated and coerced by now.
  app.addHook('preHandler', async (request: FastifyRequest, reply) => {
    const cache = request.routeOptions.config.cache
    if (request.method !== 'GET' || cache === undefined) return
    const kind = typeof cache === 'function' ? cache(request) : cache
    const changes = app.catalogChanges
    await changes.sync(kind === 'search')
    const token = kind === 'service'
      ? changes.serviceToken((request.params as { id: string }).id)
      : kind === 'store' ? changes.catalogToken() : changes.searchToken()
    const key = `${request.routeOptions.url ?? ''}\n${canonicalJson(request.query)}\n${canonicalJson(request.params)}`
    request.cacheToken = token
    request.cacheKey = key
    const entry = entries.get(key)
    if (entry === undefined || entry.token !== token) return
    entries.delete(key)
    entries.set(key, entry)
    void reply.headers(entry.headers).header('x-cache', 'hit')
    return await reply.send(entry.payload)
  })

  app.addHook('onSend', async (request, reply, payload) => {
    const { cacheToken: token, cacheKey: key } = request
    // Serialized answers are text; a list page comes from the store as bytes.
    if (token === undefined || key === undefined || reply.statusCode !== 200 || reply.getHeader('x-cache') === 'hit') return payload
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload
    const headers: Record<string, string> = {}
    let size = ENTRY_OVERHEAD + textBytes(key) + textBytes(token)
    for (const name of KEPT_HEADERS) {
      const value = reply.getHeader(name)
      if (value === undefined) continue
      headers[name] = String(value)
      size += textBytes(name) + textBytes(headers[name])
    }
    const body = ownBytes(payload)
    size += body.byteLength
    remove(key)
    // An answer larger than the whole budget would only evict everything else.
    if (size > maxBytes) return payload
    entries.set(key, { token, payload: body, headers, size })
    bytes += size
    for (const oldest of entries.keys()) {
      if (bytes <= maxBytes) break
      remove(oldest)
    }
    return payload
  })
}, { name: 'response-cache', dependencies: ['catalog-changes'] })
