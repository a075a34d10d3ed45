/**
 * The SQLite store's lists, answered on a thread of their own (node:worker_threads): the
 * list index and the page's rows are read there, on the thread's own connection, so a list
 * costs the API thread one message each way. The thread starts on the first list and reads
 * inside a transaction of its own: it sees every write committed before the list was asked
 * (a 201 comes back after its commit, so a client reads its own registrations). A thread
 * that dies fails only its pending lists; the next list starts another (src/lib/worker-rpc.ts).
 *
 * A page's bytes come back in a slot of memory shared with the thread and are copied at
 * once into a buffer of the API thread's, freeing the slot: the page the store answers is
 * an ordinary buffer the caller owns. A buffer made on the list thread and freed by the API
 * thread's garbage collector instead let tens of MB of dead pages pile up in the allocator
 * under a list load at 100k services (docs/benchmarks.md); a copy of ~30 KB is cheap.
 */
import type { CatalogFilter, Page, ServiceSort } from '../../domain/catalog-query.js'
import { StoreUnavailableError } from '../../errors.js'
import { WorkerRpc } from '../../lib/worker-rpc.js'
import type { CatalogFacets, ServiceJsonPage, ServicePage } from '../catalog-store.js'

export type ListRequest =
  | { kind: 'records' | 'json', filter: CatalogFilter, sort: ServiceSort, page: Page, slot: number }
  /** countFacets: the list index counts them too. */
  | { kind: 'facets', filter: CatalogFilter }
export type ListAnswer =
  | { records: ServicePage }
  | { facets: CatalogFacets }
  /** The page's bytes are in the request's slot of the shared memory. */
  | { total: number, length: number }
  /** No slot, or a page larger than one: the bytes themselves. */
  | { total: number, json: Uint8Array<ArrayBuffer> }

export interface ListThreadData { dataDir: string, shared: SharedArrayBuffer, slotBytes: number }

/** Lists in flight with a slot each; more wait for none (their bytes come in the message). */
const SLOTS = 64
/** Room for a page of 100 services of ~1 KB of JSON each, with margin. */
const SLOT_BYTES = 160 * 1024

/** Like the search threads': a small young generation keeps the thread's heap near what the index needs. */
const RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 256 }

export class ListThread {
  // Pages of memory are touched only as pages are written: RSS follows the lists in flight.
  readonly #shared = new SharedArrayBuffer(SLOTS * SLOT_BYTES)
  readonly #freeSlots = Array.from({ length: SLOTS }, (_, i) => i)
  readonly #rpc: WorkerRpc<ListRequest, ListAnswer>

  constructor (readonly dataDir: string) {
    const workerData: ListThreadData = { dataDir, shared: this.#shared, slotBytes: SLOT_BYTES }
    this.#rpc = new WorkerRpc({
      url: new URL('./list-worker.js', import.meta.url),
      workerData,
      resourceLimits: RESOURCE_LIMITS,
      name: 'the list thread',
      failure: (message, cause) => new StoreUnavailableError(`listing services: ${message}`, { cause })
    })
  }

  /** Starts the thread now: it checkpoints the store's log from its start (CHECKPOINT_EVERY_MS). */
  start (): void {
    this.#rpc.start()
  }

  async list (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServicePage> {
    const answer = await this.#rpc.call({ kind: 'records', filter, sort, page, slot: -1 })
    return (answer as { records: ServicePage }).records
  }

  async facets (filter: CatalogFilter): Promise<CatalogFacets> {
    return (await this.#rpc.call({ kind: 'facets', filter }) as { facets: CatalogFacets }).facets
  }

  async listJson (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServiceJsonPage> {
    const slot = this.#freeSlots.pop() ?? -1
    try {
      const answer = await this.#rpc.call({ kind: 'json', filter, sort, page, slot }) as Exclude<ListAnswer, { records: ServicePage } | { facets: CatalogFacets }>
      if ('json' in answer) return answer
      // Copied before the slot is freed: the next list may write over it. Not zero-filled
      // first, and a small page comes from Node's buffer pool.
      const json = Buffer.allocUnsafe(answer.length)
      json.set(new Uint8Array(this.#shared, slot * SLOT_BYTES, answer.length))
      return { json, total: answer.total }
    } finally {
      // Answered, failed or its thread gone: no thread writes to the slot any more.
      if (slot >= 0) this.#freeSlots.push(slot)
    }
  }

  async close (): Promise<void> {
    await this.#rpc.close()
  }
}
