/**
 * Operator CLI for the catalog's contents (npm run catalog -- <command>):
 *   import FILE [--batch-size N] [--owner KEY_ID]
 *       registers every service of FILE (a JSON array or NDJSON of POST /api/services
 *       bodies) under the API's rules, one transaction per batch; prints accepted and
 *       rejected counts and each rejected line's reason. Exit code 0 when every line was
 *       accepted, 3 when some were rejected, 2 on bad usage. The indexer (embedded in the
 *       API, or `npm run indexer -- watch`) then indexes the new services.
 */
import { parseArgs } from 'node:util'
import { loadConfig } from '../config.js'
import { openCatalogStore } from '../adapters.js'
import { DEFAULT_IMPORT_BATCH, importServices, readItems } from './import.js'

const USAGE = 'usage: npm run catalog -- import FILE [--batch-size N] [--owner KEY_ID]'
/** Rejected lines listed one by one; beyond this only their count. */
const LISTED_REJECTIONS = 100

async function main (argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, strict: false, options: { 'batch-size': { type: 'string' }, owner: { type: 'string' } } })
  const [command, file, ...rest] = positionals
  const batchText = typeof values['batch-size'] === 'string' ? values['batch-size'] : String(DEFAULT_IMPORT_BATCH)
  const batchSize = Number(batchText)
  if (command !== 'import' || file === undefined || rest.length > 0 || !/^\d+$/.test(batchText) || batchSize < 1 || batchSize > 10_000) {
    console.error(USAGE)
    if (command === 'import' && file !== undefined) console.error('--batch-size must be an integer from 1 to 10000')
    return 2
  }
  const store = await openCatalogStore(loadConfig())
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

main(process.argv.slice(2)).then((code) => { process.exitCode = code }, (err: unknown) => {
  console.error(`catalog: ${(err as Error).message}`)
  process.exitCode = 1
})
