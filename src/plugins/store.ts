/**
 * Opens the catalog store for the app's lifetime and loads the demo catalog into a
 * fresh one (unless CATALOG_SEED=none).
 */
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.js'
import { readSeedFile, seedRecords } from '../domain/seed.js'
import { DEFAULT_SORT } from '../domain/service-query.js'
import type { CatalogStore } from '../store/catalog-store.js'
import { openCatalogStore } from '../adapters.js'

declare module 'fastify' {
  interface FastifyInstance {
    store: CatalogStore
  }
}

export async function openStore (config: Config): Promise<CatalogStore> {
  const store = await openCatalogStore(config)
  try {
    // Only a store that never held a service is seeded: one emptied by deletions stays empty.
    if (config.seed !== 'none' && await store.latestSeq() === 0) {
      await store.insertServices(seedRecords(readSeedFile(config.seed), new Date().toISOString()))
    }
  } catch (err) {
    await store.close()
    throw err
  }
  return store
}

export default fp(async function storePlugin (app: FastifyInstance, opts: { config: Config }) {
  const store = await openStore(opts.config)
  // A first list before the server listens: the SQLite store builds its list index then
  // (~1 s at 100k services) rather than on a client's first request.
  await store.listServices({}, DEFAULT_SORT, { limit: 1, offset: 0 })
  app.decorate('store', store)
  app.addHook('onClose', async () => { await store.close() })
}, { name: 'store' })
