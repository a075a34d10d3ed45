/**
 * The engine alone, timed on a thread of its own, as the server's search thread runs it: an
 * isolate without kuromoji. In the thread that analysed the queries, kuromoji's ~200 MB heap
 * gets a major collection now and then, whose concurrent marking takes the second CPU for
 * ~100 ms and doubled the times of whichever query shape it met (bench/search.ts measureLocal).
 */
import { once } from 'node:events'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import { performance } from 'node:perf_hooks'
import type { SearchQuery } from '../src/search/search-engine.js'
import type { EmbeddedSearchEngine } from '../src/search/embedded/engine.js'
import { SEARCH_THREAD_LIMITS } from '../src/search/embedded/thread/pool.js'

export interface EngineTimingInput {
  dataDir: string
  /** Another build's engine module (the baseline); this build's when undefined. */
  engineModule: string | undefined
  /** Searched first, untimed: the index loaded and every path warm. */
  warm: SearchQuery[]
  timed: Array<[string, SearchQuery[]]>
}

/** Per group of `timed`, in order: each query's engine time (ms) and total. */
export type EngineTimes = Array<[string, { engine: number[], totals: number[] }]>

export async function timeEngine (input: EngineTimingInput): Promise<EngineTimes> {
  const worker = new Worker(new URL(import.meta.url), { workerData: input, resourceLimits: SEARCH_THREAD_LIMITS })
  const [times] = await once(worker, 'message') as [EngineTimes]
  await worker.terminate()
  return times
}

/** The embedded engine's class from a module (a baseline build from before the rename exports it as SqliteSearchEngine). */
export async function loadEngineClass (module: string): Promise<typeof EmbeddedSearchEngine> {
  const loaded = await import(module) as { EmbeddedSearchEngine?: typeof EmbeddedSearchEngine, SqliteSearchEngine?: typeof EmbeddedSearchEngine }
  return (loaded.EmbeddedSearchEngine ?? loaded.SqliteSearchEngine) as typeof EmbeddedSearchEngine
}

async function run (input: EngineTimingInput): Promise<EngineTimes> {
  const Engine = await loadEngineClass(input.engineModule ?? new URL('../src/search/embedded/engine.js', import.meta.url).href)
  const engine = new Engine(input.dataDir)
  await engine.memory()
  for (const query of input.warm) await engine.search(query)
  const times: EngineTimes = []
  for (const [group, queries] of input.timed) {
    const figures = { engine: [] as number[], totals: [] as number[] }
    for (const query of queries) {
      const t = performance.now()
      const result = await engine.search(query)
      figures.engine.push(performance.now() - t)
      figures.totals.push(result.total)
    }
    times.push([group, figures])
  }
  await engine.close()
  return times
}

if (!isMainThread && parentPort !== null) parentPort.postMessage(await run(workerData as EngineTimingInput))
