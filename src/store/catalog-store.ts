/**
 * The CatalogStore port: the authoritative service documents, API keys and the change
 * feed. Filters, sorts and pages are typed objects; only adapters turn them into SQL or
 * MongoDB queries.
 */
import type { ServiceRecord } from '../domain/service.js'
import type { ServiceStatus } from '../domain/trust.js'

export interface ServiceFilter {
  category?: string
  /** CAIP-2 id; matches services listing it in supportedChains. */
  chain?: string
  status?: ServiceStatus
  /** Inclusive upper bound on the price, in atomic units. */
  maxPriceAtomic?: number
}

/** A listing filter the store (not the search engine) understands: also by payment address. */
export interface CatalogFilter extends ServiceFilter {
  /** Registered payment address; EVM addresses compare case-insensitively, others exactly. */
  payTo?: string
}

/** Why a listing was removed in favour of another registration of its endpoint. */
export interface Displacement {
  /** Id of the removed service. */
  id: string
  /** Id of the service that took the endpoint over. */
  displacedBy: string
  endpoint: string
  /** Owner of the removed service (who needs to know why). */
  ownerId: string | null
  /** Human reason, e.g. which payTo the endpoint's live 402 answer named. */
  reason: string
  /** ISO time. */
  at: string
}

export const SORT_FIELDS = ['price', 'trustScore', 'name', 'createdAt'] as const
export type SortField = typeof SORT_FIELDS[number]
export type SortOrder = 'asc' | 'desc'

export interface ServiceSort {
  field: SortField
  order: SortOrder
}

export interface Page {
  limit: number
  offset: number
}

export interface ServicePage {
  items: ServiceRecord[]
  total: number
}

export interface ApiKeyRecord {
  id: string
  name: string
  /** sha256 of the key, hex. The key itself is never stored. */
  hash: string
  createdAt: string
  revokedAt: string | null
}

/** One entry of the change feed: the service as of sequence number `seq`, or null when it was deleted then. */
export interface ServiceChange {
  seq: number
  id: string
  service: ServiceRecord | null
}

export interface CatalogStore {
  /** Stores a new service; throws DuplicateEndpointError when its endpoint is taken. */
  insertService (record: ServiceRecord): Promise<void>
  /** Stores many services in one transaction (seeding, benchmarks); all or nothing. */
  insertServices (records: readonly ServiceRecord[]): Promise<void>
  /**
   * Replaces a stored service (matched by id) with `record`, as a new change; false when no
   * service has that id. Throws DuplicateEndpointError when the new endpoint is another's.
   */
  updateService (record: ServiceRecord): Promise<boolean>
  /** Removes a service, leaving a tombstone in the change feed; false when no service has that id. */
  deleteService (id: string): Promise<boolean>
  /**
   * Atomically removes `holder` (leaving a tombstone and a displacement record) and stores
   * `record` in its place. False, changing nothing, when the holder is gone or was changed
   * since it was read (its updatedAt differs): the caller's decision is then stale.
   */
  displaceService (holder: ServiceRecord, record: ServiceRecord, displacement: Displacement): Promise<boolean>
  /** Why a service was displaced, when it was; null otherwise. */
  getDisplacement (id: string): Promise<Displacement | null>
  getService (id: string): Promise<ServiceRecord | null>
  /** The service listed at this (canonical) endpoint, if any. */
  findServiceByEndpoint (endpoint: string): Promise<ServiceRecord | null>
  getServices (ids: readonly string[]): Promise<ServiceRecord[]>
  /** Filtered, sorted page; ties are broken by id so paging is stable. */
  listServices (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServicePage>
  /**
   * Every matching service in id order, read in keyset-paginated batches of `batchSize`, so a
   * consumer holds one batch at a time (the export streams 100k services in constant memory).
   * Batches are separate reads: a write during the walk may or may not be seen.
   */
  streamServices (filter: CatalogFilter, batchSize?: number): AsyncIterable<ServiceRecord>
  countServices (): Promise<number>
  countByCategory (): Promise<Map<string, number>>

  /**
   * Changes after `afterSeq`, oldest first: each changed service once, as it is now, or a
   * tombstone (`service: null`) for a deleted one.
   */
  changesSince (afterSeq: number, limit: number): Promise<ServiceChange[]>
  latestSeq (): Promise<number>

  insertApiKey (key: ApiKeyRecord): Promise<void>
  listApiKeys (): Promise<ApiKeyRecord[]>
  /** Marks a key revoked; false when no active key has that id. */
  revokeApiKey (id: string, at: string): Promise<boolean>
  findActiveApiKeyByHash (hash: string): Promise<ApiKeyRecord | null>

  /** Throws StoreUnavailableError when the store cannot serve requests. */
  ping (): Promise<void>
  close (): Promise<void>
}
