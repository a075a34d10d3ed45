/**
 * Sources: other lists of x402 resources the catalog mirrors (docs/sources.md). A source is a
 * URL and a kind; a pass reads its whole list and leaves a report. A listing a source lists
 * carries the source in its provenance; its status still comes only from the catalog's own probes.
 */
import { randomBytes } from 'node:crypto'
import { ValidationError } from '../errors.js'
import { canonicalEndpoint } from './endpoint-url.js'

/**
 * bazaar: `{url}/discovery/resources` of a facilitator or catalog, read whole each pass;
 * catalog: another instance of this catalog, followed through its `{url}/api/changes`;
 * origin: one origin's paid resources, as its OpenAPI document or /.well-known/x402 lists them.
 */
export const SOURCE_KINDS = ['bazaar', 'catalog', 'origin'] as const
export type SourceKind = typeof SOURCE_KINDS[number]

export const SOURCE_ID_PATTERN = '^src_[a-z0-9]{16}$'

/** Refusals kept in a pass's report (each with its reason); the count covers them all. */
export const MAX_REPORTED_REFUSALS = 50

export interface SourceRefusal {
  /** The item's resource as the source wrote it (cut), or its position when it has none. */
  item: string
  reason: string
}

/** What one pass over a source did. */
export interface SyncReport {
  startedAt: string
  finishedAt: string
  /** Every page was read: only then are listings the source no longer lists retired. */
  complete: boolean
  seen: number
  added: number
  updated: number
  unchanged: number
  retired: number
  refusedCount: number
  /** The first MAX_REPORTED_REFUSALS refusals. */
  refused: SourceRefusal[]
  /** Why the pass stopped early (a page that failed, a timeout); null for a complete pass. */
  error: string | null
  /** A catalog source's change feed: where this pass began and ended, and when the feed was last read whole. */
  feed?: FeedPosition
}

/**
 * Where a catalog source is followed from. A pass from `since` 0 reads the whole feed (every live
 * listing once) and, complete, retires what the source no longer lists; a pass from a later
 * cursor applies only what changed. `wholeAt` is when the newest whole, complete read began.
 */
export interface FeedPosition {
  since: string
  next: string
  wholeAt: string | null
}

export interface SourceRecord {
  id: string
  kind: SourceKind
  /** Canonical: no trailing slash, query or fragment. */
  url: string
  createdAt: string
  /** The newest pass, complete or not; null before the first. */
  lastSync: SyncReport | null
  /** When the newest complete pass started; null before one. Every listing still in its provenance was seen then or later. */
  lastCompleteAt: string | null
}

/** One source of a listing, as its detail shows it. */
export interface Provenance {
  id: string
  url: string
  firstSeenAt: string
  lastSeenAt: string
}

/** A provenance entry as a store keeps it: the source and when it first listed the listing. */
export interface ProvenanceEntry {
  sourceId: string
  firstSeenAt: string
}

export function newSourceId (): string {
  return `src_${randomBytes(10).toString('hex').slice(0, 16)}`
}

/**
 * A source's URL as stored: http(s), no credentials, query or fragment, no trailing slash (an
 * `origin` source: the origin alone); a ValidationError naming `url` otherwise.
 */
export function canonicalSourceUrl (input: string, kind: SourceKind): string {
  let url: URL
  try {
    url = new URL(canonicalEndpoint(input))
  } catch (err) {
    throw new ValidationError('url', (err as Error).message.replace(/^endpoint: /, ''))
  }
  if (url.search !== '' || url.hash !== '') throw new ValidationError('url', 'a source URL has no query or fragment: the catalog adds the list\'s path (/discovery/resources, /api/changes) and its paging itself')
  if (kind === 'origin' && url.pathname !== '/') throw new ValidationError('url', `an origin source is an origin alone (${url.origin}): the catalog reads its documents at their well-known paths`)
  return url.href.replace(/\/+$/, '')
}

/** A provenance entry as shown: every entry still kept was seen by the source's newest complete pass (or first seen after it). */
export function toProvenance (entry: ProvenanceEntry, source: Pick<SourceRecord, 'id' | 'url' | 'lastCompleteAt'>): Provenance {
  const lastSeenAt = source.lastCompleteAt !== null && source.lastCompleteAt > entry.firstSeenAt ? source.lastCompleteAt : entry.firstSeenAt
  return { id: source.id, url: source.url, firstSeenAt: entry.firstSeenAt, lastSeenAt }
}

/** The reason an unowned listing gets when its last source stops listing it (kept, inactive). */
export function noLongerListedBy (url: string): string {
  return `no longer listed by ${url}`
}
