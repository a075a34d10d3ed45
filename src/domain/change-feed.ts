/**
 * The public change feed (GET /api/changes): the store's feed as followers read it. A cursor
 * is the sequence number of the change it follows, written as decimal text; clients treat it
 * as opaque and hand back what they were given. Only the latest state of each listing is kept
 * (src/store/catalog-store.ts), so a follower that applies each change as an upsert or a
 * deletion converges on the catalog; a deletion stays in the feed as a tombstone for as long
 * as the store keeps the id deleted (docs/api.md says so).
 */
import { toService, type Service, type ServiceRecord } from './service.js'

/** Up to 15 digits: every sequence number a store hands out is a safe integer. */
export const CURSOR_PATTERN = '^(0|[1-9][0-9]{0,14})$'
export const DEFAULT_CHANGES_LIMIT = 100
/** A page's bytes stay near 1 MB: a listing's public object is at most a few KB. */
export const MAX_CHANGES_LIMIT = 500

export interface PublicChange {
  cursor: string
  op: 'upsert' | 'delete'
  id: string
  service?: Service
}

export function cursorOf (seq: number): string {
  return String(seq)
}

/** The sequence number a cursor (text matching CURSOR_PATTERN, which the route's schema checks) names. */
export function seqOfCursor (cursor: string): number {
  return Number(cursor)
}

/** A change as the store's feed gives it (ServiceChange of src/store/catalog-store.ts). */
export function toPublicChange (change: { seq: number, id: string, service: ServiceRecord | null }): PublicChange {
  const cursor = cursorOf(change.seq)
  return change.service === null
    ? { cursor, op: 'delete', id: change.id }
    : { cursor, op: 'upsert', id: change.id, service: toService(change.service) }
}
