/**
 * The kept JSON of recently read services (a search's hits), so a search page costs no random
 * page reads of the store file. An entry is valid while the change feed says its service did not
 * change: on each read, the services and tombstones written since the cache last looked are
 * dropped (all of them past MAX_CHANGES_READ). A probe or a payment that leaves the listing as it
 * was rewrites its JSON without a change (lastChecked, uptime, usage figures); such a read may
 * show the figures of before until the service next changes or is evicted, as the response
 * cache's searches do (docs/configuration.md, CATALOG_RESPONSE_CACHE_MB).
 *
 * Bounded in bytes, least recently used evicted first. A search's 20 rows took 79 µs of the API
 * thread, 114–136 µs during a source pass (bench:sources); at 100,000 services the cache raised
 * the uncached search streams 12–25 % in one run (bench:search, docs/benchmarks.md).
 */
import { LRUCache } from 'lru-cache'
import type { ServiceJsonItem } from '../catalog-store.js'
import type { SqliteConnection } from './connection.js'

/**
 * About 1,500 services' JSON (1–2 KB each, UTF-8). The API's peak RSS at 100,000 services
 * (bench:search, target 450 MB) rose 29 MB with 16 MiB and 14 MB with 8 MiB, when entries
 * were strings counted at two bytes a character.
 */
export const JSON_CACHE_BYTES = 2 * 1024 * 1024
/** Changes read to evict one by one; past this many since the last look, everything goes. */
const MAX_CHANGES_READ = 1000
/** An entry's bookkeeping besides its bytes (the key, the item object, the buffer's own, the LRU's links). */
const ENTRY_OVERHEAD_BYTES = 160

export class ServiceJsonCache {
  readonly #connection: SqliteConnection
  readonly #items: LRUCache<string, ServiceJsonItem>
  /** The store's latest change when the entries were last known valid; -1 before any read. */
  #seq = -1
  hits = 0
  misses = 0

  constructor (connection: SqliteConnection, maxBytes = JSON_CACHE_BYTES) {
    this.#connection = connection
    this.#items = new LRUCache({ maxSize: maxBytes, sizeCalculation: (item) => item.json.byteLength + item.id.length + ENTRY_OVERHEAD_BYTES })
  }

  /**
   * The items of `ids` when every one is kept and unchanged, in the order given; undefined
   * when any is not (which may be an id that does not exist: get reads it). The change check
   * is one statement, a snapshot of its own.
   */
  kept (ids: readonly string[]): ServiceJsonItem[] | undefined {
    this.#evictChanged()
    const items: ServiceJsonItem[] = []
    for (const id of ids) {
      const item = this.#items.get(id)
      if (item === undefined) return undefined
      items.push(item)
    }
    this.hits += items.length
    return items
  }

  /**
   * The items of `ids` that exist, in the order given; `read` reads those not kept (inside the
   * caller's read transaction, which also holds this check: both see one state of the store).
   */
  get (ids: readonly string[], read: (missing: readonly string[]) => ServiceJsonItem[]): ServiceJsonItem[] {
    this.#evictChanged()
    const found = new Map<string, ServiceJsonItem>()
    const missing: string[] = []
    for (const id of ids) {
      const item = this.#items.get(id)
      if (item === undefined) missing.push(id)
      else found.set(id, item)
    }
    this.hits += found.size
    this.misses += missing.length
    if (missing.length > 0) {
      for (const item of read(missing)) {
        found.set(item.id, item)
        this.#items.set(item.id, item)
      }
    }
    return ids.flatMap((id) => found.get(id) ?? [])
  }

  #evictChanged (): void {
    const connection = this.#connection
    const latest = connection.latestSeq()
    if (latest === this.#seq) return
    if (this.#seq >= 0 && latest > this.#seq) {
      const live = connection.statement('SELECT id FROM services WHERE seq > ? LIMIT ?').pluck().all(this.#seq, MAX_CHANGES_READ + 1) as string[]
      const gone = connection.statement('SELECT id FROM service_tombstones WHERE seq > ? LIMIT ?').pluck().all(this.#seq, MAX_CHANGES_READ + 1) as string[]
      if (live.length <= MAX_CHANGES_READ && gone.length <= MAX_CHANGES_READ) {
        for (const id of live) this.#items.delete(id)
        for (const id of gone) this.#items.delete(id)
        this.#seq = latest
        return
      }
    }
    // A first look, too many changes, or a store whose feed went back (replaced): start over.
    this.#items.clear()
    this.#seq = latest
  }
}
