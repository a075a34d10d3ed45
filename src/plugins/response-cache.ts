/**
 * Serialized responses of read routes, reused while what they were built from is unchanged.
 *
 * Reads far outnumber writes in a catalog. Every write advances the store's change
 * sequence (also when another process writes), and every indexed change advances the
 * search engine's version. A route opts in with `config.cache`: 'store' answers are valid
 * while the store's sequence is unchanged, 'search' answers while both the sequence and
 * the index version are. The check runs on every request, so a registration is visible
 * on the very next request that can see it.
 */
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Cache this GET route's 200 responses, keyed by URL, while what they depend on is unchanged. */
    cache?: 'store' | 'search'
  }
  interface FastifyRequest {
    /** What this request's answer was built from, when its route is cached. */
    cacheToken?: string
  }
}

interface Entry {
  token: string
  payload: string
  headers: Record<string, string>
}

/** Headers a cached answer must repeat. */
const KEPT_HEADERS = ['content-type', 'x-total-count']

export default fp(async function responseCache (app: FastifyInstance, opts: { maxEntries: number }) {
  const { maxEntries } = opts
  // A Map keeps insertion order: re-inserting on a hit makes it a small LRU.
  const entries = new Map<string, Entry>()

  async function tokenFor (request: FastifyRequest): Promise<string | undefined> {
    const kind = request.routeOptions.config.cache
    if (request.method !== 'GET' || kind === undefined) return undefined
    const seq = await app.store.latestSeq()
    return kind === 'store' ? String(seq) : `${seq}/${await app.searchIndex.engine.version()}`
  }

  app.addHook('onRequest', async (request, reply) => {
    const token = await tokenFor(request)
    if (token === undefined) return
    request.cacheToken = token
    const entry = entries.get(request.url)
    if (entry === undefined || entry.token !== token) return
    entries.delete(request.url)
    entries.set(request.url, entry)
    void reply.headers(entry.headers).header('x-cache', 'hit')
    return await reply.send(entry.payload)
  })

  app.addHook('onSend', async (request, reply, payload) => {
    if (request.cacheToken === undefined || reply.statusCode !== 200 || typeof payload !== 'string' || reply.getHeader('x-cache') === 'hit') return payload
    const headers: Record<string, string> = {}
    for (const name of KEPT_HEADERS) {
      const value = reply.getHeader(name)
      if (value !== undefined) headers[name] = String(value)
    }
    entries.delete(request.url)
    entries.set(request.url, { token: request.cacheToken, payload, headers })
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string)
    return payload
  })
}, { name: 'response-cache', dependencies: ['store'] })
