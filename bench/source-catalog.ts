/**
 * The catalog process bench:sources measures, and what an operator does to it: started as
 * `npm start` starts it, a source added with `npm run catalog -- sources add`, its passes read
 * from GET /api/sources.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SourceRecord, SyncReport } from '../src/domain/sources.js'
import { PROJECT_ROOT } from '../src/paths.js'
import { API_ENV, API_NODE_FLAGS, freePort, HOST, startChild, waitUntil, type Child } from './support.js'

export interface Api { child: Child, url: string, pid: number }

/** VmRSS and VmHWM (the kernel's own peak) of a process, in MB. */
export function rssOf (pid: number): { rss: number, hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const mb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024
    return { rss: mb('VmRSS'), hwm: mb('VmHWM') }
  } catch {
    return { rss: NaN, hwm: NaN }
  }
}

export async function healthOf (url: string): Promise<{ services: number, documents: number, lag: number }> {
  const body = await (await fetch(`${url}/health`)).json() as { store: { services: number }, search: { documents: number, lag: number } }
  return { services: body.store.services, documents: body.search.documents, lag: body.search.lag }
}

/**
 * The API on `dataDir`, with the response cache off (every search computed) and probing off
 * unless `env` says otherwise; its sources are on loopback (CATALOG_PROBE_ALLOW_PRIVATE=1).
 */
export async function startApi (name: string, dataDir: string, env: Record<string, string>): Promise<Api> {
  const port = await freePort()
  const child = startChild(name, [...API_NODE_FLAGS, join(PROJECT_ROOT, 'dist', 'src', 'server.js')], {
    ...API_ENV,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST,
    CATALOG_SEED: 'none',
    LOG_LEVEL: 'warn',
    CATALOG_PROBE_INTERVAL_S: '0',
    CATALOG_PROBE_ALLOW_PRIVATE: '1',
    CATALOG_RESPONSE_CACHE_MB: '0',
    ...env
  })
  const url = `http://${HOST}:${port}`
  await waitUntil(child, 'a healthy /health', async () => ((await fetch(`${url}/health`)).ok ? true : undefined), 120_000)
  return { child, url, pid: child.process.pid as number }
}

/** `npm run catalog -- sources add URL --kind KIND --json` on a store, as an operator adds one; the source's id. */
export async function addSource (dataDir: string, url: string, kind: string): Promise<string> {
  const cli = spawn(process.execPath, [join(PROJECT_ROOT, 'dist', 'src', 'cli', 'catalog.js'), 'sources', 'add', url, '--kind', kind, '--json'], {
    cwd: PROJECT_ROOT, env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe']
  })
  let out = ''
  cli.stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
  cli.stderr.on('data', (chunk: Buffer) => { out += chunk.toString() })
  const [code] = await once(cli, 'exit') as [number | null]
  if (code !== 0) throw new Error(`sources add exited ${code}:\n${out}`)
  return (JSON.parse(out) as SourceRecord).id
}

/**
 * The source's first pass started after `after` (ISO) that read items, which must be complete.
 * Passes that read nothing (a source refusing them, a feed with nothing new) are passed over.
 */
export async function completePass (api: Api, sourceId: string, after: string, timeoutMs = 600_000): Promise<SyncReport> {
  const report = await waitUntil(api.child, 'a pass over the source', async () => {
    const sources = await (await fetch(`${api.url}/api/sources`)).json() as SourceRecord[]
    const last = sources.find((source) => source.id === sourceId)?.lastSync
    if (last != null && last.startedAt > after && last.seen > 0) return last
    await new Promise((resolve) => setTimeout(resolve, 400))
    return undefined
  }, timeoutMs)
  if (!report.complete) throw new Error(`the pass stopped early: ${report.error ?? 'no reason given'}`)
  return report
}

export const passSeconds = (report: SyncReport): number => (Date.parse(report.finishedAt) - Date.parse(report.startedAt)) / 1000
