/**
 * One catalog's first pass over a large Bazaar source, run by the API's own scheduler
 * (bench:sources): idle RSS once the base catalog is indexed; /health every HEALTH_EVERY_MS and
 * the RSS every RSS_EVERY_MS, quiet and then from the pass's first page until a search finds the
 * synced listings; with `searchers`, searches in back-to-back runs all along, a window's rate
 * (before, during the pass) being the median of the runs wholly in it; then, if asked, a second
 * pass over the unchanged list.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { SyncReport } from '../src/domain/sources.js'
import { STORE_FILE } from '../src/store/sqlite/store.js'
import { AGENT_WORD, type BazaarList, type BazaarSource } from './bazaar-list.js'
import { generateServices } from './generate.js'
import { COMMON_SHAPES, INTENT_SHAPES, shapeStream } from './queries.js'
import { addSource, completePass, healthOf, passSeconds, rssOf, startApi } from './source-catalog.js'
import { load, log, median, pathStream, percentile, stopChild, waitUntil } from './support.js'

export const HEALTH_EVERY_MS = 20
const RSS_EVERY_MS = 50

interface Health { at: number, ms: number, services: number, documents: number, lag: number }

/** Samples the API until stopped: /health every HEALTH_EVERY_MS (latency and the indexer's state), RSS every RSS_EVERY_MS. */
function sampler (url: string, pid: number): { health: Health[], rss: Array<{ at: number, mb: number }>, stop: () => Promise<void> } {
  const health: Health[] = []
  const rss: Array<{ at: number, mb: number }> = []
  const state = { running: true }
  const timer = setInterval(() => { rss.push({ at: performance.now(), mb: rssOf(pid).rss }) }, RSS_EVERY_MS)
  const loop = (async () => {
    while (state.running) {
      const started = performance.now()
      // A failed /health counts as a sample as slow as the wait for it.
      const body = await fetch(`${url}/health`).then(async (res) => await res.json() as { store?: { services?: number }, search?: { documents?: number, lag?: number } }, () => undefined)
      const at = performance.now()
      health.push({ at, ms: at - started, services: body?.store?.services ?? NaN, documents: body?.search?.documents ?? NaN, lag: body?.search?.lag ?? NaN })
      await new Promise((resolve) => setTimeout(resolve, HEALTH_EVERY_MS))
    }
  })()
  return {
    health,
    rss,
    stop: async () => { state.running = false; clearInterval(timer); await loop }
  }
}

export function quantile (values: readonly number[], p: number): number {
  return percentile(Float64Array.from(values).sort(), p)
}

const within = <T extends { at: number }>(samples: readonly T[], from: number, to: number): T[] => samples.filter((s) => s.at >= from && s.at <= to)

interface SearchRun { from: number, to: number, rps: number, failures: number }

/**
 * Back-to-back runs of `seconds` at `connections` until `until()` says stop, each run's
 * searches/s kept with its time window, so a window's figure is the median of the runs wholly in it.
 */
async function searchUntil (url: string, paths: readonly string[], connections: number, seconds: number, until: () => boolean): Promise<SearchRun[]> {
  const runs: SearchRun[] = []
  const requests = pathStream(paths)
  while (!until()) {
    const from = performance.now()
    const run = await load({ url, connections, duration: seconds, requests }, (seconds + 15) * 1000)
    runs.push({ from, to: performance.now(), rps: run.rps, failures: run.failures + [...run.statuses].reduce((n, [status, count]) => n + (status === 200 ? 0 : count), 0) })
  }
  return runs
}

export function searchPaths (base: number, seed: number): string[] {
  const stream = shapeStream(generateServices(Math.min(base, 5000), seed), 400)
  const paths: string[] = []
  for (let i = 0; i < 400; i++) {
    for (const shape of COMMON_SHAPES) {
      const q = encodeURIComponent((stream.get(shape) as string[])[i] as string)
      const endpoint = INTENT_SHAPES.includes(shape) ? '/api/services/search/intent' : '/api/catalog/search'
      // limit and offset make a repeated query another URL.
      paths.push(`${endpoint}?q=${q}&limit=${16 + (i % 9)}&offset=${Math.floor(i / 9) % 4}`)
    }
  }
  return paths
}

async function searchTotal (url: string, q: string): Promise<number> {
  return ((await (await fetch(`${url}/api/catalog/search?q=${encodeURIComponent(q)}&limit=1`)).json()) as { total: number }).total
}

export interface PassFigures {
  report: SyncReport
  secondPass?: { report: SyncReport, peakMb: number }
  idleMb: number
  passPeakMb: number
  indexedPeakMb: number
  healthQuiet: number[]
  healthPass: number[]
  healthIndexing: number[]
  completeToSearchableS: number
  search?: { quiet: number, pass: number, passRuns: number, failures: number }
}

export interface PassOptions { searchers: number, runSeconds: number, quietSeconds: number, syncIntervalS: number, paths: string[], secondPass: boolean }

/** `template` holds the base catalog (copied to a fresh DATA_DIR); `source` serves `list`. */
export async function measurePass (label: string, template: string, list: BazaarList, source: BazaarSource, opts: PassOptions): Promise<PassFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'x402-bench-sources-'))
  try {
    copyFileSync(join(template, STORE_FILE), join(dataDir, STORE_FILE))
    // The source holds the first page of a pass it was not told to serve: the time budget lets
    // that read wait (nothing is probed here), so the pass before stays the source's last.
    const api = await startApi(`catalog (${label})`, dataDir, { CATALOG_SOURCE_SYNC_INTERVAL_S: String(opts.syncIntervalS), CATALOG_PROBE_TIMEOUT_MS: '120000' })
    const base = (await healthOf(api.url)).services
    await waitUntil(api.child, 'the base catalog indexed', async () => { const h = await healthOf(api.url); return h.lag === 0 && h.documents === base ? true : undefined }, 300_000)
    await new Promise((resolve) => setTimeout(resolve, 2000))
    const idleMb = rssOf(api.pid).rss
    log(`${label}: ${base} services indexed, idle RSS ${idleMb.toFixed(0)} MB`)

    // Quiet: the same samplers (and searches) with no pass running.
    const quiet = sampler(api.url, api.pid)
    let quietRuns: SearchRun[] = []
    const quietEnd = performance.now() + opts.quietSeconds * 1000
    if (opts.searchers > 0) quietRuns = await searchUntil(api.url, opts.paths, opts.searchers, opts.runSeconds, () => performance.now() >= quietEnd)
    else await new Promise((resolve) => setTimeout(resolve, opts.quietSeconds * 1000))
    await quiet.stop()

    // The pass: the API's scheduler picks the source up within the interval.
    const passesBefore = source.passStarts.length
    source.allowPasses(1)
    const addedAt = new Date().toISOString()
    const sourceId = await addSource(dataDir, source.url, 'bazaar')
    await waitUntil(api.child, 'the first page asked', async () => {
      if (source.passStarts.length > passesBefore) return true
      await new Promise((resolve) => setTimeout(resolve, 20))
      return undefined
    }, (opts.syncIntervalS + 60) * 1000)
    const passStart = source.passStarts[passesBefore] as number
    log(`${label}: the API asked the first page`)
    const during = sampler(api.url, api.pid)
    const state = { indexed: false }
    const searching = opts.searchers > 0 ? searchUntil(api.url, opts.paths, opts.searchers, opts.runSeconds, () => state.indexed) : Promise.resolve([])
    const report = await completePass(api, sourceId, addedAt)
    const completeAt = performance.now()
    log(`${label}: pass complete in ${passSeconds(report).toFixed(1)} s: seen ${report.seen}, added ${report.added}, refused ${report.refusedCount}`)
    // Searchable: the indexer has caught up with the store, and a word only the synced agents hold finds them all.
    const expected = base + report.added
    await waitUntil(api.child, 'the synced listings searchable', async () => {
      const last = during.health.at(-1)
      if (last === undefined || last.at < completeAt || last.lag !== 0 || last.documents < expected) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        return undefined
      }
      return (await searchTotal(api.url, AGENT_WORD)) >= list.counts.agentsSearchable ? true : undefined
    }, 600_000)
    const indexedAt = performance.now()
    state.indexed = true
    const runs = await searching
    await during.stop()
    log(`${label}: searchable ${((indexedAt - completeAt) / 1000).toFixed(1)} s after the pass was seen complete`)

    let secondPass: PassFigures['secondPass']
    if (opts.secondPass) {
      const again = sampler(api.url, api.pid)
      source.allowPasses(1)
      const second = await completePass(api, sourceId, report.startedAt)
      await again.stop()
      secondPass = { report: second, peakMb: Math.max(...again.rss.map((s) => s.mb)) }
      log(`${label}: second pass ${passSeconds(second).toFixed(1)} s, unchanged ${second.unchanged}, updated ${second.updated}`)
    }
    source.refuseHeld()
    await stopChild(api.child)

    const rpsIn = (all: SearchRun[], from: number, to: number): { rps: number, count: number } => {
      const inside = all.filter((run) => run.from >= from && run.to <= to)
      return { rps: inside.length === 0 ? NaN : median(inside.map((run) => run.rps)), count: inside.length }
    }
    const pass = rpsIn(runs, passStart, completeAt)
    return {
      report,
      ...(secondPass === undefined ? {} : { secondPass }),
      idleMb,
      passPeakMb: Math.max(...within(during.rss, passStart, completeAt).map((s) => s.mb)),
      indexedPeakMb: Math.max(...during.rss.map((s) => s.mb)),
      healthQuiet: quiet.health.map((s) => s.ms),
      healthPass: within(during.health, passStart, completeAt).map((s) => s.ms),
      healthIndexing: within(during.health, completeAt, indexedAt).map((s) => s.ms),
      completeToSearchableS: (indexedAt - completeAt) / 1000,
      ...(opts.searchers > 0
        ? {
            search: {
              quiet: median(quietRuns.map((run) => run.rps)),
              pass: pass.rps,
              passRuns: pass.count,
              failures: [...quietRuns, ...runs].reduce((n, run) => n + run.failures, 0)
            }
          }
        : {})
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}
