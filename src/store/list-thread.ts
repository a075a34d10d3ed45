/**
 * The SQLite store's lists, answered on a thread of their own (node:worker_threads): the
 * list index and the page's rows are read there, on the thread's own connection, so a list
 * costs the API thread one message each way. The thread starts on the first list and reads
 * inside a transaction of its own: it sees every write committed before the list was asked
 * (a 201 comes back after its commit, so a client reads its own registrations). A thread
 * that dies fails only its pending lists; the next list starts another.
 */
import { Worker } from 'node:worker_threads'
import type { CatalogFilter, Page, ServiceSort } from '../domain/catalog-query.js'
import type { ServiceJsonPage, ServicePage } from './catalog-store.js'

export type ListRequest = { id: number, kind: 'records' | 'json', filter: CatalogFilter, sort: ServiceSort, page: Page }
export type ListReply = { id: number, result: ServicePage | ServiceJsonPage } | { id: number, error: string }

/** Like the search threads': a small young generation keeps the thread's heap near what the index needs. */
const RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 256 }

interface Pending { resolve: (value: never) => void, reject: (err: Error) => void }

export class ListThread {
  #worker: Worker | undefined
  readonly #pending = new Map<number, Pending>()
  #nextId = 0
  #closed = false

  constructor (readonly dataDir: string) {}

  #start (): Worker {
    if (this.#worker !== undefined) return this.#worker
    const worker = new Worker(new URL('./list-worker.js', import.meta.url), { workerData: { dataDir: this.dataDir }, resourceLimits: RESOURCE_LIMITS })
    const fail = (err: Error): void => {
      if (this.#worker === worker) this.#worker = undefined
      for (const { reject } of this.#pending.values()) reject(err)
      this.#pending.clear()
    }
    worker.on('message', (reply: ListReply) => {
      const waiter = this.#pending.get(reply.id)
      if (waiter === undefined) return
      this.#pending.delete(reply.id)
      if (this.#pending.size === 0) worker.unref()
      if ('error' in reply) waiter.reject(new Error(`listing services failed: ${reply.error}`))
      else waiter.resolve(reply.result as never)
    })
    worker.on('error', fail)
    worker.on('exit', (code) => { fail(new Error(`the list thread exited (code ${code})`)) })
    this.#worker = worker
    return worker
  }

  async #ask<T> (kind: ListRequest['kind'], filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<T> {
    if (this.#closed) throw new Error('the catalog store is closed')
    const worker = this.#start()
    const id = this.#nextId++
    return await new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: never) => void, reject })
      // Referenced while a list is pending (a CLI awaiting one must not exit), not when idle.
      worker.ref()
      worker.postMessage({ id, kind, filter, sort, page } satisfies ListRequest)
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
