/**
 * Embedded CatalogStore on SQLite (better-sqlite3, WAL). The file lives in DATA_DIR so
 * the API and a standalone indexer process can share it. synchronous=FULL: a 201 has
 * reached the disk, not just the OS cache.
 *
 * One section of the port per file, as the port is laid out (src/store/catalog-store.ts):
 * services.ts, feed.ts, claims.ts, api-keys.ts, probes.ts, leases.ts, payments.ts, each
 * on the connection they share (connection.ts). This class opens the file and delegates.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { StoreUnavailableError } from '../../errors.js'
import type { OriginClaim, ServiceTransfer } from '../../domain/claims.js'
import type { CatalogFilter, Page, ServiceSort } from '../../domain/catalog-query.js'
import type { HttpMethod } from '../../domain/http-method.js'
import type { LifecyclePolicy } from '../../domain/lifecycle.js'
import type { CategoryInferrer } from '../../domain/listing-text.js'
import type { ChainScanCommit, ChainScanState, PaymentFilter, PaymentPage, PaymentSummary, ServiceUsage } from '../../domain/payment.js'
import type { ProbeOutcome } from '../../domain/probe.js'
import type { ServiceRecord } from '../../domain/service.js'
import type {
  ApiKeyRecord, CatalogFacets, CatalogStore, Displacement, ProbeCandidate, ProbePage, ServiceChange, ServiceJsonItem, ServiceJsonPage, ServicePage
} from '../catalog-store.js'
import { SqliteApiKeys } from './api-keys.js'
import { SqliteClaims } from './claims.js'
import { SqliteConnection } from './connection.js'
import { SqliteFeed } from './feed.js'
import { SqliteLeases } from './leases.js'
import { ListThread } from './list-thread.js'
import { SqlitePayments } from './payments.js'
import { SqliteProbes } from './probes.js'
import { checkLayout, setUpLayout, StoreLayoutError } from './schema.js'
import { SqliteServices } from './services.js'

export const STORE_FILE = 'catalog.sqlite'

export interface SqliteStoreOptions {
  /** Answer lists on a thread of their own (src/store/sqlite/list-thread.ts), as the API does; else on the caller's. */
  listThread?: boolean
  /**
   * The file's layout is known to be set up (the list thread's connection, opened after the
   * API thread's store): skip checking and setting it up.
   */
  layoutReady?: boolean
  /** This connection's SQLite page cache, in KiB; SQLite's default (16 MB in better-sqlite3) when absent. */
  pageCacheKib?: number
}

/** Opens the store file in `dataDir`, creating its layout in a new one; throws StoreLayoutError for a file of another layout. */
function openFile (dataDir: string, options: SqliteStoreOptions): Database.Database {
  let db: Database.Database | undefined
  try {
    db = new Database(join(dataDir, STORE_FILE))
    db.pragma('busy_timeout = 5000')
    // Before the pragmas below: setting WAL writes to the file, and a refused file is left as it was.
    if (options.layoutReady !== true) checkLayout(db, dataDir, STORE_FILE)
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = FULL')
    db.pragma('foreign_keys = ON')
    if (options.pageCacheKib !== undefined) db.pragma(`cache_size = -${Math.floor(options.pageCacheKib)}`)
    if (options.layoutReady !== true) setUpLayout(db, dataDir, STORE_FILE)
    return db
  } catch (err) {
    db?.close()
    if (err instanceof StoreLayoutError) throw err
    throw new StoreUnavailableError(`cannot open the catalog store in ${dataDir}: ${(err as Error).message}`, { cause: err })
  }
}

export class SqliteCatalogStore implements CatalogStore {
  readonly #connection: SqliteConnection
  readonly #listThread: ListThread | undefined
  readonly #services: SqliteServices
  readonly #feed: SqliteFeed
  readonly #claims: SqliteClaims
  readonly #apiKeys: SqliteApiKeys
  readonly #probes: SqliteProbes
  readonly #leases: SqliteLeases
  readonly #payments: SqlitePayments

  constructor (dataDir: string, options: SqliteStoreOptions = {}) {
    mkdirSync(dataDir, { recursive: true })
    const connection = new SqliteConnection(openFile(dataDir, options))
    this.#connection = connection
    this.#listThread = options.listThread === true ? new ListThread(dataDir) : undefined
    this.#services = new SqliteServices(connection, this.#listThread)
    this.#feed = new SqliteFeed(connection)
    this.#claims = new SqliteClaims(connection, this.#services.rewrite)
    this.#apiKeys = new SqliteApiKeys(connection)
    this.#probes = new SqliteProbes(connection)
    this.#leases = new SqliteLeases(connection)
    this.#payments = new SqlitePayments(connection)
  }

  // Services (services.ts)
  insertService (record: ServiceRecord): Promise<void> { return this.#services.insertService(record) }
  insertServices (records: readonly ServiceRecord[]): Promise<void> { return this.#services.insertServices(records) }
  updateService (record: ServiceRecord): Promise<boolean> { return this.#services.updateService(record) }
  deleteService (id: string): Promise<boolean> { return this.#services.deleteService(id) }
  displaceService (holder: ServiceRecord, record: ServiceRecord, displacement: Displacement): Promise<boolean> { return this.#services.displaceService(holder, record, displacement) }
  getDisplacement (id: string): Promise<Displacement | null> { return this.#services.getDisplacement(id) }
  getService (id: string): Promise<ServiceRecord | null> { return this.#services.getService(id) }
  findServiceByResource (resource: string, method: HttpMethod): Promise<ServiceRecord | null> { return this.#services.findServiceByResource(resource, method) }
  servicesOnOrigin (origin: string, limit: number): Promise<ServiceRecord[]> { return this.#services.servicesOnOrigin(origin, limit) }
  getServices (ids: readonly string[]): Promise<ServiceRecord[]> { return this.#services.getServices(ids) }
  getServiceJson (ids: readonly string[]): Promise<ServiceJsonItem[]> { return this.#services.getServiceJson(ids) }
  listServices (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServicePage> { return this.#services.listServices(filter, sort, page) }
  listServiceJson (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServiceJsonPage> { return this.#services.listServiceJson(filter, sort, page) }
  streamServices (filter: CatalogFilter, batchSize?: number): AsyncIterable<ServiceRecord> { return this.#services.streamServices(filter, batchSize) }
  countServices (): Promise<number> { return this.#services.countServices() }
  countByCategory (): Promise<Map<string, number>> { return this.#services.countByCategory() }
  countFacets (filter: CatalogFilter): Promise<CatalogFacets> { return this.#services.countFacets(filter) }

  // Change feed (feed.ts)
  changesSince (afterSeq: number, limit: number): Promise<ServiceChange[]> { return this.#feed.changesSince(afterSeq, limit) }
  latestSeq (): Promise<number> { return this.#feed.latestSeq() }

  // Claims (claims.ts)
  issueClaim (claim: OriginClaim): Promise<OriginClaim> { return this.#claims.issueClaim(claim) }
  getClaim (origin: string, ownerId: string): Promise<OriginClaim | null> { return this.#claims.getClaim(origin, ownerId) }
  provenClaim (origin: string): Promise<OriginClaim | null> { return this.#claims.provenClaim(origin) }
  proveClaim (origin: string, ownerId: string, at: string, reason: string): Promise<ServiceRecord[] | null> { return this.#claims.proveClaim(origin, ownerId, at, reason) }
  getTransfer (serviceId: string): Promise<ServiceTransfer | null> { return this.#claims.getTransfer(serviceId) }

  // API keys (api-keys.ts)
  insertApiKey (key: ApiKeyRecord): Promise<void> { return this.#apiKeys.insertApiKey(key) }
  listApiKeys (): Promise<ApiKeyRecord[]> { return this.#apiKeys.listApiKeys() }
  revokeApiKey (id: string, at: string): Promise<boolean> { return this.#apiKeys.revokeApiKey(id, at) }
  findActiveApiKeyByHash (hash: string): Promise<ApiKeyRecord | null> { return this.#apiKeys.findActiveApiKeyByHash(hash) }

  // Probes (probes.ts)
  recordProbe (serviceId: string, outcome: ProbeOutcome, policy: LifecyclePolicy, nextProbeAt: string | null, inferCategory?: CategoryInferrer): Promise<ServiceRecord | null> {
    return this.#probes.recordProbe(serviceId, outcome, policy, nextProbeAt, inferCategory)
  }

  listProbes (serviceId: string, page: Page): Promise<ProbePage> { return this.#probes.listProbes(serviceId, page) }
  lastProbe (serviceId: string): Promise<ProbeOutcome | null> { return this.#probes.lastProbe(serviceId) }
  dueForProbe (now: string, limit: number, includeSeeded: boolean): Promise<ProbeCandidate[]> { return this.#probes.dueForProbe(now, limit, includeSeeded) }
  markProbeDue (serviceId: string): Promise<boolean> { return this.#probes.markProbeDue(serviceId) }

  // Leases (leases.ts)
  acquireLease (name: string, holder: string, ttlMs: number, now: number): Promise<boolean> { return this.#leases.acquireLease(name, holder, ttlMs, now) }
  releaseLease (name: string, holder: string): Promise<void> { return this.#leases.releaseLease(name, holder) }

  // Payments (payments.ts)
  getChainScanState (network: string): Promise<ChainScanState | null> { return this.#payments.getChainScanState(network) }
  commitChainScan (network: string, commit: ChainScanCommit): Promise<number> { return this.#payments.commitChainScan(network, commit) }
  rewindChain (network: string, toBlock: number): Promise<string[]> { return this.#payments.rewindChain(network, toBlock) }
  listPayments (filter: PaymentFilter, page: Page): Promise<PaymentPage> { return this.#payments.listPayments(filter, page) }
  summarizePayments (filter: PaymentFilter): Promise<PaymentSummary> { return this.#payments.summarizePayments(filter) }
  payTosOn (network: string): Promise<string[]> { return this.#payments.payTosOn(network) }
  servicesByPayTo (network: string, payTo: string): Promise<ServiceRecord[]> { return this.#payments.servicesByPayTo(network, payTo) }
  recordUsage (serviceId: string, usage: ServiceUsage): Promise<ServiceRecord | null> { return this.#payments.recordUsage(serviceId, usage) }

  async ping (): Promise<void> {
    try {
      this.#connection.statement('SELECT COUNT(*) FROM services WHERE rowid = 0').get()
    } catch (err) {
      throw new StoreUnavailableError(`catalog store unusable: ${(err as Error).message}`, { cause: err })
    }
  }

  async close (): Promise<void> {
    await this.#listThread?.close()
    if (this.#connection.db.open) this.#connection.db.close()
  }
}
