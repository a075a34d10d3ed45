/**
 * The CatalogStore port: the authoritative record of services, claims, API keys (hashes),
 * probes, leases, payments, sources and origins' ownership proofs, and the change feed the indexer mirrors into a SearchEngine,
 * in one section (interface) per kind of record. Everything crosses
 * it as typed domain objects (src/domain/); an adapter translates filters, sorts and pages
 * into its own query language and keeps that language to itself.
 *
 * What every adapter promises (test/contract/catalog-store.contract.ts checks it):
 * - Durability: a write that resolved survives a crash of the process or the server.
 * - Atomicity: each method is all or nothing; a failed call changes nothing.
 * - The change feed. Every write that changes what search or export shows gets a new
 *   sequence number, stamped on the service (or on its tombstone when deleted), in the same
 *   atomic write. Sequence numbers are:
 *   - monotonic: a later write gets a higher number, never a reused one;
 *   - commit-ordered: once a reader sees number n, every write numbered below n is
 *     visible too (a write is never "filled in" below a number already read); the
 *     contract checks it with two writer processes sharing one store;
 *   - not necessarily dense: numbers may be skipped (an updated service leaves its old
 *     number unused; a counter may skip after an aborted write). Consumers compare numbers,
 *     never count them: `latestSeq() - checkpoint` is a distance, an upper bound on the
 *     changes still to apply, not their count.
 *   Numbers are positive integers; 0 means "before the first change" (a store never
 *   written to has latestSeq() 0).
 */
import type { OriginClaim, ServiceTransfer } from '../domain/claims.js'
import type { HttpMethod } from '../domain/http-method.js'
import type { LifecyclePolicy } from '../domain/lifecycle.js'
import type { CategoryInferrer } from '../domain/listing-text.js'
import type { ProbeOutcome, ProbeTarget } from '../domain/probe.js'
import type { FirstProbeTime } from '../domain/probe-schedule.js'

/** The source new listings are inserted under (insertServices), and when it first saw them. */
export interface NewProvenance {
  sourceId: string
  at: string
}
import type { ServiceRecord } from '../domain/service.js'
import type { CatalogFilter, Page, ServiceSort } from '../domain/catalog-query.js'
import type { ProvenanceEntry, SourceRecord, SyncReport } from '../domain/sources.js'
import type { OriginProof } from '../domain/ownership-proof.js'
import type { ChainScanCommit, ChainScanState, PaymentFilter, PaymentPage, PaymentSummary, ServiceUsage } from '../domain/payment.js'

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

/** countFacets' answer: value → services, per field (the search engine's facet names). */
export interface CatalogFacets {
  category: Record<string, number>
  status: Record<string, number>
  network: Record<string, number>
}

export interface ServicePage {
  items: ServiceRecord[]
  total: number
}

/**
 * A page of services as the API sends it: a JSON array of each one's toServiceJson, UTF-8,
 * owned by the caller. On the port because the bytes are what GET /api/services sends, and
 * a store may produce them cheaper than records plus serialization: the SQLite store keeps
 * each service's JSON and joins it; MongoDB builds it from the documents it reads.
 */
export interface ServiceJsonPage {
  json: Uint8Array<ArrayBuffer>
  total: number
}

/**
 * A service as a search hit shows it: its toServiceJson, and what the hit adds beside the
 * service. On the port for the reason of ServiceJsonPage: search answers send these bytes,
 * which the SQLite store keeps per row.
 */
export interface ServiceJsonItem {
  id: string
  /**
   * toServiceJson, UTF-8: an answer joins bytes. Encoding a whole answer as one string took
   * ~30 µs of the API thread (Japanese text makes the string two bytes a character).
   */
  json: Uint8Array
  uptimeScore: number | null
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
  /** Sequence number of this service's newest change (see the feed's guarantees above). */
  seq: number
  id: string
  service: ServiceRecord | null
}

export interface ProbePage {
  /** Newest first. */
  items: ProbeOutcome[]
  total: number
}

/** A service the prober should check, with what the check needs. */
export interface ProbeCandidate extends ProbeTarget {
  id: string
}

/** Services: the listings themselves, written as changes of the feed, and read back as records, pages and counts. */
export interface ServiceStore {
  /**
   * Stores a new service as a new change. Throws DuplicateEndpointError when another service
   * holds its identity, `resource` with `method` (src/domain/service.ts): unique across the
   * store, enforced by the adapter atomically (a unique index, not a read-then-write). The
   * endpoint itself is not unique (GET and POST of one URL are two listings). Any other
   * refusal (an id already stored, say) is not a DuplicateEndpointError.
   * Every write of a listing here (insert, update, displacement) obeys its origin's proven
   * claim (applyOriginClaim, src/domain/claims.ts), read in the write's own transaction so that
   * a proveClaim commits wholly before or after it: OriginClaimedError, storing nothing, when
   * another owner proved control of the endpoint's origin; otherwise `claimed` is stored as
   * that rule sets it, whatever the record said.
   * A new service is due for a probe at once, or at the time `firstProbeAt` gives it (null: at
   * once; src/domain/probe-schedule.ts), written with it.
   */
  insertService (record: ServiceRecord, firstProbeAt?: FirstProbeTime): Promise<void>
  /**
   * Stores many services atomically (seeding, bulk import, source passes, benchmarks): all or nothing, a
   * DuplicateEndpointError or OriginClaimedError stores none. An id that was deleted before comes back live.
   * Each is first due for a probe as insertService says. With `provenance`, each also carries
   * that source (first seen `at`) in the same change, as addProvenance would add it, when the
   * source is stored: a source pass's new listing is one change, not two.
   */
  insertServices (records: readonly ServiceRecord[], firstProbeAt?: FirstProbeTime, provenance?: NewProvenance): Promise<void>
  /**
   * Replaces a stored service (matched by id) with `record`, as a new change; false when no
   * service has that id. Throws DuplicateEndpointError when the new (resource, method) is another's.
   */
  updateService (record: ServiceRecord): Promise<boolean>
  /**
   * Removes a service and its probes, leaving a tombstone (`service: null`) in the change
   * feed with a sequence number above every earlier change (also when the service was the
   * newest change); false when no service has that id.
   */
  deleteService (id: string): Promise<boolean>
  /**
   * Atomically removes `holder` (leaving a tombstone and a displacement record) and stores
   * `record` in its place. False, changing nothing, when the holder is gone or was changed
   * since it was read (its updatedAt differs): the caller's decision is then stale.
   */
  displaceService (holder: ServiceRecord, record: ServiceRecord, displacement: Displacement): Promise<boolean>
  /** Why a service was displaced, when it was (kept after the service is gone); null otherwise. */
  getDisplacement (id: string): Promise<Displacement | null>
  /** The service with this id, exactly as last written; null when there is none. */
  getService (id: string): Promise<ServiceRecord | null>
  /** The service whose identity is this (canonical) resource and method, if any. */
  findServiceByResource (resource: string, method: HttpMethod): Promise<ServiceRecord | null>
  /**
   * The listings of an origin (canonical endpoint starting with `origin/`), in id order, at most
   * `limit` (origin import: what a re-import may update or retire). Served by an index on the endpoint.
   */
  servicesOnOrigin (origin: string, limit: number): Promise<ServiceRecord[]>
  /** The services with these ids that exist, in the order of `ids` (search hits keep their rank); unknown ids are skipped. */
  getServices (ids: readonly string[]): Promise<ServiceRecord[]>
  /** getServices' services as search hits show them (toServiceJson and uptime), in the order of `ids`; unknown ids are skipped. */
  getServiceJson (ids: readonly string[]): Promise<ServiceJsonItem[]>
  /**
   * Filtered, sorted page and the exact number of matches. Ties are broken by id so paging is
   * stable; an offset past the end is an empty page. Every filter × sort combination is
   * served without sorting every match (an index per combination, or equivalent).
   */
  listServices (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServicePage>
  /** listServices' page as the bytes GET /api/services sends (a store may keep each service's toServiceJson rather than make it per read). */
  listServiceJson (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServiceJsonPage>
  /**
   * Every matching service in id order, read in batches of `batchSize` that each resume after
   * the last id seen (not by offset), so a consumer holds one batch at a time (the export
   * streams 100k services in constant memory).
   * Batches are separate reads: a write during the walk may or may not be seen.
   */
  streamServices (filter: CatalogFilter, batchSize?: number): AsyncIterable<ServiceRecord>
  /** Exact number of stored services. */
  countServices (): Promise<number>
  /** Exact number of stored services per category id (categories without services absent). */
  countByCategory (): Promise<Map<string, number>>
  /**
   * Exact number of services matching `filter` per category, per status and per network (a
   * service counts once under each of its supportedChains); values without services absent.
   * The search page's facets when it lists the catalog without search words.
   */
  countFacets (filter: CatalogFilter): Promise<CatalogFacets>
}

/** The change feed the indexer and the response cache follow (the guarantees above). */
export interface ChangeFeed {
  /**
   * At most `limit` changes with a sequence number above `afterSeq`, in increasing sequence
   * order: each changed service once, as it is now (its newest sequence number), or a
   * tombstone (`service: null`) when it is deleted now. `afterSeq` is any number a consumer
   * got from this feed (or 0): a checkpoint. Walking the feed by passing the last `seq` of
   * each answer as the next `afterSeq` sees every service's latest state; a change
   * committing during the walk appears at or after the current position, never before it.
   * Only the latest state of each service is kept, so a consumer that applies each change
   * as an upsert or a removal converges on the store.
   */
  changesSince (afterSeq: number, limit: number): Promise<ServiceChange[]>
  /**
   * The highest sequence number handed out so far (0 for a store never written to): the
   * position a consumer must reach to have seen every committed change.
   */
  latestSeq (): Promise<number>
}

/** Claims: proofs of control of an origin (src/domain/claims.ts), and the transfers they make. */
export interface ClaimStore {
  /**
   * Claims (src/domain/claims.ts). Stores `claim` when its owner has none for its origin and
   * returns what is stored (the earlier token when there was one: asking again changes nothing).
   */
  issueClaim (claim: OriginClaim): Promise<OriginClaim>
  /** The claim of this owner for this origin, if any. */
  getClaim (origin: string, ownerId: string): Promise<OriginClaim | null>
  /** The claim of the owner who last proved control of this origin, if any. */
  provenClaim (origin: string): Promise<OriginClaim | null>
  /**
   * Atomically: marks the owner's claim of the origin proven at `at` (and no other owner's),
   * and moves every listing of the origin (originOf its endpoint is `origin`) to
   * `ownerId` with `claimed` true, each as a new change; a transfer with `reason` is kept for
   * each listing that had another owner. Returns those listings as they were before. False
   * (null) when the owner has no claim of the origin.
   */
  proveClaim (origin: string, ownerId: string, at: string, reason: string): Promise<ServiceRecord[] | null>
  /** The newest transfer of a service to an origin's proven owner, if any. */
  getTransfer (serviceId: string): Promise<ServiceTransfer | null>
}

/** API keys: their hashes, never the keys. */
export interface ApiKeyStore {
  /** Stores a key record (only its hash: the store never sees the key itself). */
  insertApiKey (key: ApiKeyRecord): Promise<void>
  /** Every key, revoked ones included, oldest first. */
  listApiKeys (): Promise<ApiKeyRecord[]>
  /** Marks a key revoked; false when no active key has that id. The next lookup already refuses it. */
  revokeApiKey (id: string, at: string): Promise<boolean>
  /** The unrevoked key with this hash, if any (the auth plugin's lookup per write request). */
  findActiveApiKeyByHash (hash: string): Promise<ApiKeyRecord | null>
}

/** Probes: what the prober measured, and when each service is due again. */
export interface ProbeStore {
  /**
   * Stores a probe of a service and, atomically with it, the service's new monitoring state:
   * applyProbe (src/domain/lifecycle.ts) of the service as stored, the probe, its newest
   * probes (the new one included) and `policy`. Keeps the newest PROBE_HISTORY_LIMIT probes
   * per service. The service gets a new change-feed seq only when changesListing says the
   * update changes what search and export show, not on every probe. `nextProbeAt` (ISO) is
   * when the scheduler should probe it again. A valid 402 answer replaces the prefilled text
   * (refreshedText, src/domain/prefill.ts), and with `inferCategory` an inferred category
   * follows that text. Returns the service as stored now; null (nothing stored) when no
   * service has that id.
   */
  recordProbe (serviceId: string, outcome: ProbeOutcome, policy: LifecyclePolicy, nextProbeAt: string | null, inferCategory?: CategoryInferrer): Promise<ServiceRecord | null>
  /** A service's stored probes, newest first. */
  listProbes (serviceId: string, page: Page): Promise<ProbePage>
  /** A service's newest probe; null when it was never probed. */
  lastProbe (serviceId: string): Promise<ProbeOutcome | null>
  /**
   * Services due for a probe (never probed since registration or asked for, or their
   * next or first probe time has come), soonest first. Seeded services (no owner, and no source lists
   * them) only when `includeSeeded`; a listing a source lists is probed like a registered one.
   */
  dueForProbe (now: string, limit: number, includeSeeded: boolean): Promise<ProbeCandidate[]>
  /** Makes a service due for a probe now (after a registration or an update); false when no service has that id. */
  markProbeDue (serviceId: string): Promise<boolean>
}

/** Leases: one holder at a time of a named job across processes (the prober, the chain watcher). */
export interface LeaseStore {
  /**
   * Takes or renews the named lease for `holder` until `now + ttlMs` (epoch ms); false while
   * another holder's lease has not expired. Atomic across processes: of two holders racing
   * for a free lease exactly one gets it. One prober per store works this way.
   */
  acquireLease (name: string, holder: string, ttlMs: number, now: number): Promise<boolean>
  /** Gives a lease up (on shutdown) so another holder need not wait for it to expire. */
  releaseLease (name: string, holder: string): Promise<void>
}

/** Payments (src/domain/payment.ts), written by the one chain watcher per store (lease `chain-watcher`), and the usage figures computed from them. */
export interface PaymentStore {
  /** The watcher's state for a network; null before its first scan. */
  getChainScanState (network: string): Promise<ChainScanState | null>
  /**
   * Stores one scanned range atomically: its payments (idempotent on network, txHash,
   * logIndex), the new checkpoint (kept newest first, at most CHAIN_CHECKPOINT_HISTORY) and
   * the payTos' scanned-through block. Returns how many payments were new.
   */
  commitChainScan (network: string, commit: ChainScanCommit): Promise<number>
  /**
   * Undoes everything scanned above `toBlock` on a network (a reorg dropped those blocks):
   * deletes its payments and checkpoints above it and lowers every payTo's scanned-through
   * block to at most `toBlock`, atomically. Returns the payTos whose payments were deleted.
   */
  rewindChain (network: string, toBlock: number): Promise<string[]>
  /** The payments a filter matches, newest first (block number, then log index, descending). */
  listPayments (filter: PaymentFilter, page: Page): Promise<PaymentPage>
  /** Count, total, distinct payers and newest time of the payments a filter matches, computed by the store. */
  summarizePayments (filter: PaymentFilter): Promise<PaymentSummary>
  /** Distinct payTos (payToKey) of the services whose x402Config.network is `network`. */
  payTosOn (network: string): Promise<string[]>
  /** The services on `network` whose payTo has this payToKey, oldest first (attribution of a shared payTo). */
  servicesByPayTo (network: string, payTo: string): Promise<ServiceRecord[]>
  /**
   * Stores a service's usage figures and, atomically with them, its trust score as the
   * domain computes it from them; a new change-feed seq only when that changes what search
   * and export show. Returns the service as stored now; null when no service has that id.
   */
  recordUsage (serviceId: string, usage: ServiceUsage): Promise<ServiceRecord | null>
}

/**
 * Sources (src/domain/sources.ts): the lists the catalog mirrors, and which listings each one
 * lists (provenance). Provenance is part of what a listing shows (its detail, the export): a
 * listing that gains or loses a source gets a new change, and one whose sources stay as they
 * were gets none.
 */
export interface SourceStore {
  /** Stores a new source; DuplicateSourceError when one of the same kind and URL is stored. */
  insertSource (source: SourceRecord): Promise<void>
  /** Every source, oldest first. */
  listSources (): Promise<SourceRecord[]>
  getSource (id: string): Promise<SourceRecord | null>
  /**
   * Keeps a pass's report as the source's lastSync; with `completeAt` (the start of a complete
   * pass) also its lastCompleteAt. False when no source has that id.
   */
  recordSourceSync (id: string, report: SyncReport, completeAt: string | null): Promise<boolean>
  /**
   * Removes a source and every provenance entry it had, each listing losing one getting a new
   * change; returns those listings' ids, or null when no source has that id.
   */
  deleteSource (id: string): Promise<string[] | null>
  /**
   * Adds the source to the provenance of these listings (first seen `at`) and gives each a new
   * change; listings that already carry it, or that do not exist, are left as they are.
   * Returns how many gained it.
   */
  addProvenance (sourceId: string, serviceIds: readonly string[], at: string): Promise<number>
  /** Removes the source from these listings' provenance, each that had it getting a new change. */
  removeProvenance (sourceId: string, serviceIds: readonly string[]): Promise<void>
  /** Ids of the listings whose provenance holds this source, in id order. */
  servicesOfSource (sourceId: string): Promise<string[]>
  /** Each listing's provenance entries, oldest first; listings without any are absent. */
  provenanceOf (serviceIds: readonly string[]): Promise<Map<string, ProvenanceEntry[]>>
}

/**
 * Ownership proofs (src/domain/ownership-proof.ts): which payTo wallets proved an origin, as the
 * catalog last verified them in the origin's documents. A proof is shown on a listing's detail,
 * so a listing of the origin gets a new change when the origin's set of (address, document) changes.
 */
export interface OriginProofStore {
  /**
   * Replaces the origin's proofs with `proofs` (one per address; an empty list clears them),
   * atomically. A proof of the same address and document as one stored keeps its stored
   * checkedAt (when it was first found valid). When the set of (address, document) changed,
   * every listing on the origin gets a new change.
   */
  recordOriginProofs (origin: string, proofs: readonly OriginProof[]): Promise<void>
  /** Each origin's proofs, by address; origins without any are absent. */
  originProofs (origins: readonly string[]): Promise<Map<string, OriginProof[]>>
}

/** The whole port, section by section; every adapter implements all of it. */
export interface CatalogStore extends ServiceStore, ChangeFeed, ClaimStore, ApiKeyStore, ProbeStore, LeaseStore, PaymentStore, SourceStore, OriginProofStore {
  /** Throws StoreUnavailableError when the store cannot serve requests (/health asks). */
  ping (): Promise<void>
  /** Releases connections or file handles; the store is unusable afterwards. */
  close (): Promise<void>
}
