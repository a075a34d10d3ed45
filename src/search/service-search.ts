/** A search whose hits carry their services, read from the authoritative store, in rank order. */
import { toService, type Service } from '../domain/service.js'
import type { CatalogStore } from '../store/catalog-store.js'
import type { SearchEngine, SearchHit, SearchQuery } from './search-engine.js'

export interface ServiceHit extends SearchHit {
  service: Service
}

export async function searchServices (engine: SearchEngine, store: CatalogStore, query: SearchQuery): Promise<{ total: number, hits: ServiceHit[] }> {
  if (query.words.length === 0) return { total: 0, hits: [] }
  const result = await engine.search(query)
  const records = new Map((await store.getServices(result.hits.map((hit) => hit.id))).map((r) => [r.id, r]))
  const hits = result.hits.flatMap((hit) => {
    const record = records.get(hit.id)
    return record === undefined ? [] : [{ ...hit, service: toService(record) }]
  })
  return { total: result.total, hits }
}
