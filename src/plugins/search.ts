/**
 * Search: the kuromoji tokenizer, the configured engine (the embedded one ranks in search
 * threads), the search application routes call (app.searchServices) and, in the embedded
 * topology, the indexer loop inside the API process. The tokenizer is loaded here, once per
 * process, because the indexer (documents) and the search application (queries) share it.
 */
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.js'
import { Indexer } from '../../indexer/indexer.js'
import { loadTokenizer, type JapaneseTokenizer } from '../search/analysis/tokenizer.js'
import type { SearchEngine } from '../search/search-engine.js'
import { searchServiceJson, searchServices, type ServiceJsonSearchResult, type ServiceSearchRequest, type ServiceSearchResult } from '../search/service-search.js'
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
    /** Searches the catalog: analyzes the text, asks the engine, reads the hits' services from the store. */
    searchServices: (request: ServiceSearchRequest) => Promise<ServiceSearchResult>
    /** searchServices with each hit's service as the JSON text the store keeps (what the search routes send). */
    searchServiceJson: (request: ServiceSearchRequest) => Promise<ServiceJsonSearchResult>
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
  const deps = { engine, store: app.store, tokenizer }
  app.decorate('searchServices', async (request: ServiceSearchRequest) => await searchServices(deps, request))
  app.decorate('searchServiceJson', async (request: ServiceSearchRequest) => await searchServiceJson(deps, request))
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
