/**
 * Serialized responses of read routes, reused while the catalog has not changed.
 *
 * Reads far outnumber writes in a catalog, and every write advances the store's change
 * sequence (also when another process writes). A route opts in with `config.cache`; an
 * entry is served only if the sequence it was built at is still the latest, so a
 * registration is visible on the very next request. Search routes do not opt in: their
 * answers follow the search index, not the store.
 */
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Cache this GET route's 200 responses, keyed by URL, until the store changes. */
    cache?: boolean
  }
  interface FastifyRequest {
    /** Store sequence this request was answered at, when its route is cached. */
    cacheSeq?: number
  }
}

interface Entry {
  seq: number
  payload: string
  headers: Record<string, string>
}

/** Headers a cached answer must repeat. */
const KEPT_HEADERS = ['content-type', 'x-total-count']

export default fp(async function responseCache (app: FastifyInstance, opts: { maxEntries: number }) {
  const { maxEntries } = opts
  // A Map keeps insertion order: re-inserting on a hit makes it a small LRU.
  const entries = new Map<string, Entry>()

  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'GET' || request.routeOptions.config.cache !== true) return
    const seq = await app.store.latestSeq()
    request.cacheSeq = seq
    const entry = entries.get(request.url)
    if (entry === undefined || entry.seq !== seq) return
    entries.delete(request.url)
    entries.set(request.url, entry)
    void reply.headers(entry.headers).header('x-cache', 'hit')
    return await reply.send(entry.payload)
  })

  app.addHook('onSend', async (request, reply, payload) => {
    if (request.cacheSeq === undefined || reply.statusCode !== 200 || typeof payload !== 'string' || reply.getHeader('x-cache') === 'hit') return payload
    const headers: Record<string, string> = {}
    for (const name of KEPT_HEADERS) {
      const value = reply.getHeader(name)
      if (value !== undefined) headers[name] = String(value)
    }
    entries.delete(request.url)
    entries.set(request.url, { seq: request.cacheSeq, payload, headers })
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string)
    return payload
  })
}, { name: 'response-cache', dependencies: ['store'] })
