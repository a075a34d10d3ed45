/**
 * npm run bench:list [-- --n 100000 | --from DIR] [--duration 5] [--rounds 3]: the catalog
 * list alone, the one HTTP scenario of bench:search that only the store answers, without
 * the minutes of indexing and searching around it.
 *
 * The same 300 distinct URLs as bench:search's 'list, random max price and offset' (price
 * bound, sort field and offset up to 5,000 drawn at random), at 50 connections, against a
 * server with the response cache off (every answer computed), optionally the default
 * server, and a bare Fastify process replaying the very same bytes and headers (the
 * ceiling). Rounds interleave the targets; the table shows medians.
 *
 * --from DIR copies DIR/catalog.sqlite (a generated catalog) instead of generating one.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { seedRecords } from '../src/domain/seed.js'
import { PROJECT_ROOT } from '../src/paths.js'
import { SqliteCatalogStore, STORE_FILE } from '../src/store/sqlite-store.js'
import { captureFixture, startBare } from './bare.js'
import { generateServices, prng } from './generate.js'
import { listPaths } from './queries.js'
import { children, countNot, fmt, freePort, HOST, intOption, load, log, machine, median, startChild, stopChild, table, waitUntil, type RunStats } from './support.js'

const { values: args } = parseArgs({
  options: {
    n: { type: 'string', default: '100000' },
    from: { type: 'string' },
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    cached: { type: 'string', default: 'no' },
    seed: { type: 'string', default: '7' }
  },
  strict: true
})

async function startApi (name: string, dataDir: string, env: Record<string, string>): Promise<string> {
  const port = await freePort()
  // The list reads only the store: no embedded indexer (it would index the whole catalog first).
  const child = startChild(name, ['--expose-gc', join(PROJECT_ROOT, 'dist', 'src', 'server.js')], {
    DATA_DIR: dataDir, PORT: String(port), HOST, CATALOG_SEED: 'none', LOG_LEVEL: 'warn', CATALOG_PROBE_INTERVAL_S: '0', CATALOG_INDEXER: 'external', ...env
  })
  const url = `http://${HOST}:${port}`
  await waitUntil(child, 'a healthy /health', async () => ((await fetch(`${url}/health`)).ok ? true : undefined), 120_000)
  return url
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
  const targets: Record<string, string> = { uncached: await startApi('uncached catalog', dataDir, { CATALOG_RESPONSE_CACHE_MB: '0' }) }
  if (args.cached === 'yes') targets.cached = await startApi('catalog', dataDir, {})
  const fixtureFile = join(dataDir, 'bare-fixture.json')
  writeFileSync(fixtureFile, JSON.stringify(await captureFixture(targets.uncached as string, paths)))
  targets.bare = (await startBare(fixtureFile)).url

  const runs = new Map<string, RunStats[]>(Object.keys(targets).map((name) => [name, []]))
  for (let round = 1; round <= rounds; round++) {
    for (const [name, url] of Object.entries(targets)) {
      const run = await load({ url, connections, duration, requests: paths.map((path) => ({ path })) }, (duration + 15) * 1000)
      runs.get(name)?.push(run)
      const bad = run.failures + countNot(run.statuses, (status) => status === 200)
      log(`round ${round} ${name}: ${fmt.rps(run.rps)} req/s, p50 ${fmt.ms(run.p50)} ms, p99 ${fmt.ms(run.p99)} ms${bad > 0 ? `, ${bad} errors` : ''}`)
    }
  }
  const bareRps = median((runs.get('bare') as RunStats[]).map((run) => run.rps))
  process.stdout.write(`${size.toLocaleString('en-US')} services, ${paths.length} distinct URLs, ${connections} connections × ${duration} s, median of ${rounds} rounds\n\n`)
  process.stdout.write(`${table(['target', 'req/s', 'p50 ms', 'p99 ms', 'ratio to bare'], [...runs].map(([name, list]) => {
    const rps = median(list.map((run) => run.rps))
    return [name, fmt.rps(rps), fmt.ms(median(list.map((run) => run.p50))), fmt.ms(median(list.map((run) => run.p99))), (rps / bareRps).toFixed(2)]
  }))}\n`)
}

benchmark().then(async () => {
  for (const child of children) await stopChild(child)
}, async (err: unknown) => {
  log(`bench:list failed: ${(err as Error).stack ?? String(err)}`)
  for (const child of children) await stopChild(child)
  process.exitCode = 1
})
