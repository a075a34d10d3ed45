/**
 * npm run bench:search [-- --n 100000]: the search benchmark.
 *
 * Generates N bilingual services, then measures: reindex time (kuromoji analysis and
 * FTS5 writes), search latency in-process and over HTTP at 50 connections for keyword,
 * catalog and intent queries (with the plain filtered list as the same-run baseline),
 * registration → searchable lag, and the API process's RSS. Loopback only; every run is
 * bounded in time and stops by itself.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { Indexer } from '../indexer/indexer.js'
import { seedRecords } from '../src/domain/seed.js'
import { PROJECT_ROOT } from '../src/paths.js'
import { analyzeIntent, splitQueryWords } from '../src/search/analysis/analyzer.js'
import { loadTokenizer } from '../src/search/analysis/tokenizer.js'
import { openCatalogStore, openSearchEngine } from '../src/adapters.js'
import { loadConfig } from '../src/config.js'
import { generateServices, registrationBody } from './generate.js'
import { children, countNot, fmt, freePort, HOST, intOption, load, log, machine, median, percentile, startChild, stopChild, table, waitUntil } from './support.js'

const { values: args } = parseArgs({
  options: {
    n: { type: 'string', default: '10000' },
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    lag: { type: 'string', default: '100' },
    seed: { type: 'string', default: '7' }
  },
  strict: true
})

const KEYWORD_QUERIES = ['weather forecast', 'wether', 'translator', 'speech to text', 'てんき', '天気予報', '音声認識', '株価', 'screensh', 'geocoding', 'embedings', 'レシピ']
const INTENT_QUERIES = [
  '東京の天気予報を教えてください',
  'I want to find an API that converts speech to text please',
  '画像から文字を読み取りたい',
  'translate japanese to english',
  'レシピを探しています',
  'stock quotes for my trading bot',
  '郵便番号から住所を調べたい',
  'remove the background from product photos'
]
const TARGETS = { searchP99Ms: 15, lagP99Ms: 500, reindexS: 60, rssMb: 450 }

function rssOf (pid: number): { rss: number, peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN)
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 }
}

function quantiles (samples: number[]): { p50: number, p99: number } {
  const sorted = Float64Array.from(samples).sort()
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) }
}

async function benchmark (): Promise<void> {
  const n = intOption('n', args.n, 100, 1_000_000)
  const duration = intOption('duration', args.duration, 1, 120)
  const rounds = intOption('rounds', args.rounds, 1, 10)
  const connections = intOption('connections', args.connections, 1, 500)
  const lagSamples = intOption('lag', args.lag, 1, 10_000)
  const dataDir = mkdtempSync(join(tmpdir(), 'x402-bench-search-'))
  process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }))
  log(`machine: ${machine()}`)

  // ---- catalog and index
  let started = performance.now()
  const records = seedRecords(generateServices(n, Number(args.seed)), new Date().toISOString())
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir })
  const store = await openCatalogStore(config)
  for (let i = 0; i < records.length; i += 10_000) await store.insertServices(records.slice(i, i + 10_000))
  log(`stored ${n} services in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  started = performance.now()
  const tokenizer = await loadTokenizer()
  const dictionaryMs = performance.now() - started
  // No result cache here: the in-process figures are the computed search.
  const { engine } = await openSearchEngine(config, { cacheEntries: 0 })
  const indexer = new Indexer({ store, engine, tokenizer, logger: { info: () => {}, error: log, debug: () => {} }, batchSize: 500 })
  started = performance.now()
  await indexer.reindex((done, total) => { if (done % 20_000 < 500 || done === total) log(`reindex ${done}/${total}`) })
  const reindexS = (performance.now() - started) / 1000

  // ---- in-process search latency (engine + query analysis, no HTTP, no cache)
  const page = { limit: 20, offset: 0 }
  const inProcess = async (run: () => Promise<unknown>, repeats: number): Promise<{ p50: number, p99: number }> => {
    const samples: number[] = []
    for (let r = 0; r < repeats; r++) {
      const t = performance.now()
      await run()
      samples.push(performance.now() - t)
    }
    return quantiles(samples)
  }
  const cycle = <T>(items: readonly T[]): (() => T) => { let i = 0; return () => items[i++ % items.length] as T }
  const nextKeyword = cycle(KEYWORD_QUERIES)
  const nextIntent = cycle(INTENT_QUERIES)
  const repeats = 30 * KEYWORD_QUERIES.length
  const local = {
    keyword: await inProcess(async () => await engine.search({ words: splitQueryWords(nextKeyword()), filter: { status: 'verified' }, page, prefixLastWord: true }), repeats),
    catalog: await inProcess(async () => await engine.search({ words: splitQueryWords(nextKeyword()), filter: {}, page, prefixLastWord: true }), repeats),
    intent: await inProcess(async () => await engine.search({ words: analyzeIntent(nextIntent(), tokenizer).tokens, filter: {}, page, prefixLastWord: false }), repeats)
  }
  await engine.close()
  await store.close()

  // ---- the API process
  const port = await freePort()
  const apiKey = 'bench-key-0123456789abcdef'
  const api = startChild('catalog', [join(PROJECT_ROOT, 'dist', 'src', 'server.js')], {
    DATA_DIR: dataDir, PORT: String(port), HOST, CATALOG_SEED: 'none', LOG_LEVEL: 'warn', CATALOG_API_KEYS: apiKey
  })
  const url = `http://${HOST}:${port}`
  await waitUntil(api, 'a healthy /health', async () => ((await fetch(`${url}/health`)).ok ? true : undefined), 120_000)
  const pid = api.process.pid as number
  const idle = rssOf(pid)
  // A second API on the same files with both caches off: every search is computed.
  const uncachedPort = await freePort()
  const uncached = startChild('uncached catalog', [join(PROJECT_ROOT, 'dist', 'src', 'server.js')], {
    DATA_DIR: dataDir, PORT: String(uncachedPort), HOST, CATALOG_SEED: 'none', LOG_LEVEL: 'warn', CATALOG_INDEXER: 'external', CATALOG_SEARCH_CACHE: '0', CATALOG_RESPONSE_CACHE_MB: '0'
  })
  const uncachedUrl = `http://${HOST}:${uncachedPort}`
  await waitUntil(uncached, 'a healthy /health', async () => ((await fetch(`${uncachedUrl}/health`)).ok ? true : undefined), 120_000)
  const targets = { cached: url, uncached: uncachedUrl } as const

  const encode = (query: string): string => encodeURIComponent(query)
  const scenarios = [
    { name: 'list (baseline, no search)', requests: [{ path: '/api/services?status=verified&sortBy=trustScore&limit=20' }, { path: '/api/services?category=weather&sortBy=price&limit=20' }] },
    { name: 'keyword  /api/services?query=', requests: KEYWORD_QUERIES.map((q) => ({ path: `/api/services?query=${encode(q)}&status=verified&limit=20` })) },
    { name: 'catalog  /api/catalog/search', requests: KEYWORD_QUERIES.map((q) => ({ path: `/api/catalog/search?q=${encode(q)}&limit=20` })) },
    { name: 'intent   /api/services/search/intent', requests: INTENT_QUERIES.map((q) => ({ path: `/api/services/search/intent?q=${encode(q)}&limit=20` })) }
  ]
  const http = new Map<string, { rps: number[], p50: number[], p99: number[], bad: number }>()
  for (let round = 0; round < rounds; round++) {
    for (const scenario of scenarios) {
      for (const [target, base] of Object.entries(targets)) {
        const stats = await load({ url: base, connections, duration, requests: scenario.requests }, (duration + 10) * 1000)
        const name = `${scenario.name} ${target}`
        const entry = http.get(name) ?? { rps: [], p50: [], p99: [], bad: 0 }
        entry.rps.push(stats.rps)
        entry.p50.push(stats.p50)
        entry.p99.push(stats.p99)
        entry.bad += stats.failures + countNot(stats.statuses, (status) => status === 200)
        http.set(name, entry)
        log(`round ${round + 1} ${name}: ${fmt.rps(stats.rps)} req/s, p99 ${fmt.ms(stats.p99)} ms`)
      }
    }
  }
  await stopChild(uncached)
  const loaded = rssOf(pid)

  // ---- registration → searchable lag
  const lags: number[] = []
  const probes = generateServices(lagSamples, Number(args.seed) + 1, n + 1)
  for (const [i, entry] of probes.entries()) {
    const token = `lagprobe${i.toString(36)}x${Date.now().toString(36)}`
    const body = { ...registrationBody(entry), name: `${token} ${entry.name}`.slice(0, 255) }
    const t = performance.now()
    const res = await fetch(`${url}/api/services`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`)
    const deadline = t + 5000
    for (;;) {
      const found = await (await fetch(`${url}/api/catalog/search?q=${token}&limit=1`)).json() as { total: number }
      if (found.total > 0) { lags.push(performance.now() - t); break }
      if (performance.now() > deadline) { lags.push(Infinity); break }
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
  }
  const lag = quantiles(lags)
  await stopChild(api)

  // ---- report
  const verdict = (ok: boolean): string => (ok ? 'PASS' : 'MISS')
  const rows = scenarios.flatMap((scenario) => Object.keys(targets).map((target) => {
    const entry = http.get(`${scenario.name} ${target}`) as { rps: number[], p50: number[], p99: number[], bad: number }
    const baseline = median(http.get(`${scenarios[0]?.name as string} ${target}`)?.rps ?? [NaN])
    const p99 = median(entry.p99)
    const searching = scenario !== scenarios[0]
    return [`${scenario.name} (${target})`, fmt.rps(median(entry.rps)), fmt.ms(median(entry.p50)), fmt.ms(p99), (median(entry.rps) / baseline).toFixed(2), String(entry.bad),
      searching ? `${verdict(p99 <= TARGETS.searchP99Ms)} (≤ ${TARGETS.searchP99Ms} ms)` : '']
  }))
  const out = [
    `machine: ${machine()}`,
    `services: ${n}, HTTP: ${connections} connections × ${duration} s × ${rounds} rounds (medians)`,
    'cached: the default server (repeated queries answer from the search cache); uncached: CATALOG_SEARCH_CACHE=0 and CATALOG_RESPONSE_CACHE_MB=0',
    '',
    table(['in-process search (engine + analysis)', 'p50 ms', 'p99 ms'], [
      ['keyword (status=verified)', fmt.ms(local.keyword.p50), fmt.ms(local.keyword.p99)],
      ['catalog', fmt.ms(local.catalog.p50), fmt.ms(local.catalog.p99)],
      ['intent (kuromoji + engine)', fmt.ms(local.intent.p50), fmt.ms(local.intent.p99)]
    ]),
    '',
    table(['over HTTP', 'req/s', 'p50 ms', 'p99 ms', 'vs list (same server)', 'errors', 'p99 target'], rows),
    '',
    table(['figure', 'value', 'target'], [
      ['kuromoji dictionary load', `${(dictionaryMs / 1000).toFixed(2)} s`, ''],
      ['reindex', `${reindexS.toFixed(1)} s (${fmt.rps(n / reindexS)} services/s)`, `${verdict(reindexS <= TARGETS.reindexS)} (≤ ${TARGETS.reindexS} s at 100k)`],
      ['registration → searchable p50', `${fmt.ms(lag.p50)} ms`, ''],
      ['registration → searchable p99', `${fmt.ms(lag.p99)} ms`, `${verdict(lag.p99 <= TARGETS.lagP99Ms)} (≤ ${TARGETS.lagP99Ms} ms)`],
      ['API RSS idle after start', `${loaded.rss > 0 ? idle.rss.toFixed(0) : '?'} MB`, ''],
      ['API RSS after load', `${loaded.rss.toFixed(0)} MB (peak ${loaded.peak.toFixed(0)} MB)`, `${verdict(loaded.peak <= TARGETS.rssMb)} (≤ ${TARGETS.rssMb} MB)`]
    ])
  ]
  process.stdout.write(`${out.join('\n')}\n`)
}

benchmark().then(async () => {
  for (const child of children) await stopChild(child)
}, async (err: unknown) => {
  log(`bench:search failed: ${(err as Error).stack ?? String(err)}`)
  for (const child of children) await stopChild(child)
  process.exitCode = 1
})
