/**
 * What every kind of source shares in a pass (docs/sources.md): its report, the items it refuses
 * with their reasons, and the rules by which read items become listings:
 * - one listing per identity (resource + method), whichever sources list it;
 * - a new identity becomes an unowned listing, every field prefilled from the item, `unverified`
 *   until the catalog's own probe says otherwise;
 * - an unowned listing follows its sources' text and terms until a probe matched it (the live 402
 *   answer then decides); a listing a key registered or an origin's owner claimed is never changed,
 *   the source is only added to its provenance;
 * - a listing the source stops listing loses that provenance entry, and an unowned one left
 *   without any source becomes `inactive` ("no longer listed by …"), kept;
 * - what is found as it was is not written: an unchanged pass moves no change feed.
 */
import type { ItemRead } from '../domain/bazaar-item.js'
import { SERVICE_ID_PATTERN, newServiceId } from '../domain/ids.js'
import { retiredListing } from '../domain/lifecycle.js'
import { firstProbeAt } from '../domain/probe-schedule.js'
import { inferenceText, PREFILLABLE_FIELDS, type CategoryInferrer } from '../domain/listing-text.js'
import { buildServiceRecord } from '../domain/registration.js'
import type { ServiceRecord } from '../domain/service.js'
import { MAX_REPORTED_REFUSALS, noLongerListedBy, type SourceRecord, type SyncReport } from '../domain/sources.js'
import { computeTrustScore } from '../domain/trust.js'
import { CatalogError } from '../errors.js'
import { TimeSlices } from '../lib/time-slices.js'
import type { EndpointAnswer } from '../prober/endpoint-prober.js'
import type { CatalogStore } from '../store/catalog-store.js'

/** A page's JSON above this fails the pass (100 items of at most 64 KiB would be 6.4 MB; real pages are 100–500 KB). */
export const MAX_PAGE_BYTES = 8 * 1024 * 1024
/** Items read per pass at most: a list longer than this is read incompletely (and retires nothing). */
export const MAX_SOURCE_ITEMS = 100_000

/** A guarded GET of a JSON document: the status is given for an answer that was not 200. */
export type JsonRead = { ok: true, document: unknown } | { ok: false, reason: string, status?: number }

/** What a pass needs: the store, a guarded JSON read, and category inference. */
export interface SyncDeps {
  store: CatalogStore
  /** A GET through the prober's guarded client (SSRF guard, time budget, byte bound, same origin). */
  readJson: (url: string, maxBytes: number) => Promise<JsonRead>
  inferCategory: CategoryInferrer
  /** An endpoint's 402 answer through the same client (an `origin` source's resources are read from their own answers). */
  readEndpoint: (endpoint: string, method: string, options: { sameOrigin: boolean }) => Promise<EndpointAnswer>
  /** The prober's interval: new listings' first probes are spread over it (src/domain/probe-schedule.ts); 0 or absent, due at once. */
  probeIntervalMs?: number
  /** Aborted: the pass stops after its current page, incomplete. */
  signal?: AbortSignal
}

/** An item read from a source; `id` is the source's own id for it, kept when it is free here (a catalog's). */
export interface SourcedItem {
  read: ItemRead
  id?: string
}

const ID = new RegExp(SERVICE_ID_PATTERN)
/**
 * New listings per store transaction, and listings per provenance transaction: a transaction
 * holds the event loop to its end (a listing's insert is ~0.3 ms, its provenance ~0.06 ms), so
 * a page's are cut to fit about a time slice each, with a turn for requests in between.
 */
const INSERTS_PER_WRITE = 10
const PROVENANCE_PER_WRITE = 50

/** Fields an unowned listing takes from its source while no probe has matched it. */
function sourcedFields (record: ServiceRecord): string {
  return JSON.stringify([record.name, record.description, record.tags, record.priceAtomic, record.currency, record.paymentAddress, record.network, record.supportedChains])
}

export class SourcePass {
  readonly report: SyncReport
  /** The listings this pass found the source listing. */
  readonly listed = new Set<string>()
  readonly #identities = new Set<string>()
  /** A pass runs in the API process by default: requests must not wait behind a page's inference and writes. */
  readonly #slices = new TimeSlices()

  constructor (readonly deps: SyncDeps, readonly source: SourceRecord) {
    const startedAt = new Date().toISOString()
    this.report = { startedAt, finishedAt: startedAt, complete: false, seen: 0, added: 0, updated: 0, unchanged: 0, retired: 0, refusedCount: 0, refused: [], error: null }
  }

  get stopped (): boolean {
    return this.deps.signal?.aborted === true
  }

  refuse (item: string, reason: string): void {
    this.report.refusedCount++
    if (this.report.refused.length < MAX_REPORTED_REFUSALS) this.report.refused.push({ item, reason })
  }

  /** Makes read items listings by the rules above and records the source in their provenance. */
  async apply (items: readonly SourcedItem[]): Promise<void> {
    const { store, inferCategory } = this.deps
    const wanted = items.flatMap(({ id }) => id !== undefined && ID.test(id) ? [id] : [])
    const taken = new Set(wanted.length === 0 ? [] : (await store.getServices(wanted)).map((record) => record.id))
    const records: ServiceRecord[] = []
    for (const { read, id } of items) {
      await this.#slices.yieldIfDue()
      if (!read.ok) { this.refuse(read.item, read.reason); continue }
      const identity = `${read.body.method} ${read.body.endpoint}`
      if (this.#identities.has(identity)) continue
      this.#identities.add(identity)
      try {
        const category = inferCategory(inferenceText(read.body))
        const ownId = id !== undefined && ID.test(id) && !taken.has(id) ? id : newServiceId()
        const record = buildServiceRecord({ ...read.body, category }, { id: ownId, ownerId: null, now: this.report.startedAt })
        records.push({ ...record, prefill: { fields: [...PREFILLABLE_FIELDS] } })
      } catch (err) {
        if (!(err instanceof CatalogError)) throw err
        this.refuse(read.body.endpoint, err.message)
      }
    }
    const named = await this.#store(records)
    for (const id of named) this.listed.add(id)
    for (let at = 0; at < named.length; at += PROVENANCE_PER_WRITE) {
      await this.#slices.yieldIfDue()
      await store.addProvenance(this.source.id, named.slice(at, at + PROVENANCE_PER_WRITE), this.report.startedAt)
    }
  }

  /** The source still lists these listings, though nothing was read of them this pass (an origin's resource that did not answer): they keep it. */
  async keep (ids: readonly string[]): Promise<void> {
    await this.deps.store.addProvenance(this.source.id, ids, this.report.startedAt)
    for (const id of ids) this.listed.add(id)
  }

  /** The source no longer lists these listings: they lose it, and unowned ones left without a source retire. */
  async drop (ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return
    const { store } = this.deps
    const entries = await store.provenanceOf(ids)
    const ours = ids.filter((id) => entries.get(id)?.some((entry) => entry.sourceId === this.source.id) === true)
    await store.removeProvenance(this.source.id, ours)
    for (const id of ours) this.listed.delete(id)
    this.report.retired += await retireUnlisted(store, ours, this.source.url)
  }

  /** Stores listings by the rules above; returns the ids of the listings named. */
  async #store (records: readonly ServiceRecord[]): Promise<string[]> {
    const { store } = this.deps
    const { report } = this
    const ids: string[] = []
    const fresh: ServiceRecord[] = []
    for (const record of records) {
      await this.#slices.yieldIfDue()
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
    const firstProbe = (record: ServiceRecord): string | null => firstProbeAt(record, this.deps.probeIntervalMs ?? 0)
    for (let at = 0; at < fresh.length; at += INSERTS_PER_WRITE) {
      await this.#slices.yieldIfDue()
      ids.push(...await this.#insert(fresh.slice(at, at + INSERTS_PER_WRITE), firstProbe))
    }
    return ids
  }

  /** Inserts new listings in one transaction; returns the ids of those stored. */
  async #insert (fresh: readonly ServiceRecord[], firstProbe: (record: ServiceRecord) => string | null): Promise<string[]> {
    const { store } = this.deps
    const { report } = this
    try {
      // With the source: one change per new listing, not a second one when apply() adds it.
      await store.insertServices(fresh, firstProbe, { sourceId: this.source.id, at: this.report.startedAt })
      report.added += fresh.length
      return fresh.map((record) => record.id)
    } catch (err) {
      if (!(err instanceof CatalogError) || err.statusCode >= 500) throw err
      // One refused listing (an origin its owner claimed, an identity taken meanwhile) fails the
      // batch: store them one by one so only it is refused.
      const ids: string[] = []
      for (const record of fresh) {
        try {
          await store.insertService(record, firstProbe)
          report.added++
          ids.push(record.id)
        } catch (one) {
          if (!(one instanceof CatalogError) || one.statusCode >= 500) throw one
          this.refuse(record.endpoint, one.message)
        }
      }
      return ids
    }
  }
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
