/**
 * A pass over a `catalog` source: another instance of this catalog, followed through its change
 * feed (`{url}/api/changes`, src/routes/changes.ts). An upsert is read as a listing
 * (src/domain/catalog-item.ts) and keeps the other catalog's id when it is free here, so that its
 * deletion, which names only the id, finds it; a deletion drops the source from that listing.
 * Read from cursor 0 the feed holds every live listing once, so a whole read that completes
 * retires what the source no longer lists, as a Bazaar pass does; a later cursor applies only
 * what changed since. A cursor the other catalog no longer knows (410: it was reset) starts a
 * whole read. A listing this catalog already held under another id does not hear of its
 * deletion until the next whole read (docs/sources.md).
 */
import { isObject } from '../domain/bazaar-item.js'
import { readCatalogItem } from '../domain/catalog-item.js'
import { CURSOR_PATTERN, MAX_CHANGES_LIMIT } from '../domain/change-feed.js'
import { MAX_PAGE_BYTES, MAX_SOURCE_ITEMS, type SourcedItem, type SourcePass } from './source-pass.js'

const CURSOR = new RegExp(CURSOR_PATTERN)

/** The page's changes and next cursor, or why the page cannot be read. */
function feedPage (document: unknown): { changes: unknown[], next: string } | string {
  if (!isObject(document)) return 'the page is not a JSON object'
  if (!Array.isArray(document.changes)) return 'the page has no "changes" list'
  if (typeof document.next !== 'string' || !CURSOR.test(document.next)) return '"next" is not a cursor'
  if (document.changes.length > MAX_CHANGES_LIMIT) return `the page holds ${document.changes.length} changes, more than the ${MAX_CHANGES_LIMIT} asked`
  return { changes: document.changes, next: document.next }
}

/**
 * Follows the feed from the source's cursor (from 0 when `whole`, or before the first pass) until
 * it is caught up. Returns whether this was a whole read.
 */
export async function followCatalog (pass: SourcePass, whole: boolean): Promise<boolean> {
  const { source, report, deps } = pass
  const previous = source.lastSync?.feed
  let since = whole || previous === undefined ? '0' : previous.next
  let fromZero = since === '0'
  let start = since
  for (let page = 0; ; page++) {
    if (pass.stopped) { report.error = `${source.url}: stopped (the catalog is shutting down) at cursor ${since}`; break }
    if (report.seen >= MAX_SOURCE_ITEMS) { report.error = `${source.url}: more than ${MAX_SOURCE_ITEMS} changes in one pass; the next pass goes on from cursor ${since}`; break }
    const read = await deps.readJson(`${source.url}/api/changes?since=${since}&limit=${MAX_CHANGES_LIMIT}`, MAX_PAGE_BYTES)
    if (!read.ok && read.status === 410 && page === 0 && !fromZero) {
      // The other catalog no longer knows the cursor (it was reset): read it whole again.
      since = start = '0'
      fromZero = true
      page = -1
      continue
    }
    const body = read.ok ? feedPage(read.document) : read.reason
    if (typeof body === 'string') { report.error = `${source.url}: the changes since cursor ${since} failed: ${body}`; break }
    report.seen += body.changes.length
    const upserts: SourcedItem[] = []
    const deleted: string[] = []
    for (const [index, change] of body.changes.entries()) {
      const position = report.seen - body.changes.length + index + 1
      if (!isObject(change) || typeof change.id !== 'string') { pass.refuse(`change ${position}`, 'not a change with an id'); continue }
      if (change.op === 'delete') deleted.push(change.id)
      else if (change.op === 'upsert') upserts.push({ read: readCatalogItem(change.service, position), id: change.id })
      else pass.refuse(`change ${position}`, `op ${JSON.stringify(change.op)} is neither "upsert" nor "delete"`)
    }
    // A listing the other catalog moved to another endpoint is a new identity here: the old one loses the source.
    const moved = await movedListings(pass, upserts)
    await pass.drop([...deleted, ...moved])
    await pass.apply(upserts)
    since = body.next
    if (body.changes.length < MAX_CHANGES_LIMIT) { report.complete = true; break }
  }
  report.feed = { since: start, next: since, wholeAt: fromZero && report.complete ? report.startedAt : previous?.wholeAt ?? null }
  return fromZero
}

/** Listings kept under a changed listing's id whose identity is no longer the one it now has. */
async function movedListings (pass: SourcePass, upserts: readonly SourcedItem[]): Promise<string[]> {
  const byId = new Map(upserts.flatMap(({ read, id }) => read.ok && id !== undefined ? [[id, `${read.body.method} ${read.body.endpoint}`]] : []))
  if (byId.size === 0) return []
  const held = await pass.deps.store.getServices([...byId.keys()])
  return held.filter((record) => byId.get(record.id) !== `${record.method} ${record.endpoint}`).map((record) => record.id)
}
