/**
 * Search: the kuromoji tokenizer (loaded once per process: queries are analysed here, on the
 * API thread), the configured engine (the embedded one ranks in search threads)
 * and, in the embedded topology, the indexer loop inside the API process.
 */
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.js'
import { Indexer } from '../indexer/indexer.js'
import { loadTokenizer, type JapaneseTokenizer } from '../search/analysis/tokenizer.js'
import type { SearchEngine } from '../search/search-engine.js'
import { openSearchEngine } from '../adapters.js'

declare module 'fastify' {
  interface FastifyInstance {
    searchIndex: {
      engine: SearchEngine
      /** Adapter name (/health). */
      engineName: string
      tokenizer: JapaneseTokenizer
      indexer: Indexer
      /** Whether this process runs the indexer loop. */
      embeddedIndexer: boolean
    }
    /** Resolves once every service in the store is searchable (tests, readiness). */
    searchReady: () => Promise<void>
  }
}

export default fp(async function searchPlugin (app: FastifyInstance, opts: { config: Config }) {
  const tokenizer = await loadTokenizer()
  const { engine, name: engineName } = await openSearchEngine(opts.config)
  const indexer = new Indexer({
    store: app.store,
    engine,
    tokenizer,
    logger: app.log.child({ component: 'indexer' }),
    batchSize: opts.config.indexerBatchSize
  })
  const embeddedIndexer = opts.config.indexer === 'embedded'
  app.decorate('searchIndex', { engine, engineName, tokenizer, indexer, embeddedIndexer })
  app.decorate('searchReady', async () => {
    if (embeddedIndexer) await indexer.waitForCatchUp()
    else await indexer.catchUp()
  })
  if (embeddedIndexer) {
    // Index what is there before serving, so a fresh start answers searches at once.
    await indexer.catchUp()
    indexer.start()
  }
  app.addHook('onClose', async () => {
    await indexer.stop()
    await engine.close()
  })
}, { name: 'search', dependencies: ['store'] })
