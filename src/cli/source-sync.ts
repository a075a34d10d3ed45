/**
 * Scheduled source passes as their own process (npm run sources), for the scaled topology: run
 * the API with CATALOG_SOURCE_SYNC=external. The store's `source-sync` lease makes sure exactly
 * one process passes over a store's sources, so a second one (or one next to an API that runs
 * passes itself) waits and takes over when the holder stops or dies.
 *
 * `npm run sources -- check` only checks that the store answers (exit 0) and stops: the compose
 * health check.
 */
import closeWithGrace from 'close-with-grace'
import { pino } from 'pino'
import { openCatalogStore } from '../adapters.js'
import { loadConfig } from '../config.js'
import { ConfigError } from '../errors.js'
import { openPassReader, scheduledPasses } from '../sources/scheduled-passes.js'
import { runCli } from './run.js'
import { checkStore, workerCommand } from './worker-command.js'

runCli({
  usage: 'usage: npm run sources [-- check]',
  help: `Passes over every source (docs/sources.md) on a schedule, as its own process (run the API
with CATALOG_SOURCE_SYNC=external). Exactly one process passes over a store's sources at a time:
a second one waits for the store's lease. \`check\` only checks that the store answers (exit 0)
and stops. Configured by the environment, like the API: DATA_DIR or CATALOG_STORE/MONGO_URL,
CATALOG_SOURCE_SYNC_INTERVAL_S, CATALOG_SOURCE_FOLLOW_INTERVAL_S, CATALOG_PROBE_INTERVAL_S (new
listings' first probes are spread over it), CATALOG_PROBE_TIMEOUT_MS, CATALOG_PROBE_ALLOW_PRIVATE,
CATALOG_PROBE_PER_HOST (see docs/configuration.md).`,
  positionals: true,
  main: async ({ positionals }) => {
    const command = workerCommand(positionals)
    const config = loadConfig()
    if (command === 'check') return await checkStore(config, 'sources')
    if (config.sourceSyncIntervalS === 0) throw new ConfigError('CATALOG_SOURCE_SYNC_INTERVAL_S is 0 (scheduled passes off): the sources process has nothing to do')
    const logger = pino({ level: config.logLevel, base: { component: 'source-sync' } })
    const reader = await openPassReader(config)
    // No lists are read here: the SQLite store's list thread would only cost memory.
    const store = await openCatalogStore({ ...config, listThread: false })
    const scheduler = scheduledPasses({ store, config, reader, logger })
    // The scheduler's timer does not hold a process open (in the API the server does): this does, until closing.
    const keepAlive = setInterval(() => {}, 2 ** 30)
    closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
      if (err !== undefined) logger.error({ err }, 'closing after an error')
      else logger.info({ signal }, 'closing')
      // After the current page; the pass left incomplete retires nothing, and the lease is given up.
      await scheduler.stop()
      await reader.close()
      await store.close()
      clearInterval(keepAlive)
    })
    logger.info({ store: config.store.kind, dataDir: config.dataDir, intervalS: config.sourceSyncIntervalS, holder: scheduler.holder }, 'source sync started (waits for the store lease if another process holds it)')
    scheduler.start()
    return undefined
  }
})
