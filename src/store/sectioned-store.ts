/**
 * A CatalogStore made of its sections, one object each (an adapter keeps one file per
 * section: services.ts, feed.ts, claims.ts, api-keys.ts, probes.ts, leases.ts, payments.ts, sources.ts,
 * origin-proofs.ts).
 * The port's methods are answered by the section that declares them, here once for every
 * adapter; an adapter adds how it opens, pings and closes.
 */
import type { OriginClaim, ServiceTransfer } from '../domain/claims.js'
import type { CatalogFilter, Page, ServiceSort } from '../domain/catalog-query.js'
import type { HttpMethod } from '../domain/http-method.js'
import type { LifecyclePolicy } from '../domain/lifecycle.js'
import type { CategoryInferrer } from '../domain/listing-text.js'
import type { ChainScanCommit, ChainScanState, PaymentFilter, PaymentPage, PaymentSummary, ServiceUsage } from '../domain/payment.js'
import type { ProbeOutcome } from '../domain/probe.js'
import type { FirstProbeTime } from '../domain/probe-schedule.js'
import type { ServiceRecord } from '../domain/service.js'
import type {
  ApiKeyRecord, ApiKeyStore, CatalogFacets, CatalogStore, ChangeFeed, ClaimStore, Displacement, LeaseStore, NewProvenance, OriginProofStore, PaymentStore, ProbeCandidate,
  ProbePage, ProbeStore, ServiceChange, ServiceJsonItem, ServiceJsonPage, ServicePage, ServiceStore, SourceStore
} from './catalog-store.js'
import type { ProvenanceEntry, SourceRecord, SyncReport } from '../domain/sources.js'
import type { OriginProof } from '../domain/ownership-proof.js'

/** One object per section of the port. */
export interface StoreSections {
  services: ServiceStore
  feed: ChangeFeed
  claims: ClaimStore
  apiKeys: ApiKeyStore
  probes: ProbeStore
  leases: LeaseStore
  payments: PaymentStore
  sources: SourceStore
  originProofs: OriginProofStore
}

export abstract class SectionedStore implements CatalogStore {
  readonly #sections: StoreSections

  constructor (sections: StoreSections) {
    this.#sections = sections
  }

  // Services
  insertService (record: ServiceRecord, firstProbeAt?: FirstProbeTime): Promise<void> { return this.#sections.services.insertService(record, firstProbeAt) }
  insertServices (records: readonly ServiceRecord[], firstProbeAt?: FirstProbeTime, provenance?: NewProvenance): Promise<void> { return this.#sections.services.insertServices(records, firstProbeAt, provenance) }
  updateService (record: ServiceRecord): Promise<boolean> { return this.#sections.services.updateService(record) }
  deleteService (id: string): Promise<boolean> { return this.#sections.services.deleteService(id) }
  displaceService (holder: ServiceRecord, record: ServiceRecord, displacement: Displacement): Promise<boolean> { return this.#sections.services.displaceService(holder, record, displacement) }
  getDisplacement (id: string): Promise<Displacement | null> { return this.#sections.services.getDisplacement(id) }
  getService (id: string): Promise<ServiceRecord | null> { return this.#sections.services.getService(id) }
  findServiceByResource (resource: string, method: HttpMethod): Promise<ServiceRecord | null> { return this.#sections.services.findServiceByResource(resource, method) }
  servicesOnOrigin (origin: string, limit: number): Promise<ServiceRecord[]> { return this.#sections.services.servicesOnOrigin(origin, limit) }
  getServices (ids: readonly string[]): Promise<ServiceRecord[]> { return this.#sections.services.getServices(ids) }
  getServiceJson (ids: readonly string[]): Promise<ServiceJsonItem[]> { return this.#sections.services.getServiceJson(ids) }
  listServices (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServicePage> { return this.#sections.services.listServices(filter, sort, page) }
  listServiceJson (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServiceJsonPage> { return this.#sections.services.listServiceJson(filter, sort, page) }
  streamServices (filter: CatalogFilter, batchSize?: number): AsyncIterable<ServiceRecord> { return this.#sections.services.streamServices(filter, batchSize) }
  countServices (): Promise<number> { return this.#sections.services.countServices() }
  countByCategory (): Promise<Map<string, number>> { return this.#sections.services.countByCategory() }
  countFacets (filter: CatalogFilter): Promise<CatalogFacets> { return this.#sections.services.countFacets(filter) }

  // Change feed
  changesSince (afterSeq: number, limit: number): Promise<ServiceChange[]> { return this.#sections.feed.changesSince(afterSeq, limit) }
  latestSeq (): Promise<number> { return this.#sections.feed.latestSeq() }

  // Claims
  issueClaim (claim: OriginClaim): Promise<OriginClaim> { return this.#sections.claims.issueClaim(claim) }
  getClaim (origin: string, ownerId: string): Promise<OriginClaim | null> { return this.#sections.claims.getClaim(origin, ownerId) }
  provenClaim (origin: string): Promise<OriginClaim | null> { return this.#sections.claims.provenClaim(origin) }
  proveClaim (origin: string, ownerId: string, at: string, reason: string): Promise<ServiceRecord[] | null> { return this.#sections.claims.proveClaim(origin, ownerId, at, reason) }
  getTransfer (serviceId: string): Promise<ServiceTransfer | null> { return this.#sections.claims.getTransfer(serviceId) }

  // API keys (api-keys.ts)
  insertApiKey (key: ApiKeyRecord): Promise<void> { return this.#sections.apiKeys.insertApiKey(key) }
  listApiKeys (): Promise<ApiKeyRecord[]> { return this.#sections.apiKeys.listApiKeys() }
  revokeApiKey (id: string, at: string): Promise<boolean> { return this.#sections.apiKeys.revokeApiKey(id, at) }
  findActiveApiKeyByHash (hash: string): Promise<ApiKeyRecord | null> { return this.#sections.apiKeys.findActiveApiKeyByHash(hash) }

  // Probes
  recordProbe (serviceId: string, outcome: ProbeOutcome, policy: LifecyclePolicy, nextProbeAt: string | null, inferCategory?: CategoryInferrer): Promise<ServiceRecord | null> {
    return this.#sections.probes.recordProbe(serviceId, outcome, policy, nextProbeAt, inferCategory)
  }

  listProbes (serviceId: string, page: Page): Promise<ProbePage> { return this.#sections.probes.listProbes(serviceId, page) }
  lastProbe (serviceId: string): Promise<ProbeOutcome | null> { return this.#sections.probes.lastProbe(serviceId) }
  dueForProbe (now: string, limit: number, includeSeeded: boolean): Promise<ProbeCandidate[]> { return this.#sections.probes.dueForProbe(now, limit, includeSeeded) }
  markProbeDue (serviceId: string): Promise<boolean> { return this.#sections.probes.markProbeDue(serviceId) }

  // Leases
  acquireLease (name: string, holder: string, ttlMs: number, now: number): Promise<boolean> { return this.#sections.leases.acquireLease(name, holder, ttlMs, now) }
  releaseLease (name: string, holder: string): Promise<void> { return this.#sections.leases.releaseLease(name, holder) }

  // Payments
  getChainScanState (network: string): Promise<ChainScanState | null> { return this.#sections.payments.getChainScanState(network) }
  commitChainScan (network: string, commit: ChainScanCommit): Promise<number> { return this.#sections.payments.commitChainScan(network, commit) }
  rewindChain (network: string, toBlock: number): Promise<string[]> { return this.#sections.payments.rewindChain(network, toBlock) }
  listPayments (filter: PaymentFilter, page: Page): Promise<PaymentPage> { return this.#sections.payments.listPayments(filter, page) }
  summarizePayments (filter: PaymentFilter): Promise<PaymentSummary> { return this.#sections.payments.summarizePayments(filter) }
  payTosOn (network: string): Promise<string[]> { return this.#sections.payments.payTosOn(network) }
  servicesByPayTo (network: string, payTo: string): Promise<ServiceRecord[]> { return this.#sections.payments.servicesByPayTo(network, payTo) }
  recordUsage (serviceId: string, usage: ServiceUsage): Promise<ServiceRecord | null> { return this.#sections.payments.recordUsage(serviceId, usage) }

  // Sources
  insertSource (source: SourceRecord): Promise<void> { return this.#sections.sources.insertSource(source) }
  listSources (): Promise<SourceRecord[]> { return this.#sections.sources.listSources() }
  getSource (id: string): Promise<SourceRecord | null> { return this.#sections.sources.getSource(id) }
  recordSourceSync (id: string, report: SyncReport, completeAt: string | null): Promise<boolean> { return this.#sections.sources.recordSourceSync(id, report, completeAt) }
  deleteSource (id: string): Promise<string[] | null> { return this.#sections.sources.deleteSource(id) }
  addProvenance (sourceId: string, serviceIds: readonly string[], at: string): Promise<number> { return this.#sections.sources.addProvenance(sourceId, serviceIds, at) }
  removeProvenance (sourceId: string, serviceIds: readonly string[]): Promise<void> { return this.#sections.sources.removeProvenance(sourceId, serviceIds) }
  servicesOfSource (sourceId: string): Promise<string[]> { return this.#sections.sources.servicesOfSource(sourceId) }
  provenanceOf (serviceIds: readonly string[]): Promise<Map<string, ProvenanceEntry[]>> { return this.#sections.sources.provenanceOf(serviceIds) }

  // Ownership proofs
  recordOriginProofs (origin: string, proofs: readonly OriginProof[]): Promise<void> { return this.#sections.originProofs.recordOriginProofs(origin, proofs) }
  originProofs (origins: readonly string[]): Promise<Map<string, OriginProof[]>> { return this.#sections.originProofs.originProofs(origins) }

  abstract ping (): Promise<void>
  abstract close (): Promise<void>
}
