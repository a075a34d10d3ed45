/**
 * One pass over a source (docs/sources.md): every page of its list read through the prober's
 * guarded client, each item made a listing by the registration rules, provenance recorded, and
 * after a complete pass what the source no longer lists loses it. The rules:
 * - one listing per identity (resource + method), whichever sources list it;
 * - a new identity becomes an unowned listing, every field prefilled from the item, `unverified`
 *   until the catalog's own probe says otherwise;
 * - an unowned listing follows its sources' text and terms until a probe matched it (the live 402
 *   answer then decides); a listing a key registered or an origin's owner claimed is never changed,
 *   the source is only added to its provenance;
 * - after a complete pass, a listing the source no longer lists loses that provenance entry, and an
 *   unowned one left without any source becomes `inactive` ("no longer listed by …"), kept;
 * - an incomplete pass (a page that failed, a time-out, too many items) retires nothing;
 * - a pass that finds everything as it was writes no listing and moves no change feed.
 */
import { buildServiceRecord } from '../domain/registration.js'
import { readBazaarItem } from '../domain/bazaar-item.js'
import { newServiceId } from '../domain/ids.js'
import { retiredListing } from '../domain/lifecycle.js'
import { inferenceText, PREFILLABLE_FIELDS, type CategoryInferrer } from '../domain/listing-text.js'
import type { ServiceRecord } from '../domain/service.js'
import { MAX_REPORTED_REFUSALS, noLongerListedBy, toProvenance, type Provenance, type SourceRecord, type SyncReport } from '../domain/sources.js'
import { computeTrustScore } from '../domain/trust.js'
import { CatalogError } from '../errors.js'
import type { CatalogStore } from '../store/catalog-store.js'

/** Items asked per page (the Bazaar list's usual maximum). */
export const SOURCE_PAGE_SIZE = 100
/** A page's JSON above this fails the pass (100 items of at most 64 KiB would be 6.4 MB; real pages are 100–500 KB). */
export const MAX_PAGE_BYTES = 8 * 1024 * 1024
/** Items read per pass at most: a list longer than this is read incompletely (and retires nothing). */
export const MAX_SOURCE_ITEMS = 100_000

/** What a pass needs: the store, a guarded JSON read, and category inference. */
export interface SyncDeps {
  store: CatalogStore
  /** A GET through the prober's guarded client (SSRF guard, time budget, byte bound, same origin). */
  readJson: (url: string, maxBytes: number) => Promise<{ ok: true, document: unknown } | { ok: false, reason: string }>
  inferCategory: CategoryInferrer
  /** Aborted: the pass stops after its current page, incomplete. */
  signal?: AbortSignal
}

/** The page's items, or why the page cannot be read. */
function pageItems (document: unknown): { items: unknown[], total: number | null } | string {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return 'the page is not a JSON object'
  const { items, pagination } = document as { items?: unknown, pagination?: { total?: unknown } }
  if (!Array.isArray(items)) return 'the page has no "items" list'
  const total = typeof pagination?.total === 'number' && Number.isSafeInteger(pagination.total) && pagination.total >= 0 ? pagination.total : null
  return { items, total }
}

/** Fields an unowned listing takes from its source while no probe has matched it. */
function sourcedFields (record: ServiceRecord): string {
  return JSON.stringify([record.name, record.description, record.tags, record.priceAtomic, record.currency, record.paymentAddress, record.network, record.supportedChains])
}

export async function syncSource (deps: SyncDeps, source: SourceRecord): Promise<SyncReport> {
  const { store } = deps
  const startedAt = new Date().toISOString()
  const report: SyncReport = { startedAt, finishedAt: startedAt, complete: false, seen: 0, added: 0, updated: 0, unchanged: 0, retired: 0, refusedCount: 0, refused: [], error: null }
  const refuse = (item: string, reason: string): void => {
    report.refusedCount++
    if (report.refused.length < MAX_REPORTED_REFUSALS) report.refused.push({ item, reason })
  }
  const listed = new Set<string>()
  const identities = new Set<string>()

  // The next offset is what the source sent so far: a source that sends more than a page, or
  // ignores the offset, is read once over, not again and again.
  for (let offset = 0; ;) {
    if (deps.signal?.aborted === true) { report.error = `${source.url}: stopped (the catalog is shutting down) after ${offset} items`; break }
    if (report.seen >= MAX_SOURCE_ITEMS) { report.error = `${source.url}: lists more than ${MAX_SOURCE_ITEMS} items; the rest were not read`; break }
    const url = `${source.url}/discovery/resources?limit=${SOURCE_PAGE_SIZE}&offset=${offset}`
    const read = await deps.readJson(url, MAX_PAGE_BYTES)
    const page = read.ok ? pageItems(read.document) : read.reason
    if (typeof page === 'string') { report.error = `${source.url}: the page at offset ${offset} failed: ${page}`; break }

    const records: ServiceRecord[] = []
    for (const [index, item] of page.items.entries()) {
      report.seen++
      const position = offset + index + 1
      const itemRead = readBazaarItem(item, position)
      if (!itemRead.ok) { refuse(itemRead.item, itemRead.reason); continue }
      const identity = `${itemRead.body.method} ${itemRead.body.endpoint}`
      if (identities.has(identity)) continue
      identities.add(identity)
      try {
        const body = itemRead.body
        const category = deps.inferCategory(inferenceText(body))
        const record = buildServiceRecord({ ...body, category }, { id: newServiceId(), ownerId: null, now: startedAt })
        records.push({ ...record, prefill: { fields: [...PREFILLABLE_FIELDS] } })
      } catch (err) {
        if (!(err instanceof CatalogError)) throw err
        refuse(itemRead.body.endpoint, err.message)
      }
    }
    const named = await applyPage(deps, records, refuse, report)
    for (const id of named) listed.add(id)
    await store.addProvenance(source.id, named, startedAt)

    offset += page.items.length
    // With a total, a source that caps its pages below the limit asked is still read to the end.
    const end = page.items.length === 0 || (page.total !== null ? offset >= page.total : page.items.length < SOURCE_PAGE_SIZE)
    if (end) { report.complete = true; break }
  }

  if (report.complete) {
    const gone = (await store.servicesOfSource(source.id)).filter((id) => !listed.has(id))
    await store.removeProvenance(source.id, gone)
    report.retired = await retireUnlisted(store, gone, source.url)
  }
  report.finishedAt = new Date().toISOString()
  await store.recordSourceSync(source.id, report, report.complete ? startedAt : null)
  return report
}

/**
 * Of these listings, which lost `sourceUrl` from their provenance, the unowned ones left without
 * any source become `inactive` with the reason naming it (kept, never deleted; a source that
 * lists them again brings them back). Returns how many.
 */
export async function retireUnlisted (store: CatalogStore, ids: readonly string[], sourceUrl: string): Promise<number> {
  const left = await store.provenanceOf(ids)
  let retired = 0
  for (const record of await store.getServices(ids.filter((id) => !left.has(id)))) {
    if (record.ownerId !== null || record.claimed || record.prefill?.removed !== undefined) continue
    const next = retiredListing(record, noLongerListedBy(sourceUrl), new Date().toISOString())
    if (await store.updateService(next)) retired++
  }
  return retired
}

/** Stores a page's listings by the rules above; returns the ids of the listings the page names. */
async function applyPage (deps: SyncDeps, records: readonly ServiceRecord[], refuse: (item: string, reason: string) => void, report: SyncReport): Promise<string[]> {
  const { store } = deps
  const ids: string[] = []
  const fresh: ServiceRecord[] = []
  for (const record of records) {
    const existing = await store.findServiceByResource(record.resource, record.method)
    if (existing === null) { fresh.push(record); continue }
    ids.push(existing.id)
    // Owned or claimed listings keep their owner's fields; a matched probe makes the live answer the word.
    if (existing.ownerId !== null || existing.claimed || existing.paymentRequirements !== null) { report.unchanged++; continue }
    const returning = existing.prefill?.removed !== undefined
    const next: ServiceRecord = {
      ...existing,
      name: record.name,
      description: record.description,
      tags: record.tags,
      priceAtomic: record.priceAtomic,
      currency: record.currency,
      paymentAddress: record.paymentAddress,
      network: record.network,
      supportedChains: record.supportedChains,
      prefill: { fields: existing.prefill?.fields ?? [...PREFILLABLE_FIELDS] }
    }
    if (!returning && sourcedFields(next) === sourcedFields(existing)) { report.unchanged++; continue }
    if (returning) next.status = 'unverified'
    next.trustScore = computeTrustScore({ status: next.status, uptimeScore: next.uptimeScore, usage: next.usage })
    next.updatedAt = new Date().toISOString()
    if (await store.updateService(next)) report.updated++
  }
  if (fresh.length === 0) return ids
  try {
    await store.insertServices(fresh)
    report.added += fresh.length
    ids.push(...fresh.map((record) => record.id))
  } catch (err) {
    if (!(err instanceof CatalogError) || err.statusCode >= 500) throw err
    // One refused listing (an origin its owner claimed, an identity taken meanwhile) fails the
    // batch: store them one by one so only it is refused.
    for (const record of fresh) {
      try {
        await store.insertService(record)
        report.added++
        ids.push(record.id)
      } catch (one) {
        if (!(one instanceof CatalogError) || one.statusCode >= 500) throw one
        refuse(record.endpoint, one.message)
      }
    }
  }
  return ids
}

/** Removes a source: its listings lose it, and the unowned ones it alone listed become inactive. Null when no source has that id. */
export async function removeSource (store: CatalogStore, source: SourceRecord): Promise<{ lost: number, retired: number } | null> {
  const lost = await store.deleteSource(source.id)
  if (lost === null) return null
  return { lost: lost.length, retired: await retireUnlisted(store, lost, source.url) }
}

/** The sources that list a listing, as its detail shows them (oldest first). */
export async function listingProvenance (store: CatalogStore, serviceId: string): Promise<Provenance[]> {
  const entries = (await store.provenanceOf([serviceId])).get(serviceId) ?? []
  if (entries.length === 0) return []
  const sources = new Map((await store.listSources()).map((source) => [source.id, source]))
  return entries.flatMap((entry) => {
    const source = sources.get(entry.sourceId)
    return source === undefined ? [] : [toProvenance(entry, source)]
  })
}
