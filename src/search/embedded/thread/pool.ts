/**
 * Search threads (node:worker_threads), each with its own in-memory index. A query goes to
 * the thread with the fewest queries pending; a thread that dies fails only its pending
 * queries and is replaced by the next query (src/lib/worker-rpc.ts).
 */
import { SearchUnavailableError } from '../../../errors.js'
import { WorkerRpc } from '../../../lib/worker-rpc.js'
import type { SearchQuery, SearchResult } from '../../search-engine.js'
import type { SearcherStats } from './searcher.js'
import { fromWire, type WireResult } from './wire.js'

export type WorkerRequest = { kind: 'search', query: SearchQuery } | { kind: 'stats' }
export type WorkerAnswer = WireResult | SearcherStats

/**
 * A small young generation and an explicit old-generation cap make V8 collect the garbage
 * of a bulk load as it goes instead of growing the heap: at 100k services the thread's
 * share of the process RSS fell from ~130 MB to ~65 MB. The cap itself is far above what
 * the index needs (a ~40 MB heap per 100k services, twice that while a fresh copy loads).
 */
export const SEARCH_THREAD_LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 512 }

export class SearchPool {
  readonly #threads: Array<WorkerRpc<WorkerRequest, WorkerAnswer>>

  constructor (readonly file: string, threads: number) {
    this.#threads = Array.from({ length: threads }, () => new WorkerRpc<WorkerRequest, WorkerAnswer>({
      url: new URL('./worker.js', import.meta.url),
      workerData: { file },
      resourceLimits: SEARCH_THREAD_LIMITS,
      name: 'the search thread',
      failure: (message, cause) => new SearchUnavailableError(`search: ${message}`, { cause })
    }))
    // Each thread loads its index before the first query arrives.
    for (const thread of this.#threads) thread.start()
  }

  async #ask (request: WorkerRequest): Promise<WorkerAnswer> {
    let best = this.#threads[0] as WorkerRpc<WorkerRequest, WorkerAnswer>
    for (const thread of this.#threads) if (thread.pending < best.pending) best = thread
    return await best.call(request)
  }

  async search (query: SearchQuery): Promise<SearchResult> {
    return fromWire(await this.#ask({ kind: 'search', query }) as WireResult)
  }

  async stats (): Promise<SearcherStats> {
    return await this.#ask({ kind: 'stats' }) as SearcherStats
  }

  async close (): Promise<void> {
    await Promise.all(this.#threads.map(async (thread) => { await thread.close() }))
  }
}
