/**
 * Opens the catalog store for the app's lifetime and loads the demo catalog into a
 * fresh one (unless CATALOG_SEED=none).
 */
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.js'
import { loadSeed } from '../domain/seed.js'
import { DEFAULT_SORT } from '../domain/service-query.js'
import type { CatalogStore } from '../store/catalog-store.js'
import { openCatalogStore } from '../adapters.js'

declare module 'fastify' {
  interface FastifyInstance {
    store: CatalogStore
  }
}

export async function openStore (config: Config): Promise<CatalogStore> {
  // Read and checked before the store is opened, at every start: a bad CATALOG_SEED stops the
  // start with one line (SeedError) and leaves no empty store behind to mask it next time.
  const seed = config.seed === 'none' ? [] : loadSeed(config.seed, new Date().toISOString())
  const store = await openCatalogStore(config)
  try {
    // Only a store that never held a service is seeded: one emptied by deletions stays empty.
    if (seed.length > 0 && await store.latestSeq() === 0) await store.insertServices(seed)
  } catch (err) {
    await store.close()
    throw err
  }
  return store
}

export default fp(async function storePlugin (app: FastifyInstance, opts: { config: Config }) {
  const store = await openStore(opts.config)
  app.decorate('store', store)
  let closing = false
  app.addHook('onClose', async () => {
    closing = true
    await store.close()
  })
  // The first list builds the SQLite store's list index (~1 s at 100k services), after starting
  // its thread. It is done as soon as the server listens, so a client's first list waits for no
  // more than the rest of it; not during start, where it bought nothing to an app that never
  // lists and, with a thread to boot on a busy machine, took seconds.
  app.addHook('onListen', async () => {
    try {
      await store.listServices({}, DEFAULT_SORT, { limit: 1, offset: 0 })
    } catch (err) {
      if (!closing) app.log.warn({ err }, 'warming the list index failed; the first list will build it')
    }
  })
}, { name: 'store' })
