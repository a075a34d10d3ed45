/** A search whose hits carry their services, read from the authoritative store, in rank order. */
import { toService, type Service, type ServiceRecord } from '../domain/service.js'
import type { CatalogStore } from '../store/catalog-store.js'
import { FACET_FIELDS, type FacetDistribution, type SearchEngine, type SearchHit, type SearchQuery } from './search-engine.js'

export interface ServiceHit extends SearchHit {
  service: Service
  /** The store's record, for callers that show more than the public service (uptime, …). */
  record: ServiceRecord
}

export interface ServiceSearchResult {
  total: number
  /** Whether total is exact or the engine's estimate (SearchResult.totalExact). */
  totalExact: boolean
  hits: ServiceHit[]
  facetDistribution?: FacetDistribution
}

export async function searchServices (engine: SearchEngine, store: CatalogStore, query: SearchQuery): Promise<ServiceSearchResult> {
  if (query.words.length === 0) {
    if (query.facets === undefined) return { total: 0, totalExact: true, hits: [] }
    return { total: 0, totalExact: true, hits: [], facetDistribution: Object.fromEntries(FACET_FIELDS.filter((f) => query.facets?.includes(f)).map((f) => [f, {}])) }
  }
  const result = await engine.search(query)
  const records = new Map((await store.getServices(result.hits.map((hit) => hit.id))).map((r) => [r.id, r]))
  const hits = result.hits.flatMap((hit) => {
    const record = records.get(hit.id)
    return record === undefined ? [] : [{ ...hit, service: toService(record), record }]
  })
  const { total, totalExact, facetDistribution } = result
  return facetDistribution === undefined ? { total, totalExact, hits } : { total, totalExact, hits, facetDistribution }
}
