/**
 * npm run bench:list [-- --n 100000 | --from DIR] [--duration 5] [--rounds 3]: the catalog
 * list alone, the one HTTP scenario of bench:search that only the store answers, without
 * the minutes of indexing and searching around it.
 *
 * The same 300 distinct URLs as bench:search's 'list, random max price and offset' (price
 * bound, sort field and offset up to 5,000 drawn at random), at 50 connections, against a
 * server with the response cache off (every answer computed), optionally the default
 * server, and a bare Fastify process replaying the very same bytes and headers (the
 * ceiling). Rounds interleave the targets; the table shows medians, and each server's CPU
 * time per response (all its threads, from /proc): unlike req/s, it hardly moves with what
 * else runs on the machine.
 *
 * --from DIR copies DIR/catalog.sqlite (a generated catalog) instead of generating one.
 * --baseline PATH adds another build's server (e.g. a checkout of main: PATH/dist/src/server.js),
 * uncached too, to the same rounds: a before/after under the same machine load.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { seedRecords } from '../src/domain/seed.js'
import { PROJECT_ROOT } from '../src/paths.js'
import { SqliteCatalogStore, STORE_FILE } from '../src/store/sqlite/store.js'
import { captureFixture, startBare } from './bare.js'
import { generateServices, prng } from './generate.js'
import { listPaths } from './queries.js'
import { API_ENV, API_NODE_FLAGS, children, countNot, fmt, freePort, HOST, intOption, load, log, machine, median, startChild, stopChild, table, waitUntil, type RunStats } from './support.js'

const { values: args } = parseArgs({
  options: {
    n: { type: 'string', default: '100000' },
    from: { type: 'string' },
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    cached: { type: 'string', default: 'no' },
    baseline: { type: 'string' },
    seed: { type: 'string', default: '7' }
  },
  strict: true
})

interface Target { url: string, pid: number }

/** CPU time a process has used so far (user + system, all threads), in µs; NaN where /proc is missing. */
function cpuMicros (pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return (Number(fields[11]) + Number(fields[12])) * (1_000_000 / CLOCK_TICKS)
  } catch {
    return NaN
  }
}
/** USER_HZ: 100 on Linux. */
const CLOCK_TICKS = 100

async function startApi (name: string, dataDir: string, env: Record<string, string>, entry = join(PROJECT_ROOT, 'dist', 'src', 'server.js')): Promise<Target> {
  const port = await freePort()
  // The list reads only the store: no embedded indexer (it would index the whole catalog first).
  const child = startChild(name, [...API_NODE_FLAGS, entry], {
    ...API_ENV, DATA_DIR: dataDir, PORT: String(port), HOST, CATALOG_SEED: 'none', LOG_LEVEL: 'warn', CATALOG_PROBE_INTERVAL_S: '0', CATALOG_INDEXER: 'external', ...env
  })
  const url = `http://${HOST}:${port}`
  await waitUntil(child, 'a healthy /health', async () => ((await fetch(`${url}/health`)).ok ? true : undefined), 120_000)
  return { url, pid: child.process.pid as number }
}

async function benchmark (): Promise<void> {
  const n = intOption('n', args.n, 100, 1_000_000)
  const duration = intOption('duration', args.duration, 1, 60)
  const rounds = intOption('rounds', args.rounds, 1, 9)
  const connections = intOption('connections', args.connections, 1, 500)
  const seed = intOption('seed', args.seed, 0, 2 ** 31)
  const dataDir = mkdtempSync(join(tmpdir(), 'x402-bench-list-'))
  process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }))
  log(`machine: ${machine()}`)
  if (args.from !== undefined) {
    copyFileSync(join(args.from, STORE_FILE), join(dataDir, STORE_FILE))
  } else {
    const started = performance.now()
    const entries = generateServices(n, seed)
    const store = new SqliteCatalogStore(dataDir)
    for (let i = 0; i < n; i += 10_000) await store.insertServices(seedRecords(entries.slice(i, i + 10_000), new Date().toISOString()))
    await store.close()
    log(`${n}: stored in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  }
  const store = new SqliteCatalogStore(dataDir)
  const size = await store.countServices()
  await store.close()

  // The very URLs bench:search asks (same seed, same draw).
  const paths = listPaths(size, prng(seed + 9))
  const targets: Record<string, Target> = { uncached: await startApi('uncached catalog', dataDir, { CATALOG_RESPONSE_CACHE_MB: '0' }) }
  if (args.baseline !== undefined) targets.baseline = await startApi('baseline catalog', dataDir, { CATALOG_RESPONSE_CACHE_MB: '0' }, args.baseline)
  if (args.cached === 'yes') targets.cached = await startApi('catalog', dataDir, {})
  const fixtureFile = join(dataDir, 'bare-fixture.json')
  writeFileSync(fixtureFile, JSON.stringify(await captureFixture((targets.uncached as Target).url, paths)))
  const bare = await startBare(fixtureFile)
  targets.bare = { url: bare.url, pid: bare.child.process.pid as number }

  const runs = new Map<string, Array<RunStats & { cpu: number }>>(Object.keys(targets).map((name) => [name, []]))
  for (let round = 1; round <= rounds; round++) {
    for (const [name, { url, pid }] of Object.entries(targets)) {
      const before = cpuMicros(pid)
      const run = await load({ url, connections, duration, requests: paths.map((path) => ({ path })) }, (duration + 15) * 1000)
      const cpu = (cpuMicros(pid) - before) / run.responses
      runs.get(name)?.push({ ...run, cpu })
      const bad = run.failures + countNot(run.statuses, (status) => status === 200)
      log(`round ${round} ${name}: ${fmt.rps(run.rps)} req/s, p50 ${fmt.ms(run.p50)} ms, p99 ${fmt.ms(run.p99)} ms, ${cpu.toFixed(0)} µs CPU per response${bad > 0 ? `, ${bad} errors` : ''}`)
    }
  }
  const bareRps = median((runs.get('bare') ?? []).map((run) => run.rps))
  process.stdout.write(`${size.toLocaleString('en-US')} services, ${paths.length} distinct URLs, ${connections} connections × ${duration} s, median of ${rounds} rounds\n\n`)
  process.stdout.write(`${table(['target', 'req/s', 'p50 ms', 'p99 ms', 'ratio to bare', 'server CPU µs / response'], [...runs].map(([name, list]) => {
    const rps = median(list.map((run) => run.rps))
    return [name, fmt.rps(rps), fmt.ms(median(list.map((run) => run.p50))), fmt.ms(median(list.map((run) => run.p99))), (rps / bareRps).toFixed(2), median(list.map((run) => run.cpu)).toFixed(0)]
  }))}\n`)
}

benchmark().then(async () => {
  for (const child of children) await stopChild(child)
}, async (err: unknown) => {
  log(`bench:list failed: ${(err as Error).stack ?? String(err)}`)
  for (const child of children) await stopChild(child)
  process.exitCode = 1
})
