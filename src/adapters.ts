/**
 * The composition root: the one place that knows which adapters exist. The API (store and
 * search plugins), the indexer CLI, the keys CLI and the benchmarks open the configured
 * store and engine here (CATALOG_STORE, CATALOG_SEARCH; see src/config.ts).
 */
import type { Config } from './config.js'
import type { SearchEngine } from './search/search-engine.js'
import { EmbeddedSearchEngine } from './search/embedded/engine.js'
import type { CatalogStore } from './store/catalog-store.js'
import { SqliteCatalogStore } from './store/sqlite/store.js'

// The MongoDB and Meilisearch adapters are imported only when configured: their drivers
// cost ~25 MB of RSS in every process that never talks to them.

/** Opens the configured store; an unreachable server fails with one line naming it and its variable. */
export async function openCatalogStore (config: Pick<Config, 'dataDir' | 'store'> & Partial<Pick<Config, 'listThread'>>): Promise<CatalogStore> {
  switch (config.store.kind) {
    case 'sqlite': return new SqliteCatalogStore(config.dataDir, { listThread: config.listThread ?? true })
    case 'mongodb': {
      const { MongoCatalogStore } = await import('./store/mongodb/mongo-store.js')
      return await MongoCatalogStore.open(config.store.url)
    }
  }
}

export interface OpenedEngine {
  engine: SearchEngine
  /** Shown by /health and `indexer status`. */
  name: string
}

/** Opens the configured search engine (and, for Meilisearch, applies the index settings). */
export async function openSearchEngine (config: Pick<Config, 'dataDir' | 'search' | 'searchThreads'>, options: { threads?: number } = {}): Promise<OpenedEngine> {
  switch (config.search.kind) {
    case 'sqlite':
      return { engine: new EmbeddedSearchEngine(config.dataDir, { threads: options.threads ?? config.searchThreads }), name: 'sqlite' }
    case 'meilisearch': {
      const { MeilisearchEngine } = await import('./search/meilisearch/meili-engine.js')
      return {
        engine: await MeilisearchEngine.open({ url: config.search.url, apiKey: config.search.apiKey, searchKey: config.search.searchKey, indexUid: config.search.indexUid }),
        name: 'meilisearch'
      }
    }
  }
}
