/**
 * npm run bench:search [-- --sizes 10000,100000]: the search benchmark.
 *
 * For each catalog size: generates the services, reindexes them, then measures
 *  - in-process search (engine + query analysis, on this thread, no cache) per query kind,
 *    on a stream of distinct queries (no query is asked twice);
 *  - HTTP at 50 connections for the list with random filters and offsets, keyword, catalog
 *    and intent search, against the default server (caches on), a server with the response
 *    cache off, and a bare Fastify process replaying the very same bytes (the ceiling);
 *  - registrations at a steady rate while 8 clients search: POST latency, timeouts, /health
 *    latency and registration → searchable, next to the same registrations without search load;
 *  - the API's RSS all along (VmHWM), including a reindex by the CLI while it serves.
 * It prints the tables, how each figure grows across sizes, and writes them into
 * docs/benchmarks.md (--out - prints only). It never fails on a figure.
 */
import { once } from 'node:events'
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import type { Readable } from 'node:stream'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Indexer } from '../src/indexer/indexer.js'
import { seedRecords } from '../src/domain/seed.js'
import { PROJECT_ROOT } from '../src/paths.js'
import { analyzeIntent, splitQueryWords } from '../src/search/analysis/analyzer.js'
import { loadTokenizer } from '../src/search/analysis/tokenizer.js'
import { SqliteSearchEngine } from '../src/search/sqlite/engine.js'
import { SqliteCatalogStore } from '../src/store/sqlite/store.js'
import { captureFixture, startBare } from './bare.js'
import { generateServices, prng, registrationBody } from './generate.js'
import { KEYWORD_KINDS, listPaths, QUERY_KINDS, queryStream, SENTENCE_KINDS } from './queries.js'
import { API_NODE_FLAGS, children, countNot, fmt, freePort, HOST, load, log, machine, percentile, startChild, stopChild, table, waitUntil, type Child, type RunStats } from './support.js'

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    'per-kind': { type: 'string', default: '100' },
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

const TARGETS = { localP50: 1, localP99: 10, httpRps: 300, httpP99: 250, listRatio: 0.3, postP99: 100, lagP99: 500, rssMb: 450 }
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

interface SizeReport {
  n: number
  reindexS: number
  indexMb: { postings: number, documents: number, terms: number }
  local: Map<string, { p50: number, p99: number, count: number }>
  http: Map<string, Record<'cached' | 'uncached' | 'bare', RunStats>>
  writes: { quiet: WriteStats, loaded: WriteStats, searchRps: number }
  rss: { idle: number, peak: number, reindexPeak: number | undefined }
}

interface WriteStats { posts: number, postP50: number, postP99: number, timeouts: number, failures: number, lagP50: number, lagP99: number, healthP99: number }

const encode = encodeURIComponent

async function startApi (name: string, dataDir: string, env: Record<string, string>): Promise<{ child: Child, url: string }> {
  const port = await freePort()
  const child = startChild(name, [...API_NODE_FLAGS, join(PROJECT_ROOT, 'dist', 'src', 'server.js')], {
    // No rate limits (one client IP makes every request) and no probes of the fictional hosts.
    DATA_DIR: dataDir, PORT: String(port), HOST, CATALOG_SEED: 'none', LOG_LEVEL: 'warn', CATALOG_RATE_LIMIT: '0', CATALOG_PROBE_INTERVAL_S: '0', ...env
  })
  const url = `http://${HOST}:${port}`
  await waitUntil(child, 'a healthy /health', async () => ((await fetch(`${url}/health`)).ok ? true : undefined), 300_000)
  // The search thread loads its index in the background: wait until it answers.
  await waitUntil(child, 'a first search', async () => ((await fetch(`${url}/api/catalog/search?q=warmup`)).ok ? true : undefined), 300_000)
  return { child, url }
}

/** Registrations at a steady rate (each with a unique word), each polled until searchable. */
async function registrations (url: string, apiKey: string, perSecond: number, seconds: number, n: number, seed: number): Promise<WriteStats> {
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
    const body = { ...registrationBody(entries[i] as (typeof entries)[number]), name: `${token} ${(entries[i] as (typeof entries)[number]).name}`.slice(0, 255) }
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

type LocalFigures = Map<string, { p50: number, p99: number, count: number }>

/** In-process search: distinct queries per kind, each analysed as its endpoint does, then the engine on this thread. */
async function measureLocal (dataDir: string, n: number, perKind: number, seed: number): Promise<LocalFigures> {
  const entries = generateServices(n, seed)
  const stream = queryStream(entries, perKind, seed + 4)
  const tokenizer = await loadTokenizer()
  const engine = new SqliteSearchEngine(dataDir)
  const local: LocalFigures = new Map()
  const page = { limit: 20, offset: 0 }
  // Load the index, then warm every path up with queries of another stream (none measured).
  await engine.memory()
  const measured = new Set([...stream.values()].flat())
  for (const [kind, queries] of queryStream(entries, Math.min(perKind, 30), seed + 5)) {
    for (const q of queries.filter((text) => !measured.has(text))) {
      const words = SENTENCE_KINDS.includes(kind) ? analyzeIntent(q, tokenizer).tokens : splitQueryWords(q)
      for (const filter of [{}, { status: 'verified' as const }]) await engine.search({ words, filter, page, prefixLastWord: !SENTENCE_KINDS.includes(kind) })
    }
  }
  for (const kind of QUERY_KINDS) {
    const queries = stream.get(kind) as string[]
    const modes = KEYWORD_KINDS.includes(kind) ? ['keyword', 'catalog', 'intent'] as const : ['intent'] as const
    for (const mode of modes) {
      const samples: number[] = []
      for (const q of queries) {
        const t = performance.now()
        const words = mode === 'intent' ? analyzeIntent(q, tokenizer).tokens : splitQueryWords(q)
        await engine.search({ words, filter: mode === 'keyword' ? { status: 'verified' } : {}, page, prefixLastWord: mode !== 'intent' })
        samples.push(performance.now() - t)
      }
      local.set(`${mode} ${kind}`, { ...quantiles(samples), count: samples.length })
    }
  }
  await engine.close()
  return local
}

async function measureLocalInChild (dataDir: string, n: number, perKind: number, seed: number): Promise<LocalFigures> {
  const child = startChild(`in-process ${n}`, [fileURLToPath(import.meta.url), '--local', dataDir, '--sizes', String(n), '--per-kind', String(perKind), '--seed', String(seed)], {})
  await Promise.all([child.exited, once(child.process.stdout as Readable, 'close')])
  const line = /^LOCAL (.*)$/m.exec(child.output())?.[1]
  if (line === undefined) throw new Error(`the in-process measurement printed no figures:\n${child.output()}`)
  log(`${n}: in-process done`)
  return new Map(JSON.parse(line) as Array<[string, { p50: number, p99: number, count: number }]>)
}

async function measureSize (n: number): Promise<SizeReport> {
  const duration = int('duration', args.duration, 1, 120)
  const connections = int('connections', args.connections, 1, 500)
  const perKind = int('per-kind', args['per-kind'], 10, 2000)
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
    for (let i = 0; i < n; i += 10_000) await store.insertServices(seedRecords(entries.slice(i, i + 10_000), new Date().toISOString()))
    log(`${n}: stored in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    const tokenizer = await loadTokenizer()
    const engine = new SqliteSearchEngine(dataDir)
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
    const stream = queryStream(entries, perKind, seed + 4)
    const local = await measureLocalInChild(dataDir, n, perKind, seed)

    // ---- servers: default (caches on, search thread), response cache off, bare
    const apiKey = 'bench-key-0123456789abcdef'
    const api = await startApi('catalog', dataDir, { CATALOG_API_KEYS: apiKey })
    const pid = api.child.process.pid as number
    const idle = rssOf(pid)
    const uncached = await startApi('uncached catalog', dataDir, { CATALOG_INDEXER: 'external', CATALOG_RESPONSE_CACHE_MB: '0' })

    const random = prng(seed + 9)
    const keywordQueries = KEYWORD_KINDS.flatMap((kind) => stream.get(kind) as string[])
    const sentenceQueries = [...(stream.get('ja-sentence') as string[]), ...(stream.get('en-sentence') as string[]), ...(stream.get('japanese') as string[])]
    const scenarios: Array<{ name: string, paths: string[] }> = [
      {
        name: 'list, random max price and offset',
        paths: listPaths(n, random)
      },
      { name: 'keyword /api/services?query=', paths: keywordQueries.map((q) => `/api/services?query=${encode(q)}&status=verified&limit=20`) },
      { name: 'catalog /api/catalog/search', paths: keywordQueries.map((q) => `/api/catalog/search?q=${encode(q)}&limit=20`) },
      { name: 'intent /api/services/search/intent', paths: sentenceQueries.map((q) => `/api/services/search/intent?q=${encode(q)}&limit=20`) }
    ]
    // The bare process answers each URL with the bytes the catalog answered.
    const fixtureFile = join(dataDir, 'bare-fixture.json')
    writeFileSync(fixtureFile, JSON.stringify(await captureFixture(uncached.url, scenarios.flatMap((scenario) => scenario.paths))))
    const bare = await startBare(fixtureFile)
    const targets = { cached: api.url, uncached: uncached.url, bare: bare.url } as const
    // Warm-up (JIT, SQLite and kuromoji code paths) with queries of another stream, so no
    // measured URL is in the cached server's response cache before its run.
    const warmup = int('warmup', args.warmup, 0, 60)
    if (warmup > 0) {
      const measured = new Set([...stream.values()].flat())
      const other = [...queryStream(entries, perKind, seed + 5).values()].flat().filter((q) => !measured.has(q))
      const warmPaths = other.flatMap((q) => [`/api/catalog/search?q=${encode(q)}&limit=20`, `/api/services/search/intent?q=${encode(q)}&limit=20`, `/api/services?query=${encode(q)}&limit=20`])
      for (const base of [api.url, uncached.url]) await load({ url: base, connections, duration: warmup, requests: warmPaths.map((path) => ({ path })) }, (warmup + 15) * 1000)
      log(`${n}: warmed up (${warmup} s per server, ${warmPaths.length} other URLs)`)
    }
    const http = new Map<string, Record<'cached' | 'uncached' | 'bare', RunStats>>()
    for (const scenario of scenarios) {
      const runs: Partial<Record<'cached' | 'uncached' | 'bare', RunStats>> = {}
      for (const [target, base] of Object.entries(targets) as Array<['cached' | 'uncached' | 'bare', string]>) {
        runs[target] = await load({ url: base, connections, duration, requests: scenario.paths.map((path) => ({ path })) }, (duration + 15) * 1000)
        log(`${n}: ${scenario.name} ${target}: ${fmt.rps(runs[target].rps)} req/s, p99 ${fmt.ms(runs[target].p99)} ms`)
      }
      http.set(scenario.name, runs as Record<'cached' | 'uncached' | 'bare', RunStats>)
    }
    await stopChild(bare.child)
    await stopChild(uncached.child)

    // ---- writes: alone, then while `searchers` clients search continuously (distinct queries)
    const quiet = await registrations(api.url, apiKey, perSecond, Math.max(2, Math.round(writeSeconds / 2)), n, 1)
    log(`${n}: registrations alone: POST p99 ${fmt.ms(quiet.postP99)} ms, searchable p99 ${fmt.ms(quiet.lagP99)} ms`)
    const searchPaths = [...(scenarios[2] as { paths: string[] }).paths, ...(scenarios[3] as { paths: string[] }).paths].map((path) => `${path}&offset=${1 + Math.floor(random() * 3)}`)
    const searching = load({ url: api.url, connections: searchers, duration: writeSeconds + 2, requests: searchPaths.map((path) => ({ path })) }, (writeSeconds + 20) * 1000)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const loaded = await registrations(api.url, apiKey, perSecond, writeSeconds, n, 2)
    const searchRun = await searching
    log(`${n}: registrations with ${searchers} searchers (${fmt.rps(searchRun.rps)} searches/s): POST p99 ${fmt.ms(loaded.postP99)} ms, searchable p99 ${fmt.ms(loaded.lagP99)} ms`)

    // ---- a reindex by the CLI while the API serves searches
    let reindexPeak: number | undefined
    if (args['reindex-while-serving'] === 'yes') {
      const reindex = startChild('reindex', [join(PROJECT_ROOT, 'dist', 'src', 'indexer', 'cli.js'), 'reindex'], { DATA_DIR: dataDir, LOG_LEVEL: 'warn' })
      const serving = (async () => {
        while (reindex.process.exitCode === null && reindex.process.signalCode === null) {
          await load({ url: api.url, connections: 4, duration: 2, requests: searchPaths.map((path) => ({ path })) }, 20_000)
        }
      })()
      await reindex.exited
      await serving
      // The search thread loads the new generation on its next query.
      await fetch(`${api.url}/api/catalog/search?q=weather`)
      reindexPeak = rssOf(pid).peak
      log(`${n}: reindex while serving done, API peak RSS ${reindexPeak.toFixed(0)} MB`)
    }
    const rss = { idle: idle.rss, peak: rssOf(pid).peak, reindexPeak }
    await stopChild(api.child)
    return { n, reindexS, indexMb, local, http, writes: { quiet, loaded, searchRps: searchRun.rps }, rss }
  } finally {
    cleanup()
  }
}

function report (reports: SizeReport[]): string {
  const verdict = (ok: boolean): string => (ok ? 'met' : '**missed**')
  const last = reports.at(-1) as SizeReport
  const sizes = reports.map((r) => r.n.toLocaleString('en-US'))
  const lines: string[] = [
    `Machine: ${machine()}; the load generator and the bare server share these CPUs with the API.`,
    `Run: ${new Date().toISOString().slice(0, 10)}, sizes ${sizes.join(' → ')}, ${args.connections ?? ''} connections × ${args.duration ?? ''} s per HTTP run, ${args['per-kind'] ?? ''} distinct queries per kind.`,
    '',
    '**In-process** (engine + query analysis on one thread, no cache), ms, p50 / p99 per size:',
    '',
    table(['query kind', ...sizes.map((s) => `${s} keyword`), ...sizes.map((s) => `${s} catalog`), ...sizes.map((s) => `${s} intent`), `target at ${sizes.at(-1) as string}`],
      QUERY_KINDS.map((kind) => {
        const cell = (r: SizeReport, mode: string): string => { const v = r.local.get(`${mode} ${kind}`); return v === undefined ? '' : `${fmt.ms(v.p50)} / ${fmt.ms(v.p99)}` }
        const worst = ['keyword', 'catalog', 'intent'].map((mode) => last.local.get(`${mode} ${kind}`)).filter((v) => v !== undefined)
        const ok = worst.every((v) => v.p50 <= TARGETS.localP50 && v.p99 <= TARGETS.localP99)
        return [kind, ...reports.map((r) => cell(r, 'keyword')), ...reports.map((r) => cell(r, 'catalog')), ...reports.map((r) => cell(r, 'intent')), `${verdict(ok)} (≤ ${TARGETS.localP50} / ${TARGETS.localP99})`]
      })),
    '',
    '**HTTP**, 50 connections, distinct URLs: req/s · p99 ms. *cached*: default server; *uncached*: `CATALOG_RESPONSE_CACHE_MB=0`; *bare*: a bare Fastify process replaying the same bytes; ratio = req/s ÷ bare req/s.',
    '',
    table(['endpoint', ...reports.flatMap((r) => [`${r.n.toLocaleString('en-US')} cached`, 'uncached', 'bare', 'ratio c / u']), `target at ${sizes.at(-1) as string}`],
      [...last.http.keys()].map((name) => {
        const cells = reports.flatMap((r) => {
          const runs = r.http.get(name) as Record<'cached' | 'uncached' | 'bare', RunStats>
          const bad = (s: RunStats): string => { const n = s.failures + countNot(s.statuses, (status) => status === 200); return n > 0 ? ` (${n} errors)` : '' }
          const cell = (s: RunStats): string => `${fmt.rps(s.rps)} · ${fmt.ms(s.p99)}${bad(s)}`
          return [cell(runs.cached), cell(runs.uncached), cell(runs.bare), `${(runs.cached.rps / runs.bare.rps).toFixed(2)} / ${(runs.uncached.rps / runs.bare.rps).toFixed(2)}`]
        })
        const runs = last.http.get(name) as Record<'cached' | 'uncached' | 'bare', RunStats>
        const list = name.startsWith('list')
        const ok = list
          ? runs.cached.rps / runs.bare.rps >= TARGETS.listRatio && runs.uncached.rps / runs.bare.rps >= TARGETS.listRatio
          : [runs.cached, runs.uncached].every((s) => s.rps >= TARGETS.httpRps && s.p99 <= TARGETS.httpP99)
        return [name, ...cells, list ? `${verdict(ok)} (ratio ≥ ${TARGETS.listRatio})` : `${verdict(ok)} (≥ ${TARGETS.httpRps} req/s, p99 ≤ ${TARGETS.httpP99})`]
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
      ['… of which during a reindex by the CLI while serving', ...reports.map((r) => r.rss.reindexPeak === undefined ? 'not run' : r.rss.reindexPeak.toFixed(0)), '']
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
  ? measureLocal(args.local, int('sizes', args.sizes, 100, 1_000_000), int('per-kind', args['per-kind'], 10, 2000), Number(args.seed)).then((local) => { process.stdout.write(`LOCAL ${JSON.stringify([...local])}\n`) })
  : benchmark()
main.then(async () => {
  for (const child of children) await stopChild(child)
}, async (err: unknown) => {
  log(`bench:search failed: ${(err as Error).stack ?? String(err)}`)
  for (const child of children) await stopChild(child)
  process.exitCode = 1
})
