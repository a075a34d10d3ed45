/** Starts the catalog: listens, and closes gracefully on SIGTERM/SIGINT. */
import { accessSync, constants, mkdirSync, statSync } from 'node:fs'
import closeWithGrace from 'close-with-grace'
import { runCli } from './cli/run.js'
import { loadConfig, type Config } from './config.js'
import { ConfigError } from './errors.js'
import { startLine } from './lib/terminal-log.js'

/** DATA_DIR must be a directory this process can write (created when missing). */
function checkDataDir (dir: string): void {
  try {
    mkdirSync(dir, { recursive: true })
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'EEXIST' || code === 'ENOTDIR') throw new ConfigError(`DATA_DIR ${dir} is not a directory (a file is in the way)`)
    throw new ConfigError(`DATA_DIR ${dir} cannot be created: ${(err as Error).message}`)
  }
  if (!statSync(dir).isDirectory()) throw new ConfigError(`DATA_DIR ${dir} is not a directory`)
  try {
    accessSync(dir, constants.W_OK | constants.R_OK)
  } catch {
    throw new ConfigError(`DATA_DIR ${dir} is not readable and writable by this user`)
  }
}

function listenError (err: unknown, config: Config): Error {
  const code = (err as NodeJS.ErrnoException).code
  const where = `${config.host}:${config.port}`
  if (code === 'EADDRINUSE') return new ConfigError(`cannot listen on ${where}: the port is already in use (is another catalog running? stop it or set PORT)`)
  if (code === 'EACCES') return new ConfigError(`cannot listen on ${where}: permission denied (ports below 1024 need privileges; set PORT)`)
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return new ConfigError(`cannot listen on ${where}: HOST is not an address of this machine`)
  return err as Error
}

async function start (): Promise<undefined> {
  const config = loadConfig()
  checkDataDir(config.dataDir)
  // A person at a terminal reads text; anything else (containers, tests, log shippers) gets JSON.
  const terminal = process.stdout.isTTY === true
  // Imported here, not at the top: --help and a bad configuration answer without loading the app.
  const { buildApp } = await import('./app.js')
  const app = await buildApp(config, { terminal })
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err !== undefined) app.log.error({ err }, 'closing after an error')
    else app.log.info({ signal }, 'closing')
    await app.close()
  })
  try {
    const services = terminal ? await app.store.countServices() : 0
    await app.listen({
      port: config.port,
      host: config.host,
      ...(terminal ? { listenTextResolver: (address: string) => startLine(address, config.store.kind === 'sqlite' ? `SQLite in ${config.dataDir}` : 'MongoDB', services) } : {})
    })
  } catch (err) {
    await app.close()
    throw listenError(err, config)
  }
  return undefined
}

// Configuration, store and port problems are the operator's to fix: one line saying what,
// not a stack (src/cli/run.ts). Anything else is a bug and keeps its stack.
runCli({
  usage: 'usage: npm start',
  help: `Starts the catalog API (and, unless configured otherwise, its indexer and prober) and
serves until SIGTERM or SIGINT. Configured by environment variables only: PORT, HOST,
DATA_DIR, CATALOG_API_KEYS, … (docs/configuration.md). A bad value, an unusable DATA_DIR,
a port in use or an unreachable server stops the start with one line on stderr, exit 1.`,
  main: start
})
