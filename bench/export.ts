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
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { toBazaarItem } from '../src/domain/bazaar.js'
import type { ServiceRecord } from '../src/domain/service.js'
import { seedRecords } from '../src/domain/seed.js'
import { PROJECT_ROOT } from '../src/paths.js'
import { SqliteCatalogStore } from '../src/store/sqlite/store.js'
import { generateServices } from './generate.js'
import { children, freePort, HOST, intOption, log, machine, median, startChild, stopChild, table, waitUntil } from './support.js'

const { values: args } = parseArgs({
  options: {
    n: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '3' },
    seed: { type: 'string', default: '7' }
  },
  strict: true
})

function rssMb (pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024
}

interface Run { ms: number, bytes: number, growthMb: number }

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

async function measure (n: number, rounds: number, seed: number): Promise<{ streamed: Run, buffered: Run }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'x402-bench-export-'))
  try {
    const records = seedRecords(generateServices(n, seed), new Date().toISOString())
    const store = new SqliteCatalogStore(dataDir)
    for (let i = 0; i < records.length; i += 10_000) await store.insertServices(records.slice(i, i + 10_000))
    records.length = 0
    const port = await freePort()
    const api = startChild(`catalog (${n})`, [join(PROJECT_ROOT, 'dist', 'src', 'server.js')], {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST,
      CATALOG_SEED: 'none',
      LOG_LEVEL: 'warn',
      CATALOG_INDEXER: 'external',
      CATALOG_RESPONSE_CACHE: '0',
      CATALOG_PROBE_INTERVAL_S: '0'
    })
    const url = `http://${HOST}:${port}`
    await waitUntil(api, 'a healthy /health', async () => ((await fetch(`${url}/health`)).ok ? true : undefined), 120_000)
    const pid = api.process.pid as number
    const runs: Run[] = []
    for (let round = 0; round < rounds; round++) runs.push(await streamOnce(url, pid))
    await stopChild(api)
    const baseline: Run[] = []
    for (let round = 0; round < rounds; round++) baseline.push(await buffered(store))
    await store.close()
    const summarise = (list: Run[]): Run => ({
      ms: median(list.map((r) => r.ms)),
      bytes: list[0]?.bytes ?? 0,
      growthMb: Math.max(...list.map((r) => r.growthMb))
    })
    return { streamed: summarise(runs), buffered: summarise(baseline) }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

async function benchmark (): Promise<void> {
  const n = intOption('n', args.n, 1000, 1_000_000)
  const rounds = intOption('rounds', args.rounds, 1, 10)
  log(`machine: ${machine()}`)
  const rows: string[][] = []
  for (const size of [Math.round(n / 10), n]) {
    log(`measuring ${size} services…`)
    const { streamed, buffered: base } = await measure(size, rounds, Number(args.seed))
    rows.push([
      size.toLocaleString('en-US'),
      `${(streamed.bytes / 2 ** 20).toFixed(1)} MiB`,
      `${(streamed.ms / 1000).toFixed(2)} s`,
      `${streamed.growthMb.toFixed(0)} MB`,
      `${(base.ms / 1000).toFixed(2)} s`,
      `${base.growthMb.toFixed(0)} MB`
    ])
  }
  process.stdout.write(`${table(['services', 'export size', 'streamed: time (median)', 'streamed: API RSS growth (max)', 'buffered: time', 'buffered: RSS growth'], rows)}\n`)
}

benchmark().then(async () => {
  for (const child of children) await stopChild(child)
}, async (err: unknown) => {
  log(`bench:export failed: ${(err as Error).stack ?? String(err)}`)
  for (const child of children) await stopChild(child)
  process.exitCode = 1
})
