/**
 * The SQLite store's lists, answered on a thread of their own (node:worker_threads): the
 * list index and the page's rows are read there, on the thread's own connection, so a list
 * costs the API thread one message each way. The thread starts on the first list and reads
 * inside a transaction of its own: it sees every write committed before the list was asked
 * (a 201 comes back after its commit, so a client reads its own registrations). A thread
 * that dies fails only its pending lists; the next list starts another.
 *
 * A page's bytes come back in a slot of memory shared with the thread, and are sent from
 * there: the page's `release` frees the slot once they are written. A buffer per page, made
 * on one thread and freed by the other's garbage collector, let tens of MB of dead pages
 * pile up in the allocator under a list load at 100k services (docs/benchmarks.md).
 */
import { Worker } from 'node:worker_threads'
import type { CatalogFilter, Page, ServiceSort } from '../../domain/catalog-query.js'
import type { ServiceJsonPage, ServicePage } from '../catalog-store.js'

export type ListRequest = { id: number, kind: 'records' | 'json', filter: CatalogFilter, sort: ServiceSort, page: Page, slot: number }
export type ListReply =
  | { id: number, records: ServicePage }
  /** The page's bytes are in the request's slot of the shared memory. */
  | { id: number, total: number, length: number }
  /** No slot, or a page larger than one: the bytes themselves. */
  | { id: number, total: number, json: Uint8Array<ArrayBuffer> }
  | { id: number, error: string }

export interface ListThreadData { dataDir: string, shared: SharedArrayBuffer, slotBytes: number }

/** Lists in flight with a slot each; more wait for none (their bytes come in the message). */
const SLOTS = 64
/** Room for a page of 100 services of ~1 KB of JSON each, with margin. */
const SLOT_BYTES = 160 * 1024

/** Like the search threads': a small young generation keeps the thread's heap near what the index needs. */
const RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 256 }

interface Pending { resolve: (value: never) => void, reject: (err: Error) => void, slot: number }

export class ListThread {
  #worker: Worker | undefined
  readonly #pending = new Map<number, Pending>()
  // Pages of memory are touched only as pages are written: RSS follows the lists in flight.
  readonly #shared = new SharedArrayBuffer(SLOTS * SLOT_BYTES)
  readonly #freeSlots = Array.from({ length: SLOTS }, (_, i) => i)
  #nextId = 0
  #closed = false

  constructor (readonly dataDir: string) {}

  #start (): Worker {
    if (this.#worker !== undefined) return this.#worker
    const workerData: ListThreadData = { dataDir: this.dataDir, shared: this.#shared, slotBytes: SLOT_BYTES }
    const worker = new Worker(new URL('./list-worker.js', import.meta.url), { workerData, resourceLimits: RESOURCE_LIMITS })
    const fail = (err: Error): void => {
      if (this.#worker === worker) this.#worker = undefined
      for (const pending of this.#pending.values()) this.#settle(pending, err)
      this.#pending.clear()
    }
    worker.on('message', (reply: ListReply) => {
      const pending = this.#pending.get(reply.id)
      if (pending === undefined) return
      this.#pending.delete(reply.id)
      if (this.#pending.size === 0) worker.unref()
      if ('error' in reply) this.#settle(pending, new Error(`listing services failed: ${reply.error}`))
      else if ('records' in reply) this.#settle(pending, undefined, reply.records)
      else if ('json' in reply) this.#settle(pending, undefined, { json: reply.json, total: reply.total })
      else {
        // The slot stays taken until the page says it is written.
        const { slot } = pending
        pending.slot = -1
        let released = false
        const release = (): void => {
          if (released) return
          released = true
          this.#freeSlots.push(slot)
        }
        const json = new Uint8Array(this.#shared, slot * SLOT_BYTES, reply.length) as unknown as Uint8Array<ArrayBuffer>
        this.#settle(pending, undefined, { json, total: reply.total, release })
      }
    })
    worker.on('error', fail)
    worker.on('exit', (code) => { fail(new Error(`the list thread exited (code ${code})`)) })
    this.#worker = worker
    return worker
  }

  #settle (pending: Pending, err: Error | undefined, value?: ServicePage | ServiceJsonPage): void {
    if (pending.slot >= 0) this.#freeSlots.push(pending.slot)
    if (err !== undefined) pending.reject(err)
    else pending.resolve(value as never)
  }

  async #ask<T> (kind: ListRequest['kind'], filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<T> {
    if (this.#closed) throw new Error('the catalog store is closed')
    const worker = this.#start()
    const id = this.#nextId++
    const slot = kind === 'json' ? this.#freeSlots.pop() ?? -1 : -1
    return await new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: never) => void, reject, slot })
      // Referenced while a list is pending (a CLI awaiting one must not exit), not when idle.
      worker.ref()
      worker.postMessage({ id, kind, filter, sort, page, slot } satisfies ListRequest)
    })
  }

  async list (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServicePage> {
    return await this.#ask('records', filter, sort, page)
  }

  async listJson (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServiceJsonPage> {
    return await this.#ask('json', filter, sort, page)
  }

  /** Terminates the thread as a crash would (tests). */
  async crash (): Promise<void> {
    await this.#worker?.terminate()
  }

  async close (): Promise<void> {
    this.#closed = true
    await this.#worker?.terminate()
  }
}
