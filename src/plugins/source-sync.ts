/**
 * Scheduled passes over the operator's sources (docs/sources.md) in the API process, every
 * CATALOG_SOURCE_SYNC_INTERVAL_S (0: never; `npm run catalog -- sources sync` still runs one),
 * with CATALOG_SOURCE_SYNC=embedded (the default); with `external`, `npm run sources` runs them.
 */
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.js'
import { scheduledPasses } from '../sources/scheduled-passes.js'

export default fp(async function sourceSyncPlugin (app: FastifyInstance, opts: { config: Config }) {
  const { config } = opts
  if (config.sourceSyncIntervalS === 0 || config.sourceSync === 'external') return
  const scheduler = scheduledPasses({
    store: app.store,
    config,
    // The API's own client and inference: its per-address cap then covers passes and probes together.
    reader: { readJson: app.prober.fetchOriginDocument, inferCategory: app.inferCategory, readEndpoint: app.prober.read },
    logger: app.log.child({ component: 'source-sync' }),
    afterPass: () => { app.searchIndex.indexer.notify() }
  })
  app.addHook('onReady', async () => { scheduler.start() })
  app.addHook('preClose', async () => { await scheduler.stop() })
}, { name: 'source-sync', dependencies: ['prober', 'category-inference', 'search'] })
