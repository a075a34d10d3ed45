/**
 * The command line of a worker that runs beside the API on one store under a lease (the
 * prober, the chain watcher, source sync): no argument runs it; `check` only checks that the
 * store answers (exit 0) and stops, the compose health check, since such a worker can do
 * nothing without its store.
 */
import { openCatalogStore } from '../adapters.js'
import type { Config } from '../config.js'
import { UsageError } from '../errors.js'

/** What the arguments ask for; anything else is a UsageError naming it. */
export function workerCommand (positionals: readonly string[]): 'run' | 'check' {
  const [command, ...rest] = positionals
  if (command !== undefined && command !== 'check') throw new UsageError(`unknown command "${command}"`)
  if (rest.length > 0) throw new UsageError(`unknown argument "${rest[0] as string}"`)
  return command ?? 'run'
}

/** Opens the configured store, pings it and says so; the exit code. */
export async function checkStore (config: Config, worker: string): Promise<number> {
  const store = await openCatalogStore(config)
  try {
    await store.ping()
  } finally {
    await store.close()
  }
  console.log(`${worker}: the store answers`)
  return 0
}
