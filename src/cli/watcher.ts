/**
 * The chain watcher as its own process (npm run watcher), for the scaled topology: run the
 * API with CATALOG_WATCHER=external. The store's `chain-watcher` lease makes sure exactly one
 * watcher writes payments to a store, so a second one (or one next to an embedded watcher)
 * waits and takes over when the holder stops or dies.
 *
 * `npm run watcher -- check` only checks that the store answers (exit 0) and stops: the
 * compose health check.
 */
import closeWithGrace from 'close-with-grace'
import { pino } from 'pino'
import { openCatalogStore } from '../adapters.js'
import { chainNetworks } from '../chain/config.js'
import { ChainWatcher } from '../chain/watcher.js'
import { loadConfig } from '../config.js'
import { registerNetworks } from '../domain/networks.js'
import { ConfigError } from '../errors.js'
import { runCli } from './run.js'
import { checkStore, workerCommand } from './worker-command.js'

runCli({
  usage: 'usage: npm run watcher [-- check]',
  help: `Counts the x402 settlements to listed payTos on the networks CATALOG_CHAINS names, as its
own process (run the API with CATALOG_WATCHER=external). Exactly one watcher works on a store at
a time: a second one waits for the store's lease. \`check\` only checks that the store answers
(exit 0) and stops. Configured by the environment, like the API: DATA_DIR or
CATALOG_STORE/MONGO_URL, CATALOG_CHAINS, CATALOG_CHAIN_POLL_MS (see docs/configuration.md).`,
  positionals: true,
  main: async ({ positionals }) => {
    const command = workerCommand(positionals)
    const config = loadConfig()
    if (command === 'check') return await checkStore(config, 'watcher')
    if (config.chains.length === 0) throw new ConfigError('CATALOG_CHAINS is not set (or lists no chain): the watcher has nothing to watch')
    registerNetworks(chainNetworks(config.chains))
    const logger = pino({ level: config.logLevel, base: { component: 'chain-watcher' } })
    const store = await openCatalogStore(config)
    const watcher = new ChainWatcher({ store, chains: config.chains, logger, pollMs: config.chainPollMs, keepProcessAlive: true })
    closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
      if (err !== undefined) logger.error({ err }, 'closing after an error')
      else logger.info({ signal }, 'closing')
      await watcher.stop()
      await store.close()
    })
    logger.info({ store: config.store.kind, networks: config.chains.map((c) => c.network), holder: watcher.holder }, 'watcher started (waits for the store lease if another watcher holds it)')
    watcher.start()
    return undefined
  }
})
