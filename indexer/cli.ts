/**
 * The indexer as its own process and the operators' CLI (npm run indexer -- watch | reindex
 * | status): the help below says what each command does.
 */
import closeWithGrace from 'close-with-grace'
import { pino } from 'pino'
import { loadConfig } from '../src/config.js'
import { UsageError } from '../src/errors.js'
import { loadTokenizer } from '../src/search/analysis/tokenizer.js'
import { openCatalogStore, openSearchEngine } from '../src/adapters.js'
import { runCli } from '../src/cli/run.js'
import { Indexer } from './indexer.js'
import { progressBar } from './progress.js'

const COMMANDS = ['watch', 'reindex', 'status'] as const

runCli({
  usage: 'usage: npm run indexer -- watch | reindex | status',
  help: `  watch               tail the change feed and keep the search index current (the scaled
                      topology, or the API with CATALOG_INDEXER=external)
  reindex             rebuild the index from the store; searches keep using the old index
                      until the new one is complete, then it swaps in atomically
  status              store count, index count, checkpoint and lag
  help, --help, -h    this text

Configured by the environment, like the API: DATA_DIR, CATALOG_STORE/MONGO_URL,
CATALOG_SEARCH/MEILI_*, INDEXER_BATCH_SIZE (see docs/configuration.md).`,
  positionals: true,
  main: async ({ positionals }) => {
    const [command, ...rest] = positionals
    if (!COMMANDS.includes(command as typeof COMMANDS[number])) throw new UsageError(command === undefined ? 'a command is required' : `unknown command "${command}"`)
    if (rest.length > 0) throw new UsageError(`unknown argument "${rest[0] as string}"`)
    return await indexerCommand(command as typeof COMMANDS[number])
  }
})

async function indexerCommand (command: typeof COMMANDS[number]): Promise<number | undefined> {
  const config = loadConfig()
  const logger = pino({ level: config.logLevel, base: { component: 'indexer' } })
  const store = await openCatalogStore(config)
  // The indexer never searches: no search thread.
  const { engine, name: engineName } = await openSearchEngine(config, { threads: 0 }).catch(async (err: unknown) => { await store.close(); throw err })
  const close = async (): Promise<void> => { await engine.close(); await store.close() }
  // status needs no dictionary: skip the ~0.7 s kuromoji load.
  const tokenizer = command === 'status' ? undefined : await loadTokenizer()
  const indexer = new Indexer({ store, engine, tokenizer: tokenizer as NonNullable<typeof tokenizer>, logger, batchSize: config.indexerBatchSize })

  if (command === 'status') {
    const status = await indexer.status()
    console.log(`engine:           ${engineName}`)
    console.log(`store services:   ${status.storeCount}`)
    console.log(`index documents:  ${status.indexCount}`)
    console.log(`checkpoint:       ${status.checkpoint} of ${status.latestSeq}`)
    // Sequence distance, not a count: the feed may skip numbers.
    console.log(`lag:              ${status.lag} (at most ${status.lag} change${status.lag === 1 ? '' : 's'} to index)`)
    await close()
    return 0
  }

  if (command === 'reindex') {
    const started = performance.now()
    const count = await indexer.reindex(progressBar('reindex'))
    console.log(`reindexed ${count} services in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    await close()
    return 0
  }

  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err !== undefined) logger.error({ err }, 'closing after an error')
    else logger.info({ signal }, 'closing')
    await indexer.stop()
    await close()
  })
  logger.info({ store: config.store.kind, engine: engineName, dataDir: config.dataDir, batchSize: config.indexerBatchSize }, 'watching the change feed')
  indexer.start()
  return undefined
}
