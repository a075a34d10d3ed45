/**
 * The prober as its own process (npm run prober), for the scaled topology: run it with
 * CATALOG_PROBER=external on the API processes. It opens the configured store (the
 * composition root: the SQLite DATA_DIR or MONGO_URL); the store's lease makes sure
 * exactly one prober works on it, so starting a second one (or one next to an embedded
 * prober) is harmless: it waits and takes over when the holder stops or dies.
 *
 * `npm run prober -- check` only checks that the store answers (exit 0) and stops: the
 * compose health check, since a prober without its store can do nothing.
 */
import closeWithGrace from 'close-with-grace'
import { pino } from 'pino'
import { openCatalogStore } from '../adapters.js'
import { loadConfig } from '../config.js'
import { ConfigError } from '../errors.js'
import { HttpEndpointProber } from '../prober/endpoint-prober.js'
import { ServiceMonitor } from '../prober/monitor.js'
import { CategoryInference } from '../search/category-inference.js'
import { loadTokenizer } from '../search/analysis/tokenizer.js'
import { ProbeScheduler } from '../prober/scheduler.js'
import { runCli } from './run.js'
import { checkStore, workerCommand } from './worker-command.js'

runCli({
  usage: 'usage: npm run prober [-- check]',
  help: `Probes every listed endpoint on a schedule, as its own process (run the API with
CATALOG_PROBER=external). Exactly one prober works on a store at a time: a second one waits
for the store's lease. \`check\` only checks that the store answers (exit 0) and stops.
Configured by the environment, like the API: DATA_DIR or CATALOG_STORE/MONGO_URL,
CATALOG_PROBE_INTERVAL_S, CATALOG_PROBE_TIMEOUT_MS, CATALOG_PROBE_ALLOW_PRIVATE,
CATALOG_PROBE_CONCURRENCY, CATALOG_PROBE_PER_HOST, CATALOG_PROBE_SEEDED (see docs/configuration.md).`,
  positionals: true,
  main: async ({ positionals }) => {
    const command = workerCommand(positionals)
    const config = loadConfig()
    if (command === 'check') return await checkStore(config, 'prober')
    if (config.probeIntervalS === 0) throw new ConfigError('CATALOG_PROBE_INTERVAL_S is 0 (scheduled probing off): the prober has nothing to do')
    const logger = pino({ level: config.logLevel, base: { component: 'prober' } })
    // kuromoji, as the API has it: a probe that changes an inferred listing's text infers its
    // category again, and Japanese text needs the same analysis registration inferred it with.
    const inference = new CategoryInference(await loadTokenizer())
    const store = await openCatalogStore(config)
    const endpointProber = new HttpEndpointProber({ timeoutMs: config.probeTimeoutMs, allowPrivate: config.probeAllowPrivate, perAddress: config.probePerHost })
    const monitor = new ServiceMonitor(store, endpointProber, config.probeIntervalS * 1000, (text) => inference.infer(text))
    const scheduler = new ProbeScheduler({
      store, monitor, logger, concurrency: config.probeConcurrency, perHost: config.probePerHost, includeSeeded: config.probeSeeded, keepProcessAlive: true
    })
    closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
      if (err !== undefined) logger.error({ err }, 'closing after an error')
      else logger.info({ signal }, 'closing')
      await scheduler.stop()
      await endpointProber.close()
      await store.close()
    })
    logger.info({ store: config.store.kind, dataDir: config.dataDir, intervalS: config.probeIntervalS, holder: scheduler.holder }, 'prober started (waits for the store lease if another prober holds it)')
    scheduler.start()
    return undefined
  }
})
