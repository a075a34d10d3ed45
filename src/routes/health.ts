/**
 * /health: the state of each dependency. 200 while the store and the search engine
 * answer; 503 when either is unusable. Indexer lag is reported, not judged: a backlog
 * after a bulk load is normal and drains by itself. So is each watched chain's progress:
 * an RPC that is away leaves the usage figures as they were, it does not make the API unfit.
 */
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const State = Type.Union([Type.Literal('ok'), Type.Literal('error')])

const HealthSchema = Type.Object({
  status: State,
  store: Type.Object({
    status: State,
    services: Type.Optional(Type.Integer()),
    message: Type.Optional(Type.String())
  }),
  search: Type.Object({
    status: State,
    engine: Type.String({ description: 'Search engine adapter' }),
    indexer: Type.String({ description: 'embedded (in this process) or external (npm run indexer -- watch)' }),
    documents: Type.Optional(Type.Integer({ description: 'Services in the search index' })),
    checkpoint: Type.Optional(Type.Integer({ description: 'Last change-feed sequence indexed' })),
    lag: Type.Optional(Type.Integer({ description: 'Change-feed distance between the store and the index: an upper bound on the changes not yet indexed' })),
    message: Type.Optional(Type.String())
  }),
  chains: Type.Object({
    watcher: Type.String({ description: 'embedded (in this process) or external (npm run watcher)' }),
    networks: Type.Array(Type.Object({
      network: Type.String({ description: 'CAIP-2 id' }),
      scannedBlock: Type.Union([Type.Integer(), Type.Null()], { description: 'Payments up to this block are counted' }),
      head: Type.Union([Type.Integer(), Type.Null()], { description: "The chain's newest block as last read" }),
      lag: Type.Union([Type.Integer(), Type.Null()], { description: 'head − scannedBlock (the confirmation depth included)' }),
      backfilling: Type.Integer({ description: 'payTos still being scanned from startBlock' }),
      lastError: Type.Union([Type.String(), Type.Null()], { description: "The last failed step's error (external mode: whether this process reaches the RPC)" }),
      lastErrorAt: Type.Union([Type.String(), Type.Null()])
    }), { description: 'One per network CATALOG_CHAINS names; empty when nothing is watched' })
  })
})

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
