/**
 * The MongoDB store's change feed, over two collections: live services (each carrying the
 * sequence of its last change) and tombstones of deleted ones. Both are read from the same
 * sequence and merged, oldest first. A tombstone is `service: null`.
 */
import type { ChangeFeed, ServiceChange } from '../catalog-store.js'
import type { MongoConnection } from './connection.js'
import { fromLong, fromServiceDocument, toLong, type ServiceDocument, type TombstoneDocument } from './mapping.js'

/**
 * Merges both lists (each sorted by seq) into one sorted by seq, at most `limit` long. An id
 * listed twice (updated or deleted between the two reads, or deleted and registered again)
 * keeps only its newest entry: the indexer needs the latest state, and the newer entry's
 * sequence is never lower than the one it replaces.
 */
export function mergeFeed (services: readonly ServiceDocument[], tombstones: readonly TombstoneDocument[], limit: number): ServiceChange[] {
  const newest = new Map<string, ServiceChange>()
  const entries: ServiceChange[] = [
    ...services.map((doc) => ({ seq: fromLong(doc.seq, 'seq'), id: doc._id, service: fromServiceDocument(doc) })),
    ...tombstones.map((doc) => ({ seq: fromLong(doc.seq, 'seq'), id: doc._id, service: null }))
  ]
  for (const entry of entries) {
    const seen = newest.get(entry.id)
    if (seen === undefined || seen.seq < entry.seq) newest.set(entry.id, entry)
  }
  return [...newest.values()].sort((a, b) => a.seq - b.seq).slice(0, limit)
}

export class MongoFeed implements ChangeFeed {
  readonly #connection: MongoConnection

  constructor (connection: MongoConnection) {
    this.#connection = connection
  }

  /** Changes after `afterSeq`, oldest first; a deleted service is a tombstone (`service: null`). */
  async changesSince (afterSeq: number, limit: number): Promise<ServiceChange[]> {
    // Everything up to the counter read here has committed (sequence order is commit order),
    // so reading only up to it, a change committing during the read is never skipped.
    const upTo = await this.latestSeq()
    if (upTo <= afterSeq) return []
    const range = { seq: { $gt: toLong(afterSeq, 'afterSeq'), $lte: toLong(upTo, 'seq') } }
    const [services, tombstones] = await Promise.all([
      this.#connection.services.find(range).sort({ seq: 1 }).limit(limit).toArray(),
      this.#connection.tombstones.find(range).sort({ seq: 1 }).limit(limit).toArray()
    ])
    return mergeFeed(services, tombstones, limit)
  }

  async latestSeq (): Promise<number> {
    return await this.#connection.latestSeq()
  }
}
