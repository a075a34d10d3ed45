/**
 * A pass over a `bazaar` source: its whole `{url}/discovery/resources`, page by page. The next
 * offset is what the source sent so far, so a source that caps its pages below the limit asked,
 * or ignores the offset, is read once over; the list ends at `pagination.total`, else at a short
 * page. The pass is complete only when every page was read.
 */
import { readBazaarItem } from '../domain/bazaar-item.js'
import { MAX_PAGE_BYTES, MAX_SOURCE_ITEMS, type SourcePass } from './source-pass.js'

/** Items asked per page (the Bazaar list's usual maximum). */
export const SOURCE_PAGE_SIZE = 100

/** The page's items, or why the page cannot be read. */
function pageItems (document: unknown): { items: unknown[], total: number | null } | string {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return 'the page is not a JSON object'
  const { items, pagination } = document as { items?: unknown, pagination?: { total?: unknown } }
  if (!Array.isArray(items)) return 'the page has no "items" list'
  const total = typeof pagination?.total === 'number' && Number.isSafeInteger(pagination.total) && pagination.total >= 0 ? pagination.total : null
  return { items, total }
}

export async function readBazaarList (pass: SourcePass): Promise<void> {
  const { source, report } = pass
  for (let offset = 0; ;) {
    if (pass.stopped) { report.error = `${source.url}: stopped (the catalog is shutting down) after ${offset} items`; return }
    if (report.seen >= MAX_SOURCE_ITEMS) { report.error = `${source.url}: lists more than ${MAX_SOURCE_ITEMS} items; the rest were not read`; return }
    const read = await pass.deps.readJson(`${source.url}/discovery/resources?limit=${SOURCE_PAGE_SIZE}&offset=${offset}`, MAX_PAGE_BYTES)
    const page = read.ok ? pageItems(read.document) : read.reason
    if (typeof page === 'string') { report.error = `${source.url}: the page at offset ${offset} failed: ${page}`; return }
    report.seen += page.items.length
    await pass.apply(page.items.map((item, index) => ({ read: readBazaarItem(item, offset + index + 1) })))
    offset += page.items.length
    // With a total, a source that caps its pages below the limit asked is still read to the end.
    const end = page.items.length === 0 || (page.total !== null ? offset >= page.total : page.items.length < SOURCE_PAGE_SIZE)
    if (end) { report.complete = true; return }
  }
}
