/**
 * /health: the state of each dependency. 200 while the store and the search engine
 * answer; 503 when either is unusable. Indexer lag is reported, not judged: a backlog
 * after a bulk load is normal and drains by itself. So is each watched chain's progress:
 * an RPC that is away leaves the usage figures as they were, it does not make the API unfit.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { HealthSchema } from './schemas/health.js'

const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    schema: { tags: ['health'], summary: 'State of each dependency', response: { 200: HealthSchema, 503: HealthSchema } }
  }, async (_request, reply) => {
    const store = await (async () => {
      try {
        await app.store.ping()
        return { status: 'ok' as const, services: await app.store.countServices() }
      } catch (err) {
        return { status: 'error' as const, message: (err as Error).message }
      }
    })()
    const base = { engine: app.searchIndex.engineName, indexer: app.searchIndex.embeddedIndexer ? 'embedded' : 'external' }
    const search = await (async () => {
      try {
        const stats = await app.searchIndex.engine.stats()
        // Lag against the followed feed head: no store read of its own (see catalog-changes.ts).
        if (store.status === 'ok') await app.catalogChanges.sync(false)
        const lag = store.status === 'ok' ? Math.max(0, app.catalogChanges.seq - stats.checkpoint) : undefined
        return { status: 'ok' as const, ...base, documents: stats.documents, checkpoint: stats.checkpoint, ...(lag === undefined ? {} : { lag }) }
      } catch (err) {
        return { status: 'error' as const, ...base, message: (err as Error).message }
      }
    })()
    const chains = { watcher: app.chainWatcher.mode, networks: await app.chainWatcher.statuses() }
    const healthy = store.status === 'ok' && search.status === 'ok'
    return await reply.code(healthy ? 200 : 503).send({ status: healthy ? 'ok' : 'error', store, search, chains })
  })
}

export default healthRoutes
