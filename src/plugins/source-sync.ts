/**
 * Scheduled passes over the operator's sources (docs/sources.md) in the API process, every
 * CATALOG_SOURCE_SYNC_INTERVAL_S (0: never; `npm run catalog -- sources sync` still runs one).
 */
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.js'
import { syncSource } from '../application/sync-source.js'
import { SourceScheduler } from '../sources/scheduler.js'

export default fp(async function sourceSyncPlugin (app: FastifyInstance, opts: { config: Config }) {
  const intervalMs = opts.config.sourceSyncIntervalS * 1000
  if (intervalMs === 0) return
  const scheduler = new SourceScheduler({
    store: app.store,
    intervalMs,
    logger: app.log.child({ component: 'source-sync' }),
    sync: async (source, signal) => {
      const report = await syncSource({ store: app.store, readJson: app.prober.fetchOriginDocument, inferCategory: app.inferCategory, signal }, source)
      app.searchIndex.indexer.notify()
      return report
    }
  })
  app.addHook('onReady', async () => { scheduler.start() })
  app.addHook('preClose', async () => { await scheduler.stop() })
}, { name: 'source-sync', dependencies: ['prober', 'category-inference', 'search'] })
