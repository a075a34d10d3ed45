/**
 * npm run bench:export [-- --n 100000]: memory and time of GET /api/export.
 *
 * For a small catalog (n / 10) and for n services, starts the API on the generated store
 * (indexer external: no indexing, no probing, no response cache) and streams the whole export
 * over loopback, sampling the API process's RSS every 10 ms. The same-run baseline builds the
 * same answer the buffered way (every record in memory, one JSON.stringify) in this process.
 * Constant memory means the streamed RSS growth stays flat from n / 10 to n while the
 * buffered one grows with n. Every request is a full, uncached export (streams are never cached).
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import Database from 'better-sqlite3'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { toBazaarItem } from '../src/domain/bazaar.js'
import type { ServiceRecord } from '../src/domain/service.js'
import { seedRecords } from '../src/domain/seed.js'
import { PROJECT_ROOT } from '../src/paths.js'
import { SqliteCatalogStore, STORE_FILE } from '../src/store/sqlite/store.js'
import { generateServices } from './generate.js'
import { children, freePort, HOST, intOption, log, machine, median, startChild, stopChild, table, waitUntil } from './support.js'

const { values: args } = parseArgs({
  options: {
    n: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '3' },
    seed: { type: 'string', default: '7' },
    // Another build's dist/src/server.js: its /health under 20 concurrent exports, on the same data.
    baseline: { type: 'string' }
  },
  strict: true
})

function rssMb (pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024
}

interface Run { ms: number, bytes: number, growthMb: number }

/** /health latencies (ms) sampled every 10 ms while `work` runs, and the work's own duration. */
async function healthDuring (url: string, work: () => Promise<unknown>): Promise<{ health: number[], workMs: number }> {
  const health: number[] = []
  const state = { running: true }
  const sampler = (async () => {
    while (state.running) {
      const started = performance.now()
      await (await fetch(`${url}/health`)).arrayBuffer()
      health.push(performance.now() - started)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })()
  const started = performance.now()
  await work()
  const workMs = performance.now() - started
  state.running = false
  await sampler
  return { health, workMs }
}

function percentile (values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}

/** `clients` concurrent full exports (gzip accepted, as scanners send), bodies read and discarded. */
async function concurrentExports (url: string, clients: number): Promise<void> {
  await Promise.all(Array.from({ length: clients }, async () => {
    const res = await fetch(`${url}/api/export`, { headers: { 'accept-encoding': 'gzip' } })
    if (res.status !== 200 || res.body === null) throw new Error(`export answered ${res.status}`)
    for await (const chunk of res.body) void chunk
  }))
}

/** Streams one export, reading and discarding the body, while sampling the server's RSS. */
async function streamOnce (url: string, pid: number): Promise<Run> {
  const before = rssMb(pid)
  let peak = before
  const sampler = setInterval(() => { peak = Math.max(peak, rssMb(pid)) }, 10)
  const started = performance.now()
  const res = await fetch(`${url}/api/export`)
  if (res.status !== 200 || res.body === null) throw new Error(`export answered ${res.status}`)
  let bytes = 0
  for await (const chunk of res.body) bytes += (chunk as Uint8Array).byteLength
  const ms = performance.now() - started
  clearInterval(sampler)
  peak = Math.max(peak, rssMb(pid))
  return { ms, bytes, growthMb: peak - before }
}

/** The buffered way: every item in memory, then one string. RSS growth of this process. */
async function buffered (store: SqliteCatalogStore): Promise<Run> {
  (globalThis as { gc?: () => void }).gc?.()
  const before = process.memoryUsage().rss
  const started = performance.now()
  const records: ServiceRecord[] = []
  for await (const record of store.streamServices({})) records.push(record)
  const items = records.map(toBazaarItem)
  const body = JSON.stringify({ x402Version: 2, items, pagination: { limit: items.length, offset: 0, total: items.length } })
  const ms = performance.now() - started
  const growthMb = (process.memoryUsage().rss - before) / 2 ** 20
  return { ms, bytes: Buffer.byteLength(body), growthMb }
}

/**
 * A copy of the store an older build (the baseline) can open: builds before usage figures
 * read tx_count and total_revenue, which this one dropped. The figures do not matter here.
 */
function copyForOlderBuild (dataDir: string): string {
  const copy = mkdtempSync(join(tmpdir(), 'x402-bench-export-old-'))
  const db = new Database(join(dataDir, STORE_FILE))
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
  copyFileSync(join(dataDir, STORE_FILE), join(copy, STORE_FILE))
  const old = new Database(join(copy, STORE_FILE))
  old.exec("ALTER TABLE services ADD COLUMN tx_count INTEGER NOT NULL DEFAULT 0; ALTER TABLE services ADD COLUMN total_revenue TEXT NOT NULL DEFAULT '0'")
  old.close()
  return copy
}

interface Contention { idleP99: number, coldP50: number, coldP99: number, coldMs: number, warmP50: number, warmP99: number, warmMs: number }

function startApi (name: string, server: string, dataDir: string, port: number): ReturnType<typeof startChild> {
  return startChild(name, [server], {
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST,
    CATALOG_SEED: 'none',
    LOG_LEVEL: 'warn',
    CATALOG_INDEXER: 'external',
    CATALOG_RESPONSE_CACHE_MB: '0',
    CATALOG_PROBE_INTERVAL_S: '0',
    CATALOG_RATE_LIMIT: '0'
  })
}

/** /health while 20 clients export: first with no snapshot yet, then again. */
async function contentionOf (url: string): Promise<Contention> {
  const idle = await healthDuring(url, async () => { await new Promise((resolve) => setTimeout(resolve, 2000)) })
  const cold = await healthDuring(url, async () => { await concurrentExports(url, 20) })
  const warm = await healthDuring(url, async () => { await concurrentExports(url, 20) })
  return {
    idleP99: percentile(idle.health, 99),
    coldP50: percentile(cold.health, 50),
    coldP99: percentile(cold.health, 99),
    coldMs: cold.workMs,
    warmP50: percentile(warm.health, 50),
    warmP99: percentile(warm.health, 99),
    warmMs: warm.workMs
  }
}

async function measure (n: number, rounds: number, seed: number): Promise<{ streamed: Run, buffered: Run, contention: Contention, baseline: Contention | undefined }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'x402-bench-export-'))
  try {
    const records = seedRecords(generateServices(n, seed), new Date().toISOString())
    const store = new SqliteCatalogStore(dataDir)
    for (let i = 0; i < records.length; i += 10_000) await store.insertServices(records.slice(i, i + 10_000))
    records.length = 0
    let baseline: Contention | undefined
    if (args.baseline !== undefined) {
      const port = await freePort()
      const oldDir = copyForOlderBuild(dataDir)
      const old = startApi(`baseline (${n})`, args.baseline, oldDir, port)
      const url = `http://${HOST}:${port}`
      await waitUntil(old, 'a healthy /health', async () => ((await fetch(`${url}/health`)).ok ? true : undefined), 120_000)
      baseline = await contentionOf(url)
      await stopChild(old)
      rmSync(oldDir, { recursive: true, force: true })
    }
    const port = await freePort()
    const api = startApi(`catalog (${n})`, join(PROJECT_ROOT, 'dist', 'src', 'server.js'), dataDir, port)
    const url = `http://${HOST}:${port}`
    await waitUntil(api, 'a healthy /health', async () => ((await fetch(`${url}/health`)).ok ? true : undefined), 120_000)
    const pid = api.process.pid as number
    const contention = await contentionOf(url)
    const runs: Run[] = []
    for (let round = 0; round < rounds; round++) runs.push(await streamOnce(url, pid))
    await stopChild(api)
    const buffers: Run[] = []
    for (let round = 0; round < rounds; round++) buffers.push(await buffered(store))
    await store.close()
    const summarise = (list: Run[]): Run => ({
      ms: median(list.map((r) => r.ms)),
      bytes: list[0]?.bytes ?? 0,
      growthMb: Math.max(...list.map((r) => r.growthMb))
    })
    return { streamed: summarise(runs), buffered: summarise(buffers), contention, baseline }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

async function benchmark (): Promise<void> {
  const n = intOption('n', args.n, 1000, 1_000_000)
  const rounds = intOption('rounds', args.rounds, 1, 10)
  log(`machine: ${machine()}`)
  const rows: string[][] = []
  const contentionRows: string[][] = []
  for (const size of [Math.round(n / 10), n]) {
    log(`measuring ${size} services…`)
    const { streamed, buffered: base, contention, baseline } = await measure(size, rounds, Number(args.seed))
    for (const [label, c] of [['this build', contention], ['baseline', baseline]] as const) {
      if (c === undefined) continue
      contentionRows.push([
        size.toLocaleString('en-US'),
        label,
        c.idleP99.toFixed(1),
      `${c.coldP50.toFixed(1)} / ${c.coldP99.toFixed(1)}`,
      `${(c.coldMs / 1000).toFixed(2)} s`,
      `${c.warmP50.toFixed(1)} / ${c.warmP99.toFixed(1)}`,
      `${(c.warmMs / 1000).toFixed(2)} s`
      ])
    }
    rows.push([
      size.toLocaleString('en-US'),
      `${(streamed.bytes / 2 ** 20).toFixed(1)} MiB`,
      `${(streamed.ms / 1000).toFixed(2)} s`,
      `${streamed.growthMb.toFixed(0)} MB`,
      `${(base.ms / 1000).toFixed(2)} s`,
      `${base.growthMb.toFixed(0)} MB`
    ])
  }
  process.stdout.write(`${table(['services', 'export size', 'one export: time (median)', 'one export: API RSS growth (max)', 'buffered: time', 'buffered: RSS growth'], rows)}\n\n`)
  process.stdout.write(`${table(['services', 'server', '/health p99 idle (ms)', '20 exports, first: /health p50 / p99 (ms)', 'first: all 20 done', '20 exports again: /health p50 / p99 (ms)', 'again: all 20 done'], contentionRows)}\n`)
}

benchmark().then(async () => {
  for (const child of children) await stopChild(child)
}, async (err: unknown) => {
  log(`bench:export failed: ${(err as Error).stack ?? String(err)}`)
  for (const child of children) await stopChild(child)
  process.exitCode = 1
})
