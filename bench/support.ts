/**
 * What the benchmarks share: autocannon runs with per-response latencies, child
 * processes that are always cleaned up, percentiles and medians, the machine's
 * description and Markdown tables.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import type { EventEmitter } from 'node:events'
import { createRequire } from 'node:module'
import { readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { cpus, platform, release, totalmem } from 'node:os'
import { performance } from 'node:perf_hooks'
import { PROJECT_ROOT } from '../src/paths.js'

export const HOST = '127.0.0.1'

/**
 * The node flags `npm start` runs the API with (package.json), so a benchmark measures the
 * API as it is deployed: --expose-gc for src/release-garbage.ts, and a fixed heap growth
 * that keeps V8 from letting the heap grow to 4× its live size between full collections
 * (README, Memory; docs/benchmarks.md).
 */
export const API_NODE_FLAGS = ['--expose-gc', '--heap-growing-percent=50']

/**
 * The environment `npm start` and the Dockerfile give the API: glibc's malloc with a fixed
 * mmap threshold, so a freed ArrayBuffer of 128 KiB or more (word sets, index buffers) goes
 * back to the system instead of staying in the heap (README, Memory). Other C libraries
 * ignore it.
 */
export const API_ENV: Record<string, string> = { MALLOC_MMAP_THRESHOLD_: '131072' }

export function intOption (name: string, value: string | undefined, min: number, max: number): number {
  const number = Number(value)
  if (!Number.isInteger(number) || number < min || number > max) {
    throw new Error(`--${name} must be an integer from ${min} to ${max}, got "${value}"`)
  }
  return number
}

// ---------------------------------------------------------------- autocannon (untyped CJS)

export interface LoadRequest {
  method?: string
  path?: string
  headers?: Record<string, string>
  body?: string
  setupRequest?: (request: LoadRequest, context: object) => LoadRequest | null
}

export interface LoadOptions {
  url: string
  connections: number
  duration?: number
  amount?: number
  timeout?: number
  method?: string
  headers?: Record<string, string>
  requests?: LoadRequest[]
}

export interface LoadResult {
  errors: number
  timeouts: number
  non2xx: number
  statusCodeStats: Record<string, { count: number }>
}

type LoadInstance = EventEmitter & { stop: () => void }
type Autocannon = (opts: LoadOptions, cb: (err: Error | null, result: LoadResult) => void) => LoadInstance

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon

// ---------------------------------------------------------------- child processes

export interface Child { name: string, process: ChildProcess, exited: Promise<void>, output: () => string }

export const children: Child[] = []

/** The adapter selection (src/config.ts), passed on so children open the same store and engine. */
const ADAPTER_VARIABLES = ['CATALOG_STORE', 'MONGO_URL', 'CATALOG_SEARCH', 'MEILI_URL', 'MEILI_MASTER_KEY', 'MEILI_SEARCH_KEY']

function adapterEnv (): Record<string, string> {
  return Object.fromEntries(ADAPTER_VARIABLES.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name] as string]])))
}

export function startChild (name: string, argv: string[], env: Record<string, string>): Child {
  // Load generators hit the API far beyond any client's fair share: no rate limits here.
  const child = spawn(process.execPath, argv, { cwd: PROJECT_ROOT, env: { PATH: process.env.PATH ?? '', CATALOG_RATE_LIMIT: '0', ...adapterEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  const collect = (chunk: Buffer): void => { output = (output + chunk.toString()).slice(-20_000) }
  child.stdout.on('data', collect)
  child.stderr.on('data', collect)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const entry = { name, process: child, exited, output: () => output }
  children.push(entry)
  return entry
}

export async function stopChild (child: Child): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return
  child.process.kill('SIGTERM')
  const timer = setTimeout(() => child.process.kill('SIGKILL'), 5_000)
  await child.exited
  clearTimeout(timer)
}

export async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, HOST, () => {
      const address = server.address()
      server.close(() => { typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')) })
    })
  })
}

export async function waitUntil<T> (child: Child, what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null || child.process.signalCode !== null) {
      throw new Error(`${child.name} exited before ${what}:\n${child.output()}`)
    }
    const value = await probe().catch(() => undefined)
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${child.name}: no ${what} within ${timeoutMs / 1000} s:\n${child.output()}`)
}

// ---------------------------------------------------------------- load runs

export interface RunStats { rps: number, p50: number, p99: number, responses: number, failures: number, statuses: Map<number, number> }

export function percentile (sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] as number
}

/**
 * One autocannon run. Latencies come from autocannon's own per-response timings (sub-ms);
 * the rate is responses ÷ time from start to the last response.
 */
export async function load (opts: LoadOptions, limitMs: number): Promise<RunStats> {
  const latencies: number[] = []
  const statuses = new Map<number, number>()
  let last = 0
  const start = performance.now()
  const result = await new Promise<LoadResult>((resolve, reject) => {
    const instance = autocannon({ timeout: 10, ...opts }, (err, res) => {
      clearTimeout(watchdog)
      if (err !== null) reject(err)
      else resolve(res)
    })
    const watchdog = setTimeout(() => instance.stop(), limitMs)
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      latencies.push(ms)
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
      last = performance.now()
    })
  })
  const sorted = Float64Array.from(latencies).sort()
  const seconds = (last - start) / 1000
  return {
    rps: seconds > 0 ? latencies.length / seconds : 0,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    responses: latencies.length,
    failures: result.errors + result.timeouts,
    statuses
  }
}

/**
 * One request template whose path comes from `paths` in turn, shared by every connection
 * (autocannon calls setupRequest for each request it sends): every request is the next URL,
 * where a plain list of requests is replayed by each connection from its start.
 */
export function pathStream (paths: readonly string[]): LoadRequest[] {
  let next = 0
  return [{ setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] as string }) }]
}

/** CPU ticks so far of each thread of a process (Linux /proc; empty elsewhere). */
export function threadTicks (pid: number): Map<number, number> {
  const ticks = new Map<number, number>()
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      // Fields after the parenthesised name: utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      ticks.set(Number(tid), Number(fields[11]) + Number(fields[12]))
    }
  } catch {}
  return ticks
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100

/**
 * CPU shares (of one core) over an interval, from two `threadTicks` samples: the process's
 * main thread (the API's event loop: its thread id is the pid), the busiest other thread
 * (under a search load, the search thread: Node does not name worker threads) and all.
 */
export function cpuShares (pid: number, before: Map<number, number>, after: Map<number, number>, seconds: number): { main: number, busiestOther: number, total: number } {
  let main = 0
  let busiestOther = 0
  let total = 0
  for (const [tid, t] of after) {
    const used = (t - (before.get(tid) ?? 0)) / TICKS_PER_SECOND / seconds
    total += used
    if (tid === pid) main = used
    else if (used > busiestOther) busiestOther = used
  }
  return { main, busiestOther, total }
}

export function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle] as number : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
}

export function countNot (statuses: Map<number, number>, ok: (status: number) => boolean): number {
  let count = 0
  for (const [status, n] of statuses) if (!ok(status)) count += n
  return count
}

// ---------------------------------------------------------------- output

export function machine (): string {
  const cores = cpus()
  const model = (cores[0]?.model ?? 'unknown CPU').replace(/\s+/g, ' ').trim()
  return `${model} × ${cores.length} logical CPUs, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${platform()} ${release()}, Node.js ${process.version}`
}

export function table (header: string[], rows: string[][]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)))
  const line = (cells: string[]): string => `| ${cells.map((cell, i) => i === 0 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number)).join(' | ')} |`
  const rule = `|${widths.map((width, i) => i === 0 ? '-'.repeat(width + 2) : `${'-'.repeat(width + 1)}:`).join('|')}|`
  return [line(header), rule, ...rows.map(line)].join('\n')
}

export const fmt = {
  rps: (value: number): string => Math.round(value).toLocaleString('en-US'),
  ms: (value: number): string => value.toFixed(2)
}

export function log (message: string): void {
  process.stderr.write(`${message}\n`)
}
