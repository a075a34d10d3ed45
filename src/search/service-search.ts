/** A search whose hits carry their services, read from the authoritative store, in rank order. */
import { toService, type Service, type ServiceRecord } from '../domain/service.js'
import type { CatalogStore } from '../store/catalog-store.js'
import type { SearchEngine, SearchHit, SearchQuery } from './search-engine.js'

export interface ServiceHit extends SearchHit {
  service: Service
}

export interface ServiceRecordHit extends SearchHit {
  record: ServiceRecord
}

/** Hits with their stored records (a hit whose service was deleted meanwhile is dropped). */
export async function searchServiceRecords (engine: SearchEngine, store: CatalogStore, query: SearchQuery): Promise<{ total: number, hits: ServiceRecordHit[] }> {
  if (query.words.length === 0) return { total: 0, hits: [] }
  const result = await engine.search(query)
  const records = new Map((await store.getServices(result.hits.map((hit) => hit.id))).map((r) => [r.id, r]))
  const hits = result.hits.flatMap((hit) => {
    const record = records.get(hit.id)
    return record === undefined ? [] : [{ ...hit, record }]
  })
  return { total: result.total, hits }
}

export async function searchServices (engine: SearchEngine, store: CatalogStore, query: SearchQuery): Promise<{ total: number, hits: ServiceHit[] }> {
  const { total, hits } = await searchServiceRecords(engine, store, query)
  return { total, hits: hits.map(({ record, ...hit }) => ({ ...hit, service: toService(record) })) }
}
