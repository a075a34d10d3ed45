/**
 * The change feed over two collections: live services (each carrying the sequence of its
 * last change) and tombstones of deleted ones. Both are read from the same sequence and
 * merged, oldest first. A tombstone is `service: null`.
 */
import type { ServiceChange } from '../catalog-store.js'
import { fromLong, fromServiceDocument, type ServiceDocument, type TombstoneDocument } from './mapping.js'

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
