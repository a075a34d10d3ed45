/**
 * Operator CLI for the catalog's contents: `import FILE`, a bulk import under the API's rules,
 * one transaction per batch; `sources …`, the lists the catalog mirrors (src/cli/sources.ts).
 * Its help says how to call it.
 */
import { loadConfig } from '../config.js'
import { openCatalogStore } from '../adapters.js'
import { chainNetworks } from '../chain/config.js'
import { registerNetworks } from '../domain/networks.js'
import { UsageError } from '../errors.js'
import { DEFAULT_IMPORT_BATCH, importServices, readItems } from '../application/import-file.js'
import { runCli } from './run.js'
import { runSources, SOURCES_HELP } from './sources.js'

/** Rejected lines listed one by one; beyond this only their count. */
const LISTED_REJECTIONS = 100

runCli({
  usage: 'usage: npm run catalog -- import FILE [--batch-size N] [--owner KEY_ID] | sources add|list|sync|remove … [--kind K] [--json]',
  help: `  import FILE          register every service of FILE (a JSON array or NDJSON of
                       POST /api/services bodies) under the API's rules
  --batch-size N       services per transaction (1–10000, default ${DEFAULT_IMPORT_BATCH})
  --owner KEY_ID       record the services as registered by this API key's owner
${SOURCES_HELP}
  help, --help, -h     this text

Exit code 0 when every line was accepted, 3 when some were rejected (each is listed with
its reason), 1 on a failure, 2 on bad usage. The indexer then makes the new services
searchable (npm run indexer -- status shows the lag).`,
  positionals: true,
  options: { 'batch-size': { type: 'string' }, owner: { type: 'string' }, kind: { type: 'string' }, json: { type: 'boolean' } },
  main: async ({ positionals, values }) => {
    const [command, file, ...rest] = positionals
    if (command === 'sources') {
      const config = loadConfig()
      registerNetworks(chainNetworks(config.chains))
      const store = await openCatalogStore(config)
      try {
        return await runSources(store, config, { args: positionals.slice(1), kind: typeof values.kind === 'string' ? values.kind : undefined, json: values.json === true })
      } finally {
        await store.close()
      }
    }
    if (command !== 'import') throw new UsageError(command === undefined ? 'a command is required' : `unknown command "${command}"`)
    if (file === undefined) throw new UsageError('import needs the FILE to read')
    if (rest.length > 0) throw new UsageError(`unknown argument "${rest[0] as string}"`)
    const batchText = typeof values['batch-size'] === 'string' ? values['batch-size'] : String(DEFAULT_IMPORT_BATCH)
    const batchSize = Number(batchText)
    if (!/^\d+$/.test(batchText) || batchSize < 1 || batchSize > 10_000) throw new UsageError(`--batch-size must be an integer from 1 to 10000, got "${batchText}"`)
    const config = loadConfig()
    // Imports are checked like registrations: a watched local chain is a known network.
    registerNetworks(chainNetworks(config.chains))
    const store = await openCatalogStore(config)
    const tty = process.stderr.isTTY === true
    const started = performance.now()
    try {
      const summary = await importServices(store, readItems(file), {
        batchSize,
        ownerId: typeof values.owner === 'string' ? values.owner : null,
        onProgress: tty ? (read, accepted, rejected) => { process.stderr.write(`\rimport: ${read} read, ${accepted} accepted, ${rejected} rejected`) } : undefined
      })
      if (tty) process.stderr.write('\n')
      const seconds = ((performance.now() - started) / 1000).toFixed(1)
      console.log(`accepted ${summary.accepted}, rejected ${summary.rejected.length} (${seconds} s)`)
      for (const { line, reason } of summary.rejected.slice(0, LISTED_REJECTIONS)) console.log(`line ${line}: ${reason}`)
      if (summary.rejected.length > LISTED_REJECTIONS) console.log(`… and ${summary.rejected.length - LISTED_REJECTIONS} more rejected lines`)
      if (summary.accepted > 0) console.log('The indexer makes them searchable as it catches up (npm run indexer -- status shows the lag).')
      return summary.rejected.length === 0 ? 0 : 3
    } finally {
      await store.close()
    }
  }
})
