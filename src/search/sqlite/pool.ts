/**
 * Search threads (node:worker_threads), each with its own in-memory index. A query goes to
 * the thread with the fewest queries pending; a thread that dies fails only its pending
 * queries and is replaced by the next query.
 */
import { Worker } from 'node:worker_threads'
import type { SearchQuery, SearchResult } from '../search-engine.js'
import type { SearcherStats } from './searcher.js'

export type WorkerRequest = { id: number, kind: 'search', query: SearchQuery } | { id: number, kind: 'stats' }
export type WorkerReply = { id: number, result: SearchResult | SearcherStats } | { id: number, error: string }

/**
 * A small young generation and an explicit old-generation cap make V8 collect the garbage
 * of a bulk load as it goes instead of growing the heap: at 100k services the thread's
 * share of the process RSS fell from ~130 MB to ~65 MB. The cap itself is far above what
 * the index needs (a ~40 MB heap per 100k services, twice that while a fresh copy loads).
 */
const RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 512 }

interface Thread {
  worker: Worker
  pending: Map<number, { resolve: (value: never) => void, reject: (err: Error) => void }>
}

export class SearchPool {
  readonly #threads: Array<Thread | undefined>
  #nextId = 0
  #closed = false

  constructor (readonly file: string, threads: number) {
    this.#threads = Array.from({ length: threads }, () => undefined)
    for (let i = 0; i < threads; i++) this.#thread(i)
  }

  #thread (i: number): Thread {
    const existing = this.#threads[i]
    if (existing !== undefined) return existing
    const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: { file: this.file }, resourceLimits: RESOURCE_LIMITS })
    const thread: Thread = { worker, pending: new Map() }
    const fail = (err: Error): void => {
      if (this.#threads[i] === thread) this.#threads[i] = undefined
      for (const { reject } of thread.pending.values()) reject(err)
      thread.pending.clear()
    }
    worker.on('message', (reply: WorkerReply) => {
      const waiter = thread.pending.get(reply.id)
      if (waiter === undefined) return
      thread.pending.delete(reply.id)
      if ('error' in reply) waiter.reject(new Error(`search failed: ${reply.error}`))
      else waiter.resolve(reply.result as never)
    })
    worker.on('error', fail)
    worker.on('exit', (code) => { fail(new Error(`search thread exited (code ${code})`)) })
    this.#threads[i] = thread
    return thread
  }

  async #ask<T> (request: { kind: 'search', query: SearchQuery } | { kind: 'stats' }): Promise<T> {
    if (this.#closed) throw new Error('the search engine is closed')
    let best = 0
    for (let i = 1; i < this.#threads.length; i++) {
      if ((this.#threads[i]?.pending.size ?? 0) < (this.#threads[best]?.pending.size ?? 0)) best = i
    }
    const thread = this.#thread(best)
    const id = this.#nextId++
    return await new Promise<T>((resolve, reject) => {
      thread.pending.set(id, { resolve: resolve as (value: never) => void, reject })
      thread.worker.postMessage({ id, ...request } satisfies WorkerRequest)
    })
  }

  async search (query: SearchQuery): Promise<SearchResult> {
    return await this.#ask({ kind: 'search', query })
  }

  async stats (): Promise<SearcherStats> {
    return await this.#ask({ kind: 'stats' })
  }

  /** Terminates a thread as a crash would (tests). */
  async crash (i = 0): Promise<void> {
    await this.#threads[i]?.worker.terminate()
  }

  async close (): Promise<void> {
    this.#closed = true
    await Promise.all(this.#threads.map(async (thread) => await thread?.worker.terminate()))
  }
}
