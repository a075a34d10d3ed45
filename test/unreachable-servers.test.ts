/**
 * An unreachable MongoDB or Meilisearch stops the start (API, indexer, keys CLI, prober) within
 * ~30 s with one line naming the server and the variable: real processes, pointed at a
 * closed port on 127.0.0.1.
 */
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { test, type Test } from 'tap'
import { PROJECT_ROOT } from '../src/paths.js'
import { tempDataDir } from './support/basics.js'
import { SERVER_ENTRY } from './server-process.js'

const INDEXER = join(PROJECT_ROOT, 'dist', 'indexer', 'cli.js')
const KEYS = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'keys.js')
const PROBER = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'prober.js')
const LIMIT_MS = 30_000

/** A port nothing listens on: bound once, then released. */
async function closedPort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

async function run (argv: string[], env: Record<string, string>): Promise<{ code: number | null, stderr: string, stdout: string, ms: number }> {
  const started = performance.now()
  const child = spawn(process.execPath, argv, { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS + 10_000)
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)))
  clearTimeout(timer)
  return { code, stderr, stdout, ms: performance.now() - started }
}

function checkOneLine (t: Test, result: Awaited<ReturnType<typeof run>>, pattern: RegExp): void {
  t.equal(result.code, 1, 'exits with 1')
  t.ok(result.ms < LIMIT_MS, `within 30 s (${(result.ms / 1000).toFixed(1)} s)`)
  const lines = result.stderr.trim().split('\n')
  t.equal(lines.length, 1, `one line: ${result.stderr.trim()}`)
  t.match(lines[0], pattern)
  t.notMatch(result.stderr, /^\s+at /m, 'no stack trace')
  t.notMatch(result.stdout, /Server listening/, 'never listened')
}

test('the API with MONGO_URL on a closed port', async (t) => {
  const port = await closedPort()
  const result = await run([SERVER_ENTRY], { DATA_DIR: tempDataDir(t), CATALOG_STORE: 'mongodb', MONGO_URL: `mongodb://127.0.0.1:${port}/catalog?replicaSet=rs0` })
  checkOneLine(t, result, new RegExp(`^x402-catalog: cannot use MongoDB at mongodb://127\\.0\\.0\\.1:${port}/catalog\\?replicaSet=rs0 \\(MONGO_URL\\): `))
})

test('the API with MEILI_URL on a closed port', async (t) => {
  const port = await closedPort()
  const result = await run([SERVER_ENTRY], { DATA_DIR: tempDataDir(t), CATALOG_SEARCH: 'meilisearch', MEILI_URL: `http://127.0.0.1:${port}`, MEILI_MASTER_KEY: 'a-master-key-of-32-characters-xx' })
  checkOneLine(t, result, new RegExp(`^x402-catalog: cannot reach Meilisearch at http://127\\.0\\.0\\.1:${port} \\(MEILI_URL\\): connect ECONNREFUSED 127\\.0\\.0\\.1:${port}$`))
})

test('the indexer and the keys CLI say the same', async (t) => {
  const port = await closedPort()
  // Side by side: most of each run is the driver waiting out its server selection.
  const [indexer, keys, prober] = await Promise.all([
    run([INDEXER, 'status'], { DATA_DIR: tempDataDir(t), CATALOG_SEARCH: 'meilisearch', MEILI_URL: `http://127.0.0.1:${port}`, MEILI_MASTER_KEY: 'a-master-key-of-32-characters-xx' }),
    run([KEYS, 'list'], { DATA_DIR: tempDataDir(t), CATALOG_STORE: 'mongodb', MONGO_URL: `mongodb://127.0.0.1:${port}/catalog` }),
    run([PROBER, 'check'], { CATALOG_STORE: 'mongodb', MONGO_URL: `mongodb://127.0.0.1:${port}/catalog` })
  ])
  checkOneLine(t, indexer, /^x402-catalog: cannot reach Meilisearch at .* \(MEILI_URL\)/)
  checkOneLine(t, keys, /^x402-catalog: cannot use MongoDB at .* \(MONGO_URL\)/)
  checkOneLine(t, prober, /^x402-catalog: cannot use MongoDB at .* \(MONGO_URL\)/)
})

test('a misconfigured adapter variable stops the start before any connection', async (t) => {
  const result = await run([SERVER_ENTRY], { DATA_DIR: tempDataDir(t), CATALOG_STORE: 'mongodb', MONGO_URL: 'mongodb://127.0.0.1:27017' })
  checkOneLine(t, result, /^x402-catalog: MONGO_URL must be a mongodb:\/\/ or mongodb\+srv:\/\/ URL naming the database/)
})
