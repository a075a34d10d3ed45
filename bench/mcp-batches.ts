/**
 * `npm run bench:mcp`: /health beside ten MCP clients, each on its own loopback address,
 * sending JSON-RPC batches of search_services calls as fast as they are answered (the audit's
 * reproduction of batches dodging the search budget). Two servers on the demo catalog, one
 * after the other: rate limits as deployed (the baseline a client cannot push past), and rate
 * limits off (what ten such clients cost the API when no budget applies). Per server: /health
 * latency alone, then beside the clients; searches answered, 429s, the largest answer, RSS.
 *
 * Everything runs on 127.0.0.0/8, bounded in time, and cleans up after itself.
 *
 *   npm run bench:mcp -- --clients 10 --batch 16 --seconds 20
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { Agent, request } from 'undici'
import { PROJECT_ROOT } from '../src/paths.js'
import {
  API_ENV, API_NODE_FLAGS, children, fmt, freePort, HOST, intOption, log, machine, percentile, startChild, stopChild, table, waitUntil
} from './support.js'

const { values: args } = parseArgs({
  options: {
    clients: { type: 'string', default: '10' },
    batch: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '20' }
  },
  strict: true
})
const CLIENTS = intOption('clients', args.clients, 1, 50)
const BATCH = intOption('batch', args.batch, 1, 16)
const SECONDS = intOption('seconds', args.seconds, 2, 300)
/** /health asked this often: within the reads budget of its own address over both phases. */
const HEALTH_EVERY_MS = 100

// What agents write: sentences, keywords and typos, English and Japanese; paired for distinct texts.
const WORDS = [
  'weather forecast', 'tokyo', '東京の天気', 'stock price', 'translate', 'OCR', 'image generation', 'wether',
  'pdf to text', '翻訳', 'crypto market data', 'cheap', 'news summary', 'geocoding', 'speech to text', '画像生成',
  'sentiment', 'find an api that converts currency', 'exchange rates', 'for my agent', 'on solana', 'under $0.01'
]

function queryAt (i: number): string {
  return `${WORDS[i % WORDS.length] as string} ${WORDS[Math.floor(i / WORDS.length) % WORDS.length] as string}`
}

interface PhaseStats { p50: number, p99: number, max: number, samples: number }

function rssMb (pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}

/** Asks /health every HEALTH_EVERY_MS until `until` resolves; the latencies in ms. */
async function sampleHealth (base: string, until: Promise<void>): Promise<PhaseStats> {
  const latencies: number[] = []
  const state = { done: false }
  void until.then(() => { state.done = true })
  while (!state.done) {
    const started = performance.now()
    const res = await request(`${base}/health`, { headersTimeout: 60_000, bodyTimeout: 60_000 })
    await res.body.dump()
    latencies.push(performance.now() - started)
    await new Promise((resolve) => setTimeout(resolve, HEALTH_EVERY_MS))
  }
  const sorted = Float64Array.from(latencies).sort()
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted[sorted.length - 1] ?? NaN, samples: sorted.length }
}

interface ClientStats { batches: number, searches: number, refused: number, maxBytes: number }

/** One client on its own address: batches back to back until `deadline`. */
async function client (base: string, index: number, deadline: number): Promise<ClientStats> {
  // undici takes the source address as a client option (inside `connect` it is overwritten).
  const agent = new Agent({ localAddress: `127.0.0.${2 + index}` })
  const stats: ClientStats = { batches: 0, searches: 0, refused: 0, maxBytes: 0 }
  let next = index * 1000
  try {
    while (performance.now() < deadline) {
      const batch = Array.from({ length: BATCH }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'search_services', arguments: { query: queryAt(next++), limit: 50 } } }))
      const res = await request(`${base}/mcp`, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(batch),
        headersTimeout: 60_000,
        bodyTimeout: 60_000
      })
      const body = await res.body.text()
      stats.batches++
      stats.maxBytes = Math.max(stats.maxBytes, Buffer.byteLength(body))
      if (res.statusCode === 429) {
        stats.refused++
        // A polite client waits as told; one that does not only collects more 429s.
        await new Promise((resolve) => setTimeout(resolve, 1000))
        continue
      }
      const answers = JSON.parse(body) as Array<{ result?: { isError?: boolean } }>
      stats.searches += answers.filter((answer) => answer.result !== undefined && answer.result.isError !== true).length
    }
  } finally {
    await agent.close()
  }
  return stats
}

interface ServerRun { label: string, idle: PhaseStats, loaded: PhaseStats, clients: ClientStats[], rssIdle: number, rssPeak: number }

async function run (label: string, rateLimit: '0' | '1'): Promise<ServerRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'x402-bench-mcp-'))
  const port = await freePort()
  const base = `http://${HOST}:${port}`
  const server = startChild(`api (${label})`, [...API_NODE_FLAGS, join(PROJECT_ROOT, 'dist', 'src', 'server.js')], {
    ...API_ENV, DATA_DIR: dataDir, PORT: String(port), HOST, LOG_LEVEL: 'warn', CATALOG_RATE_LIMIT: rateLimit, CATALOG_API_KEYS: 'bench-key-0123456789abcdef'
  })
  try {
    await waitUntil(server, '/health', async () => {
      const res = await request(`${base}/health`)
      const body = await res.body.json() as { status?: string }
      return body.status === 'ok' ? true : undefined
    }, 120_000)
    const pid = server.process.pid as number
    const half = new Promise<void>((resolve) => setTimeout(resolve, (SECONDS / 2) * 1000))
    const idle = await sampleHealth(base, half)
    const rssIdle = rssMb(pid)
    let rssPeak = rssIdle
    const watch = setInterval(() => { rssPeak = Math.max(rssPeak, rssMb(pid)) }, 200)
    const deadline = performance.now() + SECONDS * 1000
    const running = Promise.all(Array.from({ length: CLIENTS }, async (_, i) => await client(base, i, deadline)))
    const [loaded, clients] = await Promise.all([sampleHealth(base, running.then(() => {})), running])
    clearInterval(watch)
    return { label, idle, loaded, clients, rssIdle, rssPeak }
  } finally {
    await stopChild(server)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

async function main (): Promise<void> {
  log(`machine: ${machine()}`)
  log(`${CLIENTS} clients, batches of ${BATCH} search_services calls (limit 50), ${SECONDS} s loaded`)
  const runs = [await run('rate limits on (default)', '1'), await run('rate limits off', '0')]
  const rows = runs.map((r) => {
    const sum = (pick: (c: ClientStats) => number): number => r.clients.reduce((total, c) => total + pick(c), 0)
    return [
      r.label,
      `${fmt.ms(r.idle.p50)} / ${fmt.ms(r.idle.p99)}`,
      `${fmt.ms(r.loaded.p50)} / ${fmt.ms(r.loaded.p99)} / ${fmt.ms(r.loaded.max)}`,
      (r.loaded.p50 / r.idle.p50).toFixed(1),
      String(sum((c) => c.searches)),
      `${sum((c) => c.refused)} of ${sum((c) => c.batches)}`,
      `${Math.round(Math.max(...r.clients.map((c) => c.maxBytes)) / 1024)} KiB`,
      `${Math.round(r.rssIdle)} → ${Math.round(r.rssPeak)}`
    ]
  })
  process.stdout.write(`${table(['server', '/health alone p50 / p99 ms', 'beside the clients p50 / p99 / max ms', 'p50 ratio', 'searches answered', 'batches 429', 'largest answer', 'RSS MB (idle → peak)'], rows)}\n`)
}

main().catch(async (err: unknown) => {
  log(String((err as Error).stack ?? err))
  for (const child of children) await stopChild(child)
  process.exitCode = 1
})
