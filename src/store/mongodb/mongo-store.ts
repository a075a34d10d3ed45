/**
 * CatalogStore on MongoDB (official driver). Needs a replica set (a single node is enough):
 * every write is a transaction acknowledged by a majority and journaled, so when the API
 * answers 201 the service survives a crash of the server or of this process. The change
 * feed is a counter incremented in each write's transaction (connection.ts says why).
 *
 * One section of the port per file, as the port is laid out (src/store/catalog-store.ts):
 * services.ts, feed.ts, claims.ts, api-keys.ts, probes.ts, leases.ts, payments.ts, each
 * on the connection they share (connection.ts). This class opens the database, checks its
 * layout (schema.ts) and delegates.
 */
import { MongoClient } from 'mongodb'
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
import { MongoApiKeys } from './api-keys.js'
import { MongoClaims } from './claims.js'
import { MongoConnection, WRITE_CONCERN, unavailable } from './connection.js'
import { MongoFeed } from './feed.js'
import { MongoLeases } from './leases.js'
import { MongoPayments } from './payments.js'
import { MongoProbes } from './probes.js'
import { MongoStoreLayoutError, setUpLayout } from './schema.js'
import { MongoServices } from './services.js'

export interface MongoStoreOptions {
  /** How long an operation waits for a usable server before failing (start, /health). */
  serverSelectionTimeoutMS?: number
}

export class MongoCatalogStore implements CatalogStore {
  readonly #connection: MongoConnection
  readonly #services: MongoServices
  readonly #feed: MongoFeed
  readonly #claims: MongoClaims
  readonly #apiKeys: MongoApiKeys
  readonly #probes: MongoProbes
  readonly #leases: MongoLeases
  readonly #payments: MongoPayments

  private constructor (client: MongoClient, url: string) {
    const connection = new MongoConnection(client, url)
    this.#connection = connection
    this.#services = new MongoServices(connection)
    this.#feed = new MongoFeed(connection)
    this.#claims = new MongoClaims(connection)
    this.#apiKeys = new MongoApiKeys(connection)
    this.#probes = new MongoProbes(connection)
    this.#leases = new MongoLeases(connection)
    this.#payments = new MongoPayments(connection)
  }

  /**
   * Connects, checks the server can run transactions, and sets up the database's layout
   * (schema.ts, setUpLayout: a new database gets it, one of this layout gets its validators
   * and indexes again). Fails with StoreUnavailableError naming the server and MONGO_URL, or
   * with MongoStoreLayoutError, the database left as it was, when another build made it.
   */
  static async open (url: string, options: MongoStoreOptions = {}): Promise<MongoCatalogStore> {
    const timeout = options.serverSelectionTimeoutMS ?? 5000
    let client: MongoClient
    try {
      client = new MongoClient(url, {
        serverSelectionTimeoutMS: timeout,
        connectTimeoutMS: timeout,
        writeConcern: WRITE_CONCERN,
        // Reads see only majority-committed data: the indexer never mirrors a write a failover could roll back.
        readConcern: { level: 'majority' },
        appName: 'x402-catalog'
      })
      await client.connect()
    } catch (err) {
      throw unavailable(url, err)
    }
    try {
      const hello = await client.db('admin').command({ hello: 1 })
      if (hello.setName === undefined && hello.msg !== 'isdbgrid') {
        throw new StoreUnavailableError('it is a standalone server; the catalog needs a replica set for transactions (start mongod with --replSet and run rs.initiate())')
      }
      await setUpLayout(client.db())
    } catch (err) {
      await client.close().catch(() => {})
      // Already one line saying what to do (re-seed or re-import into an empty database).
      if (err instanceof MongoStoreLayoutError) throw err
      throw unavailable(url, err)
    }
    return new MongoCatalogStore(client, url)
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
      await this.#connection.db.command({ ping: 1 })
    } catch (err) {
      throw unavailable(this.#connection.url, err)
    }
  }

  async close (): Promise<void> {
    await this.#connection.client.close()
  }
}
