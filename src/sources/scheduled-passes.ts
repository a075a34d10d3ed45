/**
 * Scheduled passes over the operator's sources as the API (src/plugins/source-sync.ts) and
 * `npm run sources` (src/cli/source-sync.ts) both run them: one SourceScheduler on the store,
 * timed by the configuration, each pass reading with what it is given.
 */
import type { FastifyBaseLogger } from 'fastify'
import { syncSource, type SyncDeps } from '../application/sync-source.js'
import type { Config } from '../config.js'
import { HttpEndpointProber } from '../prober/endpoint-prober.js'
import { loadTokenizer } from '../search/analysis/tokenizer.js'
import { CategoryInference } from '../search/category-inference.js'
import type { CatalogStore } from '../store/catalog-store.js'
import { SourceScheduler } from './scheduler.js'

/** What a pass reads with: a guarded JSON read and category inference. */
export type PassReader = Pick<SyncDeps, 'readJson' | 'inferCategory' | 'readEndpoint'>

export interface ScheduledPassesOptions {
  store: CatalogStore
  config: Pick<Config, 'sourceSyncIntervalS' | 'sourceFollowIntervalS' | 'probeIntervalS'>
  reader: PassReader
  logger: FastifyBaseLogger
  /** Called after each pass (the API wakes its indexer). */
  afterPass?: () => void
}

/** The reader's parts a pass uses (a reader may carry more, such as close). */
export function pick (reader: PassReader): PassReader {
  return { readJson: reader.readJson, inferCategory: reader.inferCategory, readEndpoint: reader.readEndpoint }
}

export function scheduledPasses (options: ScheduledPassesOptions): SourceScheduler {
  const { store, config, reader, afterPass } = options
  return new SourceScheduler({
    store,
    intervalMs: config.sourceSyncIntervalS * 1000,
    followMs: config.sourceFollowIntervalS * 1000,
    logger: options.logger,
    sync: async (source, signal, syncOptions) => {
      const report = await syncSource({ store, ...pick(reader), probeIntervalMs: config.probeIntervalS * 1000, signal }, source, syncOptions)
      afterPass?.()
      return report
    }
  })
}

/**
 * The reader outside the API: the prober's guarded client as configured (SSRF guard, probe time
 * budget, per-address cap) and category inference on kuromoji, as registration infers it.
 */
export async function openPassReader (config: Pick<Config, 'probeTimeoutMs' | 'probeAllowPrivate' | 'probePerHost'>): Promise<PassReader & { close: () => Promise<void> }> {
  const inference = new CategoryInference(await loadTokenizer())
  const client = new HttpEndpointProber({ timeoutMs: config.probeTimeoutMs, allowPrivate: config.probeAllowPrivate, perAddress: config.probePerHost })
  return {
    readJson: async (url, maxBytes) => await client.fetchOriginDocument(url, maxBytes),
    readEndpoint: async (endpoint, method, options) => await client.read(endpoint, method, options),
    inferCategory: (text) => inference.infer(text),
    close: async () => { await client.close() }
  }
}
