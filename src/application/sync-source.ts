/**
 * One pass over a source (docs/sources.md), by its kind: a `bazaar` source's whole discovery list
 * (src/application/read-bazaar.ts), a `catalog` source's change feed since the last pass
 * (src/application/follow-catalog.ts), an `origin` source's documents and the 402 answers of
 * what they list (src/application/read-origin-source.ts). The rules that make items listings are the pass's
 * (src/application/source-pass.ts). A pass that read the whole list and completed retires what
 * the source no longer lists; an incomplete one (a page that failed, a time-out, too many items)
 * retires nothing.
 */
import { toProvenance, type Provenance, type SourceRecord, type SyncReport } from '../domain/sources.js'
import type { CatalogStore } from '../store/catalog-store.js'
import { followCatalog } from './follow-catalog.js'
import { readBazaarList } from './read-bazaar.js'
import { retireUnlisted, SourcePass, type SyncDeps } from './source-pass.js'

export type { SyncDeps } from './source-pass.js'

export interface SyncOptions {
  /** A catalog source: read its feed from the start (a whole read, which can retire) rather than from the last cursor. */
  whole?: boolean
}

export async function syncSource (deps: SyncDeps, source: SourceRecord, options: SyncOptions = {}): Promise<SyncReport> {
  const { store } = deps
  const pass = new SourcePass(deps, source)
  const { report } = pass
  let whole = true
  if (source.kind === 'catalog') whole = await followCatalog(pass, options.whole === true)
  // Loaded when needed: it brings origin import, the prober and viem, half a second that every
  // `npm run catalog -- sources` command would otherwise pay.
  else if (source.kind === 'origin') await (await import('./read-origin-source.js')).readOriginSource(pass)
  else await readBazaarList(pass)

  if (report.complete && whole) {
    const gone = (await store.servicesOfSource(source.id)).filter((id) => !pass.listed.has(id))
    await store.removeProvenance(source.id, gone)
    report.retired += await retireUnlisted(store, gone, source.url)
  }
  report.finishedAt = new Date().toISOString()
  await store.recordSourceSync(source.id, report, report.complete ? report.startedAt : null)
  return report
}

/** Removes a source: its listings lose it, and the unowned ones it alone listed become inactive. Null when no source has that id. */
export async function removeSource (store: CatalogStore, source: SourceRecord): Promise<{ lost: number, retired: number } | null> {
  const lost = await store.deleteSource(source.id)
  if (lost === null) return null
  return { lost: lost.length, retired: await retireUnlisted(store, lost, source.url) }
}

/** The sources that list a listing, as its detail shows them (oldest first). */
export async function listingProvenance (store: CatalogStore, serviceId: string): Promise<Provenance[]> {
  return (await listingsProvenance(store, [serviceId])).get(serviceId) ?? []
}

/** listingProvenance of many listings at once (the export's pages); a listing no source lists is absent. */
export async function listingsProvenance (store: CatalogStore, serviceIds: readonly string[]): Promise<Map<string, Provenance[]>> {
  const entries = await store.provenanceOf(serviceIds)
  const shown = new Map<string, Provenance[]>()
  if (entries.size === 0) return shown
  const sources = new Map((await store.listSources()).map((source) => [source.id, source]))
  for (const [serviceId, listed] of entries) {
    shown.set(serviceId, listed.flatMap((entry) => {
      const source = sources.get(entry.sourceId)
      return source === undefined ? [] : [toProvenance(entry, source)]
    }))
  }
  return shown
}
