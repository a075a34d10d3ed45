/**
 * The prober as its own process (npm run prober), for the scaled topology: run it with
 * CATALOG_PROBER=external on the API processes. It shares the store's DATA_DIR; the
 * store's lease makes sure exactly one prober works on it, so starting a second one
 * (or one next to an embedded prober) is harmless: it waits and takes over when the
 * holder stops or dies.
 */
import closeWithGrace from 'close-with-grace'
import { pino } from 'pino'
import { loadConfig } from '../config.js'
import { CatalogError } from '../errors.js'
import { HttpEndpointProber } from '../prober/endpoint-prober.js'
import { ServiceMonitor } from '../prober/monitor.js'
import { ProbeScheduler } from '../prober/scheduler.js'
import { SqliteCatalogStore } from '../store/sqlite-store.js'

async function main (): Promise<number> {
  const config = loadConfig()
  if (config.probeIntervalS === 0) {
    console.error('prober: CATALOG_PROBE_INTERVAL_S is 0 (scheduled probing off); nothing to do')
    return 2
  }
  const logger = pino({ level: config.logLevel, base: { component: 'prober' } })
  const store = new SqliteCatalogStore(config.dataDir)
  const endpointProber = new HttpEndpointProber({ timeoutMs: config.probeTimeoutMs, allowPrivate: config.probeAllowPrivate })
  const monitor = new ServiceMonitor(store, endpointProber, config.probeIntervalS * 1000)
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
  logger.info({ dataDir: config.dataDir, intervalS: config.probeIntervalS, holder: scheduler.holder }, 'prober started (waits for the store lease if another prober holds it)')
  scheduler.start()
  return 0
}

main().then((code) => { if (code !== 0) process.exitCode = code }, (err: unknown) => {
  console.error(`prober: ${err instanceof CatalogError ? err.message : String((err as Error).stack ?? err)}`)
  process.exitCode = 1
})
