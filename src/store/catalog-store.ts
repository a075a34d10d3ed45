/**
 * The CatalogStore port: the authoritative service documents, API keys and the change
 * feed. Filters, sorts and pages are typed objects; only adapters turn them into SQL or
 * MongoDB queries.
 */
import type { MonitoringUpdate, ProbeSummary } from '../domain/lifecycle.js'
import type { ProbeOutcome, ProbeTarget } from '../domain/probe.js'
import type { ServiceRecord } from '../domain/service.js'
import type { CatalogFilter, Page, ServiceSort } from '../domain/catalog-query.js'

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

export interface ProbePage {
  /** Newest first. */
  items: ProbeOutcome[]
  total: number
}

/**
 * Decides a service's monitoring state after a probe, from the service as stored and its
 * recent probes (newest first, the new one included). Runs inside the store's
 * transaction, so it must not wait on anything.
 */
export type MonitoringDecision = (service: ServiceRecord, history: ProbeSummary[]) => MonitoringUpdate

/** A service the prober should check, with what the check needs. */
export interface ProbeCandidate extends ProbeTarget {
  id: string
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

  /**
   * Stores a probe of a service and applies `decide`'s monitoring state to it, atomically;
   * keeps the newest PROBE_HISTORY_LIMIT probes per service. The service gets a new
   * change-feed seq only when status, trustScore or paymentRequirements changed (what
   * search and export read), not on every probe. `nextProbeAt` (ISO) is when the
   * scheduler should probe it again. Null (nothing stored) when no service has that id.
   */
  recordProbe (serviceId: string, outcome: ProbeOutcome, decide: MonitoringDecision, nextProbeAt: string | null): Promise<ServiceRecord | null>
  /** A service's stored probes, newest first. */
  listProbes (serviceId: string, page: Page): Promise<ProbePage>
  lastProbe (serviceId: string): Promise<ProbeOutcome | null>
  /**
   * Services due for a probe (never probed since registration or asked for, or their
   * next probe time has come), soonest first. Seeded services (no owner) only when
   * `includeSeeded`.
   */
  dueForProbe (now: string, limit: number, includeSeeded: boolean): Promise<ProbeCandidate[]>
  /** Makes a service due for a probe now (after a registration or an update); false when no service has that id. */
  markProbeDue (serviceId: string): Promise<boolean>
  /**
   * Takes or renews the named lease for `holder` until `now + ttlMs` (epoch ms); false while
   * another holder's lease has not expired. One prober per store works this way.
   */
  acquireLease (name: string, holder: string, ttlMs: number, now: number): Promise<boolean>
  /** Gives a lease up (on shutdown) so another holder need not wait for it to expire. */
  releaseLease (name: string, holder: string): Promise<void>

  /** Throws StoreUnavailableError when the store cannot serve requests. */
  ping (): Promise<void>
  close (): Promise<void>
}
