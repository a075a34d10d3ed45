/**
 * npm run bench:search [-- --sizes 10000,100000 --baseline ../other-checkout]: the search benchmark.
 *
 * For each catalog size: generates the services, reindexes them, then measures
 *  - per query shape people type (bench/queries.ts shapeStream: common words, 2–3 common
 *    words, typos, prefixes, Japanese words, rare words, English and Japanese requests):
 *    matches and posting entries per query, the engine's time in-process, and over HTTP
 *    req/s against a bare Fastify process replaying the very same bytes, with the CPU of the
 *    API's main thread and of its search thread;
 *  - streams at 50 connections (every request the next URL of one shared list, never a
 *    replay per connection): the list with random filters and offsets, and the common-word
 *    stream through catalog and intent search, against the default server (caches on), a
 *    server with the response cache off, the bare process and, with --baseline, another
 *    build on the same data (in-process too): ratios within one run, medians over --rounds;
 *  - registrations at a steady rate while 8 clients search: POST latency, timeouts, /health
 *    latency and registration → searchable, next to the same registrations without search load;
 *  - the API's RSS all along (VmHWM), including a reindex by the CLI while it serves.
 * It prints the tables, how each figure grows across sizes, and writes them into
 * docs/benchmarks.md (--out - prints only). It never fails on a figure.
 */
import { once } from 'node:events'
import { cpSync, existsSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import type { Readable } from 'node:stream'
import { loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Indexer } from '../indexer/indexer.js'
import { seedRecords } from '../src/domain/seed.js'
import { PROJECT_ROOT } from '../src/paths.js'
import { analyzeIntent, splitQueryWords } from '../src/search/analysis/analyzer.js'
import { loadTokenizer } from '../src/search/analysis/tokenizer.js'
import type { SearchQuery } from '../src/search/search-engine.js'
import { EmbeddedSearchEngine } from '../src/search/embedded/engine.js'
import { SqliteCatalogStore } from '../src/store/sqlite/store.js'
import { captureFixture, startBare } from './bare.js'
import { loadEngineClass, timeEngine } from './engine-timing.js'
import { generateServices, prng, registrationBody } from './generate.js'
import { startPaidEndpoints, type PaidEndpoints } from './paid-endpoints.js'
import { COMMON_SHAPES, INTENT_SHAPES, listPaths, SHAPES, shapeStream, type Shape } from './queries.js'
import Database from 'better-sqlite3'
import { Searcher } from '../src/search/embedded/thread/searcher.js'
import { SEARCH_FILE } from '../src/search/embedded/engine.js'
import { API_ENV, API_NODE_FLAGS, children, countNot, cpuShares, fmt, freePort, HOST, load, log, machine, median, pathStream, percentile, startChild, stopChild, table, threadTicks, waitUntil, type Child, type RunStats } from './support.js'

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    'per-kind': { type: 'string', default: '200' },
    // Queries per shape timed in-process: of 200, the p99 is the second slowest, so two rare
    // pauses (a full collection, a preemption) in one shape decide it (docs/benchmarks.md).
    'engine-queries': { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '1' },
    // Root of another checkout, built (dist/): its engine in-process and its server over HTTP, same data.
    baseline: { type: 'string' },
    // Internal (--local): import the engine from this module instead of this build's.
    engine: { type: 'string' },
    'search-threads': { type: 'string' },
    searchers: { type: 'string', default: '8' },
    'registrations-per-second': { type: 'string', default: '50' },
    'write-seconds': { type: 'string', default: '10' },
    'reindex-while-serving': { type: 'string', default: 'yes' },
    warmup: { type: 'string', default: '2' },
    // Internal: run the in-process measurement on an indexed DATA_DIR and print it as JSON.
    local: { type: 'string' },
    seed: { type: 'string', default: '7' },
    out: { type: 'string', default: join(PROJECT_ROOT, 'docs', 'benchmarks.md') }
  },
  strict: true
})

const TARGETS = { engineP50: 0.5, engineP99: 2, streamRatio: 0.1, streamP99: 100, listRatio: 0.3, postP99: 100, lagP99: 500, rssMb: 450 }
/**
 * Queries per shape, of another stream, searched before the engine is timed: the index loaded,
 * common words' sets cached, and every path of the ranking optimized by the JIT, as in a server
 * that has been answering (with 30, paths first met while timing cost V8 deoptimization loops
 * of 1–8 ms on a few queries per shape).
 */
const WARM_QUERIES = 100
/** Registration → searchable is polled this often (the figure's resolution). */
const POLL_MS = 25
const MARK_BEGIN = '<!-- bench:search results -->'
const MARK_END = '<!-- /bench:search results -->'

function int (name: string, value: string | undefined, min: number, max: number): number {
  const number = Number(value)
  if (!Number.isInteger(number) || number < min || number > max) throw new Error(`--${name} must be an integer from ${min} to ${max}, got "${value}"`)
  return number
}

function quantiles (samples: readonly number[]): { p50: number, p99: number } {
  const sorted = Float64Array.from(samples).sort()
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) }
}

/** Samples a process's RSS; VmHWM is the kernel's own peak. */
function rssOf (pid: number): { rss: number, peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const mb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024
    return { rss: mb('VmRSS'), peak: mb('VmHWM') }
  } catch {
    return { rss: NaN, peak: NaN }
  }
}

type Target = 'cached' | 'uncached' | 'bare' | 'baseline'
interface HttpRun extends RunStats { cpu?: { main: number, busiestOther: number, total: number } }

interface SizeReport {
  n: number
  reindexS: number
  indexMb: { postings: number, documents: number, terms: number }
  local: LocalFigures
  baselineLocal: LocalFigures | undefined
  http: Map<string, Partial<Record<Target, HttpRun>>>
  writes: { quiet: WriteStats, loaded: WriteStats, searchRps: number }
  rss: { idle: number, peak: number, beforeReindex: number, reindexPeak: number | undefined }
}

interface WriteStats { posts: number, postP50: number, postP99: number, timeouts: number, failures: number, lagP50: number, lagP99: number, healthP99: number }

const encode = encodeURIComponent

async function startApi (name: string, dataDir: string, env: Record<string, string>, server = join(PROJECT_ROOT, 'dist', 'src', 'server.js')): Promise<{ child: Child, url: string }> {
  const port = await freePort()
  const child = startChild(name, [...API_NODE_FLAGS, server], {
    // No rate limits (one client IP makes every request), no scheduled probes of the fictional
    // hosts; registrations are probed, at loopback endpoints (bench/paid-endpoints.ts) whose one
    // server stands for every listed host, so the per-host probe cap is lifted.
    ...API_ENV, DATA_DIR: dataDir, PORT: String(port), HOST, CATALOG_SEED: 'none', LOG_LEVEL: 'warn', CATALOG_RATE_LIMIT: '0', CATALOG_PROBE_INTERVAL_S: '0', CATALOG_PROBE_ALLOW_PRIVATE: '1', CATALOG_PROBE_PER_HOST: '100', ...env
  })
  const url = `http://${HOST}:${port}`
  await waitUntil(child, 'a healthy /health', async () => ((await fetch(`${url}/health`)).ok ? true : undefined), 300_000)
  // The search thread loads its index in the background: wait until it answers.
  await waitUntil(child, 'a first search', async () => ((await fetch(`${url}/api/catalog/search?q=warmup`)).ok ? true : undefined), 300_000)
  return { child, url }
}

/** Registrations at a steady rate (each with a unique word), each polled until searchable. */
async function registrations (url: string, apiKey: string, endpoints: PaidEndpoints, perSecond: number, seconds: number, n: number, seed: number): Promise<WriteStats> {
  const count = perSecond * seconds
  const entries = generateServices(count, seed, n + seed * 1_000_000)
  const posts: number[] = []
  const lags: number[] = []
  const health: number[] = []
  let timeouts = 0
  let failures = 0
  const healthTimer = setInterval(() => {
    const t = performance.now()
    void fetch(`${url}/health`).then(async (res) => { await res.arrayBuffer(); health.push(performance.now() - t) }, () => {})
  }, 100)
  const one = async (i: number): Promise<void> => {
    const token = `lagprobe${seed.toString(36)}x${i.toString(36)}q`
    const body = endpoints.list({ ...registrationBody(entries[i] as (typeof entries)[number]), name: `${token} ${(entries[i] as (typeof entries)[number]).name}`.slice(0, 255) }, token)
    const t = performance.now()
    let res: Response
    try {
      res = await fetch(`${url}/api/services`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) })
      await res.arrayBuffer()
    } catch {
      timeouts++
      return
    }
    posts.push(performance.now() - t)
    if (res.status !== 201) { failures++; return }
    for (;;) {
      const found = await (await fetch(`${url}/api/catalog/search?q=${token}&limit=1`)).json() as { total: number }
      if (found.total > 0) { lags.push(performance.now() - t); return }
      if (performance.now() - t > 10_000) { lags.push(Infinity); return }
      // Every 25 ms: at 50 registrations/s, faster polling would itself become the load.
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    }
  }
  const pending: Array<Promise<void>> = []
  const start = performance.now()
  for (let i = 0; i < count; i++) {
    const due = start + (i * 1000) / perSecond
    const wait = due - performance.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    pending.push(one(i))
  }
  await Promise.all(pending)
  clearInterval(healthTimer)
  const post = quantiles(posts)
  const lag = quantiles(lags)
  return { posts: posts.length, postP50: post.p50, postP99: post.p99, timeouts, failures, lagP50: lag.p50, lagP99: lag.p99, healthP99: quantiles(health).p99 }
}

interface ShapeFigures {
  analysisP50: number
  p50: number
  p99: number
  /** The slowest query's engine time, and how many were over the p99 target. */
  max: number
  over: number
  count: number
  matches: number
  postings: number
}
type LocalFigures = Map<Shape, ShapeFigures>

/**
 * In-process, per query shape: each query analysed as its endpoint does (catalog search:
 * keywords, last word a prefix; intent: kuromoji), then the engine alone timed on a thread of
 * its own, as the server's search thread runs it (engine-timing.ts). The engine comes from
 * `engineModule` (another build's, for the baseline) or this build; matches and posting
 * entries are read with this build.
 */
async function measureLocal (dataDir: string, n: number, perShape: number, seed: number, engineModule: string | undefined): Promise<LocalFigures> {
  const entries = generateServices(n, seed)
  const stream = shapeStream(entries, perShape, seed + 4)
  const tokenizer = await loadTokenizer()
  const page = { limit: 20, offset: 0 }
  const wordsOf = (shape: Shape, q: string): SearchQuery => {
    const intent = INTENT_SHAPES.includes(shape)
    return { words: intent ? analyzeIntent(q, tokenizer).tokens : splitQueryWords(q), filter: {}, page, prefixLastWord: !intent }
  }
  // Every path warmed up with queries of another stream (and the index loaded) before timing.
  const warm = [...shapeStream(entries, WARM_QUERIES, seed + 5)].flatMap(([shape, queries]) => queries.map((q) => wordsOf(shape, q)))
  const analysed = new Map<Shape, { analysis: number[], queries: SearchQuery[] }>()
  for (const shape of SHAPES) {
    const figures = { analysis: [] as number[], queries: [] as SearchQuery[] }
    for (const q of stream.get(shape) as string[]) {
      const t = performance.now()
      figures.queries.push(wordsOf(shape, q))
      figures.analysis.push(performance.now() - t)
    }
    analysed.set(shape, figures)
  }
  const times = new Map(await timeEngine({ dataDir, engineModule, warm, timed: [...analysed].map(([shape, { queries }]) => [shape, queries]) }))
  const timed = new Map([...analysed].map(([shape, figures]) => {
    const { engine, totals } = times.get(shape) as { engine: number[], totals: number[] }
    return [shape, { ...figures, engine, matches: totals }]
  }))
  // Posting entries per query, read with this build's planner (the same for either engine).
  const db = new Database(join(dataDir, SEARCH_FILE), { readonly: true })
  const searcher = new Searcher(db)
  const local: LocalFigures = new Map()
  for (const [shape, figures] of timed) {
    const postings: number[] = []
    for (const query of figures.queries) postings.push(await searcher.postingEntries(query))
    local.set(shape, {
      analysisP50: quantiles(figures.analysis).p50,
      ...quantiles(figures.engine),
      max: Math.max(...figures.engine),
      over: figures.engine.filter((ms) => ms > TARGETS.engineP99).length,
      count: figures.engine.length,
      matches: median(figures.matches),
      postings: median(postings)
    })
  }
  db.close()
  return local
}

/** Stores the generated services 10,000 at a time, through a build's store and seed records. */
async function storeServices (store: SqliteCatalogStore, records: typeof seedRecords, entries: ReturnType<typeof generateServices>): Promise<void> {
  for (let i = 0; i < entries.length; i += 10_000) await store.insertServices(records(entries.slice(i, i + 10_000), new Date().toISOString()))
}

/** The embedded engine's module in a baseline build: under search/embedded/, or search/sqlite/ before the rename. */
function baselineEngineModule (root: string): string {
  const dist = join(root, 'dist', 'src', 'search')
  return [join(dist, 'embedded', 'engine.js'), join(dist, 'sqlite', 'engine.js')].find((path) => existsSync(path)) as string
}

/**
 * The same catalog for the baseline build, in a directory of its own, indexed by that build's
 * own indexer: an engine in another layout drops an index it cannot read, so sharing one
 * directory would wipe this build's index (or hand the baseline an empty one). A store in a
 * layout the baseline cannot read is written again by the baseline's store.
 */
async function baselineCopy (dataDir: string, root: string, entries: ReturnType<typeof generateServices>): Promise<string> {
  const n = entries.length
  const dir = mkdtempSync(join(tmpdir(), 'x402-bench-baseline-'))
  cpSync(dataDir, dir, { recursive: true })
  const dist = join(root, 'dist', 'src')
  const Engine = await loadEngineClass(baselineEngineModule(root))
  // The baseline may predate the move of the indexer to the top level.
  const indexerAt = [join(root, 'dist', 'indexer', 'indexer.js'), join(dist, 'indexer', 'indexer.js')].find((path) => existsSync(path)) as string
  const { Indexer: BaselineIndexer } = await import(indexerAt) as { Indexer: typeof Indexer }
  const { SqliteCatalogStore: Store } = await import(join(dist, 'store', 'sqlite', 'store.js')) as { SqliteCatalogStore: typeof SqliteCatalogStore }
  let store: SqliteCatalogStore
  try {
    store = new Store(dir)
  } catch (err) {
    // A build from before this store layout refuses the copy: it stores the same generated
    // services itself (its own seed records), as measureSize does for this build.
    log(`${n}: the baseline cannot open this build's store (${(err as Error).message}); it stores the services itself`)
    rmSync(dir, { recursive: true, force: true })
    const { seedRecords: baselineRecords } = await import(join(dist, 'domain', 'seed.js')) as { seedRecords: typeof seedRecords }
    store = new Store(dir)
    await storeServices(store, baselineRecords, entries)
  }
  const engine = new Engine(dir)
  await new BaselineIndexer({ store, engine, tokenizer: await loadTokenizer(), logger: { info: () => {}, error: log, debug: () => {} }, batchSize: 500 }).reindex()
  await engine.close()
  await store.close()
  log(`${n}: baseline copy indexed by the baseline's indexer`)
  return dir
}

async function measureLocalInChild (dataDir: string, n: number, perShape: number, seed: number, engineModule?: string): Promise<LocalFigures> {
  const child = startChild(`in-process ${n}`, [fileURLToPath(import.meta.url), '--local', dataDir, '--sizes', String(n), '--engine-queries', String(perShape), '--seed', String(seed), ...(engineModule === undefined ? [] : ['--engine', engineModule])], {})
  await Promise.all([child.exited, once(child.process.stdout as Readable, 'close')])
  const line = /^LOCAL (.*)$/m.exec(child.output())?.[1]
  if (line === undefined) throw new Error(`the in-process measurement printed no figures:\n${child.output()}`)
  log(`${n}: in-process done${engineModule === undefined ? '' : ' (baseline)'}`)
  return new Map(JSON.parse(line) as Array<[Shape, ShapeFigures]>)
}

/**
 * Search URLs for a list of queries, each URL distinct: a query asked again (common words
 * repeat) gets another page size and offset, so no response cache answers a repeat.
 */
function searchPaths (endpoint: string, queries: readonly string[]): string[] {
  const asked = new Map<string, number>()
  return queries.map((q) => {
    const v = asked.get(q) ?? 0
    asked.set(q, v + 1)
    return `${endpoint}?q=${encode(q)}&limit=${16 + (v % 9)}&offset=${Math.floor(v / 9) % 4}`
  })
}

/** Interleaves lists (one of each in turn), so a stream mixes its shapes evenly in time. */
function interleave (lists: ReadonlyArray<readonly string[]>): string[] {
  const out: string[] = []
  for (let i = 0; lists.some((list) => i < list.length); i++) for (const list of lists) if (i < list.length) out.push(list[i] as string)
  return out
}

async function measureSize (n: number): Promise<SizeReport> {
  const duration = int('duration', args.duration, 1, 120)
  const connections = int('connections', args.connections, 1, 500)
  const perKind = int('per-kind', args['per-kind'], 10, 2000)
  const engineQueries = int('engine-queries', args['engine-queries'], 10, 10_000)
  const rounds = int('rounds', args.rounds, 1, 20)
  const searchers = int('searchers', args.searchers, 1, 100)
  const perSecond = int('registrations-per-second', args['registrations-per-second'], 1, 1000)
  const writeSeconds = int('write-seconds', args['write-seconds'], 1, 120)
  const seed = Number(args.seed)
  const dataDir = mkdtempSync(join(tmpdir(), 'x402-bench-search-'))
  const cleanup = (): void => rmSync(dataDir, { recursive: true, force: true })
  process.on('exit', cleanup)
  try {
    // ---- catalog and index
    let started = performance.now()
    const entries = generateServices(n, seed)
    const store = new SqliteCatalogStore(dataDir)
    await storeServices(store, seedRecords, entries)
    log(`${n}: stored in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    const tokenizer = await loadTokenizer()
    const engine = new EmbeddedSearchEngine(dataDir)
    const indexer = new Indexer({ store, engine, tokenizer, logger: { info: () => {}, error: log, debug: () => {} }, batchSize: 500 })
    started = performance.now()
    await indexer.reindex((done, total) => { if (done % 25_000 < 500 || done === total) log(`${n}: reindex ${done}/${total}`) })
    const reindexS = (performance.now() - started) / 1000
    const memory = await engine.memory()
    const indexMb = { postings: memory.bytes.postings / 2 ** 20, documents: memory.bytes.documents / 2 ** 20, terms: memory.bytes.terms / 2 ** 20 }

    await engine.close()
    await store.close()

    // ---- in-process, in a fresh process: what an earlier size left in this one (JIT
    // feedback, heap) must not weigh on this size's figures.
    const stream = shapeStream(entries, perKind, seed + 4)
    const local = await measureLocalInChild(dataDir, n, engineQueries, seed)
    // Absolute: the engine module is imported from dist/bench/, not from where the command runs.
    const baselineRoot = args.baseline === undefined ? undefined : resolve(args.baseline)
    const baselineDir = baselineRoot === undefined ? undefined : await baselineCopy(dataDir, baselineRoot, entries)
    if (baselineDir !== undefined) process.on('exit', () => rmSync(baselineDir, { recursive: true, force: true }))
    const baselineLocal = baselineRoot === undefined || baselineDir === undefined ? undefined : await measureLocalInChild(baselineDir, n, engineQueries, seed, baselineEngineModule(baselineRoot))

    // ---- servers: default (caches on, search thread), response cache off, bare, baseline
    const apiKey = 'bench-key-0123456789abcdef'
    const threadEnv: Record<string, string> = args['search-threads'] === undefined ? {} : { CATALOG_SEARCH_THREADS: String(int('search-threads', args['search-threads'], 1, 8)) }
    const api = await startApi('catalog', dataDir, { CATALOG_API_KEYS: apiKey, ...threadEnv })
    const pid = api.child.process.pid as number
    const idle = rssOf(pid)
    const uncachedEnv = { CATALOG_INDEXER: 'external', CATALOG_RESPONSE_CACHE_MB: '0', ...threadEnv }
    const uncached = await startApi('uncached catalog', dataDir, uncachedEnv)
    const baselineApi = baselineRoot === undefined || baselineDir === undefined ? undefined : await startApi('baseline catalog', baselineDir, uncachedEnv, join(baselineRoot, 'dist', 'src', 'server.js'))

    const random = prng(seed + 9)
    const catalogUrls = new Map(SHAPES.map((shape) => [shape, searchPaths('/api/catalog/search', stream.get(shape) as string[])]))
    const intentUrls = new Map(SHAPES.map((shape) => [shape, searchPaths('/api/services/search/intent', stream.get(shape) as string[])]))
    const ownUrls = (shape: Shape): string[] => (INTENT_SHAPES.includes(shape) ? intentUrls : catalogUrls).get(shape) as string[]
    const commonCatalog = interleave(COMMON_SHAPES.map((shape) => catalogUrls.get(shape) as string[]))
    const commonIntent = interleave(COMMON_SHAPES.map((shape) => intentUrls.get(shape) as string[]))
    const all: Target[] = ['cached', 'uncached', 'bare', ...(baselineApi === undefined ? [] : ['baseline' as const])]
    const computed: Target[] = all.filter((target) => target !== 'cached')
    const scenarios: Array<{ name: string, paths: string[], targets: Target[] }> = [
      { name: 'list, random max price and offset', paths: listPaths(n, random), targets: all },
      { name: 'catalog search, common-word stream', paths: commonCatalog, targets: all },
      { name: 'intent search, common-word stream', paths: commonIntent, targets: all },
      ...SHAPES.map((shape) => ({ name: `shape ${shape}`, paths: ownUrls(shape), targets: computed }))
    ]
    // The bare process answers each URL with the bytes the catalog answered.
    const fixtureFile = join(dataDir, 'bare-fixture.json')
    writeFileSync(fixtureFile, JSON.stringify(await captureFixture(uncached.url, [...new Set(scenarios.flatMap((scenario) => scenario.paths))])))
    const bare = await startBare(fixtureFile)
    const servers: Record<Target, { url: string, pid?: number } | undefined> = {
      cached: { url: api.url, pid },
      uncached: { url: uncached.url, pid: uncached.child.process.pid as number },
      bare: { url: bare.url },
      baseline: baselineApi === undefined ? undefined : { url: baselineApi.url, pid: baselineApi.child.process.pid as number }
    }
    // Warm-up (JIT, SQLite and kuromoji code paths) with queries of another stream, so no
    // measured URL is in the cached server's response cache before its run.
    const warmup = int('warmup', args.warmup, 0, 60)
    if (warmup > 0) {
      const measured = new Set([...scenarios.flatMap((scenario) => scenario.paths)])
      const other = [...shapeStream(entries, perKind, seed + 5).values()].flat()
      const warmPaths = [...searchPaths('/api/catalog/search', other), ...searchPaths('/api/services/search/intent', other)].filter((path) => !measured.has(path))
      for (const target of ['cached', 'uncached', 'baseline'] as const) {
        const server = servers[target]
        if (server !== undefined) await load({ url: server.url, connections, duration: warmup, requests: pathStream(warmPaths) }, (warmup + 15) * 1000)
      }
      log(`${n}: warmed up (${warmup} s per server, ${warmPaths.length} other URLs)`)
    }
    const http = new Map<string, Partial<Record<Target, HttpRun>>>()
    for (const scenario of scenarios) {
      const samples = new Map<Target, HttpRun[]>()
      for (let round = 0; round < rounds; round++) {
        // Rotate the order every round, so no target always runs first (or after the warmest).
        const order = scenario.targets.map((_, i) => scenario.targets[(i + round) % scenario.targets.length] as Target)
        for (const target of order) {
          const server = servers[target] as { url: string, pid?: number }
          const before = server.pid === undefined ? undefined : threadTicks(server.pid)
          const started = performance.now()
          const run: HttpRun = await load({ url: server.url, connections, duration, requests: pathStream(scenario.paths) }, (duration + 15) * 1000)
          if (before !== undefined && server.pid !== undefined) run.cpu = cpuShares(server.pid, before, threadTicks(server.pid), (performance.now() - started) / 1000)
          samples.set(target, [...(samples.get(target) ?? []), run])
          log(`${n}: ${scenario.name} ${target}: ${fmt.rps(run.rps)} req/s, p99 ${fmt.ms(run.p99)} ms`)
        }
      }
      // Medians across rounds, per figure.
      const runs: Partial<Record<Target, HttpRun>> = {}
      for (const [target, list] of samples) {
        const pick = (f: (r: HttpRun) => number): number => median(list.map(f))
        runs[target] = {
          rps: pick((r) => r.rps),
          p50: pick((r) => r.p50),
          p99: pick((r) => r.p99),
          responses: pick((r) => r.responses),
          failures: list.reduce((a, r) => a + r.failures, 0),
          statuses: list.reduce((m, r) => { for (const [k, v] of r.statuses) m.set(k, (m.get(k) ?? 0) + v); return m }, new Map<number, number>()),
          ...(list[0]?.cpu === undefined ? {} : { cpu: { main: pick((r) => r.cpu?.main ?? 0), busiestOther: pick((r) => r.cpu?.busiestOther ?? 0), total: pick((r) => r.cpu?.total ?? 0) } })
        }
      }
      http.set(scenario.name, runs)
    }
    await stopChild(bare.child)
    await stopChild(uncached.child)
    if (baselineApi !== undefined) await stopChild(baselineApi.child)

    // ---- writes: alone, then while `searchers` clients search continuously (distinct queries)
    const endpoints = await startPaidEndpoints()
    const quiet = await registrations(api.url, apiKey, endpoints, perSecond, Math.max(2, Math.round(writeSeconds / 2)), n, 1)
    log(`${n}: registrations alone: POST p99 ${fmt.ms(quiet.postP99)} ms, searchable p99 ${fmt.ms(quiet.lagP99)} ms`)
    const writeSearchPaths = [...commonCatalog, ...commonIntent].map((path) => `${path.replace(/&offset=\d+/, '')}&offset=${4 + Math.floor(random() * 3)}`)
    const searching = load({ url: api.url, connections: searchers, duration: writeSeconds + 2, requests: pathStream(writeSearchPaths) }, (writeSeconds + 20) * 1000)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const loaded = await registrations(api.url, apiKey, endpoints, perSecond, writeSeconds, n, 2)
    const searchRun = await searching
    await endpoints.close()
    log(`${n}: registrations with ${searchers} searchers (${fmt.rps(searchRun.rps)} searches/s): POST p99 ${fmt.ms(loaded.postP99)} ms, searchable p99 ${fmt.ms(loaded.lagP99)} ms`)

    // ---- a reindex by the CLI while the API serves searches
    let reindexPeak: number | undefined
    const beforeReindex = rssOf(pid).peak
    if (args['reindex-while-serving'] === 'yes') {
      const reindex = startChild('reindex', [join(PROJECT_ROOT, 'dist', 'indexer', 'cli.js'), 'reindex'], { DATA_DIR: dataDir, LOG_LEVEL: 'warn' })
      const serving = (async () => {
        while (reindex.process.exitCode === null && reindex.process.signalCode === null) {
          await load({ url: api.url, connections: 4, duration: 2, requests: pathStream(writeSearchPaths) }, 20_000)
        }
      })()
      await reindex.exited
      await serving
      // The search thread loads the new generation on its next query.
      await fetch(`${api.url}/api/catalog/search?q=weather`)
      reindexPeak = rssOf(pid).peak
      log(`${n}: reindex while serving done, API peak RSS ${reindexPeak.toFixed(0)} MB`)
    }
    const rss = { idle: idle.rss, peak: rssOf(pid).peak, beforeReindex, reindexPeak }
    await stopChild(api.child)
    return { n, reindexS, indexMb, local, baselineLocal, http, writes: { quiet, loaded, searchRps: searchRun.rps }, rss }
  } finally {
    cleanup()
  }
}

function errorsOf (s: RunStats): string {
  const n = s.failures + countNot(s.statuses, (status) => status === 200)
  return n > 0 ? ` (${n} errors)` : ''
}

function report (reports: SizeReport[]): string {
  const verdict = (ok: boolean): string => (ok ? 'met' : '**missed**')
  const last = reports.at(-1) as SizeReport
  const sizes = reports.map((r) => r.n.toLocaleString('en-US'))
  const lines: string[] = [
    `Machine: ${machine()}; the load generator and the bare server share these CPUs with the API.`,
    `Run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, sizes ${sizes.join(' → ')}, ${args.connections ?? ''} connections × ${args.duration ?? ''} s per HTTP run, median of ${args.rounds ?? '1'} round(s), ${args['per-kind'] ?? ''} queries per shape over HTTP and ${args['engine-queries'] ?? ''} in-process; load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' / ')}${args.baseline === undefined ? '' : `; baseline: ${args.baseline}`}.`,
    '',
    'Per query shape, at each size: the median matches and posting entries (candidate terms\' postings, category lists included) of a query; **engine** time in-process (the engine alone on one thread, the query already analysed; analysis p50 beside it), ms p50 / p99, and the queries over ' + String(TARGETS.engineP99) + ' ms with the slowest; over HTTP (50 connections, every request a new URL), the shape\'s endpoint with the response cache off: req/s · p99 ms, the bare route\'s req/s, and the ratio; CPU of the API\'s main thread / its busiest other thread (the search thread), in cores. *baseline*: the same figures for the build given by `--baseline`, same data, same run.',
    '',
    ...reports.flatMap((r) => [
      `${r.n.toLocaleString('en-US')} services:`,
      '',
      table(['shape', 'endpoint', 'matches', 'postings', 'analysis p50', 'engine p50 / p99', `engine > ${TARGETS.engineP99} ms (max)`, 'baseline engine', 'uncached req/s · p99', 'bare req/s', 'ratio', 'baseline req/s · p99', 'baseline ratio', 'CPU main / search', 'baseline CPU', `target (engine ≤ ${TARGETS.engineP50} / ${TARGETS.engineP99})`],
        SHAPES.map((shape) => {
          const v = r.local.get(shape)
          const b = r.baselineLocal?.get(shape)
          const runs = r.http.get(`shape ${shape}`) ?? {}
          const bare = runs.bare?.rps ?? NaN
          const cell = (run: HttpRun | undefined): string => run === undefined ? '' : `${fmt.rps(run.rps)} · ${fmt.ms(run.p99)}${errorsOf(run)}`
          const cpu = (run: HttpRun | undefined): string => run?.cpu === undefined ? '' : `${run.cpu.main.toFixed(2)} / ${run.cpu.busiestOther.toFixed(2)}`
          const ok = v !== undefined && v.p50 <= TARGETS.engineP50 && v.p99 <= TARGETS.engineP99
          return [shape, INTENT_SHAPES.includes(shape) ? 'intent' : 'catalog', v === undefined ? '' : fmt.rps(v.matches), v === undefined ? '' : fmt.rps(v.postings), v === undefined ? '' : fmt.ms(v.analysisP50),
            v === undefined ? '' : `${fmt.ms(v.p50)} / ${fmt.ms(v.p99)}`, v === undefined ? '' : `${v.over} of ${v.count} (${fmt.ms(v.max)})`, b === undefined ? '' : `${fmt.ms(b.p50)} / ${fmt.ms(b.p99)}`,
            cell(runs.uncached), fmt.rps(bare), runs.uncached === undefined ? '' : (runs.uncached.rps / bare).toFixed(3),
            cell(runs.baseline), runs.baseline === undefined ? '' : (runs.baseline.rps / bare).toFixed(3), cpu(runs.uncached), cpu(runs.baseline), verdict(ok)]
        })),
      ''
    ]),
    '**Streams** over HTTP, 50 connections, every request a new URL: req/s · p99 ms. *cached*: default server; *uncached*: `CATALOG_RESPONSE_CACHE_MB=0`; *bare*: a bare Fastify process replaying the same bytes; *baseline*: the `--baseline` build, cache off; ratio = req/s ÷ bare req/s. The common-word stream interleaves every shape but the rare words.',
    '',
    table(['stream', ...reports.flatMap((r) => [`${r.n.toLocaleString('en-US')} cached`, 'uncached', 'bare', 'baseline', 'ratio c / u / baseline', 'CPU main / search u · baseline']), `target at ${sizes.at(-1) as string}`],
      [...last.http.keys()].filter((name) => !name.startsWith('shape ')).map((name) => {
        const cells = reports.flatMap((r) => {
          const runs = r.http.get(name) ?? {}
          const bare = runs.bare?.rps ?? NaN
          const cell = (s: HttpRun | undefined): string => s === undefined ? '' : `${fmt.rps(s.rps)} · ${fmt.ms(s.p99)}${errorsOf(s)}`
          const ratio = (s: HttpRun | undefined): string => s === undefined ? '–' : (s.rps / bare).toFixed(3)
          const cpu = (s: HttpRun | undefined): string => s?.cpu === undefined ? '–' : `${s.cpu.main.toFixed(2)} / ${s.cpu.busiestOther.toFixed(2)}`
          return [cell(runs.cached), cell(runs.uncached), cell(runs.bare), cell(runs.baseline), `${ratio(runs.cached)} / ${ratio(runs.uncached)} / ${ratio(runs.baseline)}`, `${cpu(runs.uncached)} · ${cpu(runs.baseline)}`]
        })
        const runs = last.http.get(name) ?? {}
        const bare = runs.bare?.rps ?? NaN
        const measured = [runs.cached, runs.uncached].filter((s) => s !== undefined)
        const list = name.startsWith('list')
        const ok = list
          ? measured.every((s) => s.rps / bare >= TARGETS.listRatio)
          : measured.every((s) => s.rps / bare >= TARGETS.streamRatio && s.p99 <= TARGETS.streamP99)
        return [name, ...cells, list ? `${verdict(ok)} (ratio ≥ ${TARGETS.listRatio})` : `${verdict(ok)} (ratio ≥ ${TARGETS.streamRatio}, p99 ≤ ${TARGETS.streamP99})`]
      })),
    '',
    `**Writes** at ${args['registrations-per-second'] ?? ''} registrations/s, alone and while ${args.searchers ?? ''} clients search continuously (distinct queries):`,
    '',
    table(['figure', ...reports.flatMap((r) => [`${r.n.toLocaleString('en-US')} alone`, 'searching']), `target at ${sizes.at(-1) as string}`], [
      ['searches/s meanwhile', ...reports.flatMap((r) => ['', fmt.rps(r.writes.searchRps)]), ''],
      ['POST p50 / p99 ms', ...reports.flatMap((r) => [r.writes.quiet, r.writes.loaded].map((w) => `${fmt.ms(w.postP50)} / ${fmt.ms(w.postP99)}`)), `${verdict(last.writes.loaded.postP99 <= TARGETS.postP99)} (p99 ≤ ${TARGETS.postP99})`],
      ['POST timeouts (30 s) / non-201', ...reports.flatMap((r) => [r.writes.quiet, r.writes.loaded].map((w) => `${w.timeouts} / ${w.failures}`)), `${verdict(last.writes.loaded.timeouts === 0)} (no timeouts)`],
      ['registration → searchable p50 / p99 ms', ...reports.flatMap((r) => [r.writes.quiet, r.writes.loaded].map((w) => `${fmt.ms(w.lagP50)} / ${fmt.ms(w.lagP99)}`)), `${verdict(last.writes.loaded.lagP99 <= TARGETS.lagP99)} (p99 ≤ ${TARGETS.lagP99})`],
      ['/health p99 ms', ...reports.flatMap((r) => [r.writes.quiet, r.writes.loaded].map((w) => fmt.ms(w.healthP99))), '']
    ]),
    '',
    '**Index and memory:**',
    '',
    table(['figure', ...sizes, `target at ${sizes.at(-1) as string}`], [
      ['reindex (kuromoji analysis + SQLite writes)', ...reports.map((r) => `${r.reindexS.toFixed(1)} s`), ''],
      ['in-memory index: postings / documents / term keys (MB)', ...reports.map((r) => `${r.indexMb.postings.toFixed(1)} / ${r.indexMb.documents.toFixed(1)} / ${r.indexMb.terms.toFixed(1)}`), ''],
      ['API RSS idle after start (MB)', ...reports.map((r) => r.rss.idle.toFixed(0)), ''],
      ['API peak RSS through the run, VmHWM (MB)', ...reports.map((r) => r.rss.peak.toFixed(0)), `${verdict(last.rss.peak <= TARGETS.rssMb)} (≤ ${TARGETS.rssMb})`],
      ['… peak before the reindex (searches and writes)', ...reports.map((r) => r.rss.beforeReindex.toFixed(0)), ''],
      ['… peak after a reindex by the CLI while serving', ...reports.map((r) => r.rss.reindexPeak === undefined ? 'not run' : r.rss.reindexPeak.toFixed(0)), '']
    ])
  ]
  return lines.join('\n')
}

async function benchmark (): Promise<void> {
  const sizes = (args.sizes ?? '').split(',').map((s) => int('sizes', s.trim(), 100, 1_000_000))
  log(`machine: ${machine()}`)
  const reports: SizeReport[] = []
  for (const n of sizes) reports.push(await measureSize(n))
  const text = report(reports)
  process.stdout.write(`${text}\n`)
  if (args.out !== '-' && args.out !== undefined) {
    const doc = readFileSync(args.out, 'utf8')
    const begin = doc.indexOf(MARK_BEGIN)
    const end = doc.indexOf(MARK_END)
    if (begin < 0 || end < begin) {
      log(`${args.out} has no ${MARK_BEGIN} … ${MARK_END} section: not written`)
    } else {
      writeFileSync(args.out, `${doc.slice(0, begin + MARK_BEGIN.length)}\n${text}\n${doc.slice(end)}`)
      log(`results written to ${args.out}`)
    }
  }
}

const main = args.local !== undefined
  ? measureLocal(args.local, int('sizes', args.sizes, 100, 1_000_000), int('engine-queries', args['engine-queries'], 10, 10_000), Number(args.seed), args.engine).then((local) => { process.stdout.write(`LOCAL ${JSON.stringify([...local])}\n`) })
  : benchmark()
main.then(async () => {
  for (const child of children) await stopChild(child)
}, async (err: unknown) => {
  log(`bench:search failed: ${(err as Error).stack ?? String(err)}`)
  for (const child of children) await stopChild(child)
  process.exitCode = 1
})
