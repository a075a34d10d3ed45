/**
 * CatalogStore on MongoDB (official driver). Needs a replica set (a single node is enough):
 * every write is a transaction acknowledged by a majority and journaled, so when the API
 * answers 201 the service survives a crash of the server or of this process.
 *
 * The change feed is a counter, not a change stream. Each write increments
 * `counters.services` in the same transaction as the document it changes and stamps the
 * document (or, for a deletion, its tombstone) with the new value. Two transactions that
 * both increment the counter conflict; the second retries after the first committed, so
 * sequence order is commit order. `changesSince(seq)` reads only up to the counter it read
 * first, so a change committing during the read is never skipped. Why a counter rather than
 * resume tokens: docs/decisions.md, "The change feed and checkpoints".
 */
import { Long, MongoBulkWriteError, MongoClient, MongoServerError, type ClientSession, type Collection, type Db, type Document } from 'mongodb'
import { DuplicateEndpointError, StoreUnavailableError } from '../../errors.js'
import { PROBE_HISTORY_LIMIT, applyProbe, changesListing, type LifecyclePolicy, type ProbeSummary } from '../../domain/lifecycle.js'
import type { ProbeOutcome } from '../../domain/probe.js'
import { applyDiscovery, withDiscovery } from '../../domain/call-schema.js'
import { refreshedText } from '../../domain/prefill.js'
import type { CategoryInferrer } from '../../domain/listing-text.js'
import { nameSortKey } from '../../domain/sort-keys.js'
import type { HttpMethod } from '../../domain/http-method.js'
import { applyOriginClaim, type OriginClaim, type ServiceTransfer } from '../../domain/claims.js'
import { originOf } from '../../domain/endpoint-url.js'
import { toServiceJson, type ServiceRecord } from '../../domain/service.js'
import type { ApiKeyRecord, CatalogFacets, CatalogStore, Displacement, ProbeCandidate, ProbePage, ServiceChange, ServiceJsonItem, ServiceJsonPage, ServicePage } from '../catalog-store.js'
import type { CatalogFilter, Page, ServiceSort } from '../../domain/catalog-query.js'
import type { ChainScanCommit, ChainScanState, PaymentFilter, PaymentPage, PaymentSummary, ServiceUsage } from '../../domain/payment.js'
import { mergeFeed } from './feed.js'
import { jsonArrayBytes } from '../json-page.js'
import {
  fromApiKeyDocument, fromLong, fromOriginClaimDocument, fromProbeDocument, fromServiceDocument, fromTransferDocument, toApiKeyDocument, toDate, toLong,
  toDiscoveryDocument, toProbeDocument, toServiceDocument, type OriginClaimDocument, type TransferDocument, type ApiKeyDocument, type CounterDocument, type DisplacementDocument, type LeaseDocument, type ProbeDocument, type ServiceDocument, type TombstoneDocument
} from './mapping.js'
import { MongoPayments } from './payments.js'
import { serviceFilter, serviceSort } from './query.js'
import {
  API_KEY_INDEXES, CHECKPOINT_INDEXES, COLLECTIONS, EQUALITY_FILTER_KEYS, ORIGIN_CLAIM_INDEXES, TRANSFER_INDEXES, DROPPED_SERVICE_INDEXES, PAYMENT_INDEXES, PAY_TO_SCAN_INDEXES, PROBE_INDEXES,
  SERVICE_COUNTER_ID, SERVICE_MIGRATION, SERVICE_VALIDATOR, TOMBSTONE_INDEXES, VALIDATORS, serviceIndexes, serviceLayoutIsCurrent,
  transitionalServiceValidator
} from './schema.js'

/** Majority-acknowledged and journaled: an acknowledged write survives a failover and a crash. */
export const WRITE_CONCERN = { w: 'majority', journal: true } as const

export interface MongoStoreOptions {
  /** How long an operation waits for a usable server before failing (start, /health). */
  serverSelectionTimeoutMS?: number
}

/** The URL without credentials, for messages. */
export function redactMongoUrl (url: string): string {
  return url.replace(/^(mongodb(?:\+srv)?:\/\/)[^@/]*@/, '$1***@')
}

function unavailable (url: string, err: unknown): StoreUnavailableError {
  const reason = (err as Error).message.split('\n')[0] ?? String(err)
  return new StoreUnavailableError(`cannot use MongoDB at ${redactMongoUrl(url)} (MONGO_URL): ${reason}`, { cause: err })
}

const DUPLICATE_KEY = 11000
const NAMESPACE_EXISTS = 48
const INDEX_NOT_FOUND = 27

/**
 * A clash on the unique identity index (resource, method) as DuplicateEndpointError; any other error as it is.
 * A single-document write's error names the index it hit (the server's keyPattern and
 * keyValue). insertMany's bulk error does not: the driver keeps only each write error's
 * index, code and message. For it the failed record's endpoint is looked up (its
 * transaction has aborted by then): held by another service, stored or earlier in the
 * batch, it is what clashed; otherwise another unique key did (an id).
 */
export async function duplicateEndpointOf (err: unknown, records: readonly ServiceRecord[], heldByAnother: (record: ServiceRecord) => Promise<boolean>): Promise<unknown> {
  if (!(err instanceof MongoServerError) || err.code !== DUPLICATE_KEY) return err
  if (err.keyPattern !== undefined) {
    if (err.keyPattern.resource === undefined) return err
    return new DuplicateEndpointError(String(err.keyValue?.resource ?? records[0]?.endpoint), { cause: err })
  }
  if (!(err instanceof MongoBulkWriteError)) return err
  const index = [err.writeErrors].flat()[0]?.index ?? -1
  const record = records[index]
  if (record === undefined) return err
  const clash = records.slice(0, index).some((other) => other.resource === record.resource && other.method === record.method && other.id !== record.id) ||
    await heldByAnother(record)
  return clash ? new DuplicateEndpointError(record.endpoint, { cause: err }) : err
}

export class MongoCatalogStore implements CatalogStore {
  readonly #client: MongoClient
  readonly #url: string
  readonly #services: Collection<ServiceDocument>
  readonly #tombstones: Collection<TombstoneDocument>
  readonly #apiKeys: Collection<ApiKeyDocument>
  readonly #counters: Collection<CounterDocument>
  readonly #probes: Collection<ProbeDocument>
  readonly #leases: Collection<LeaseDocument>
  readonly #displacements: Collection<DisplacementDocument>
  readonly #claims: Collection<OriginClaimDocument>
  readonly #transfers: Collection<TransferDocument>
  readonly #payments: MongoPayments

  private constructor (client: MongoClient, url: string) {
    this.#client = client
    this.#url = url
    const db = client.db()
    this.#services = db.collection(COLLECTIONS.services)
    this.#tombstones = db.collection(COLLECTIONS.tombstones)
    this.#apiKeys = db.collection(COLLECTIONS.apiKeys)
    this.#counters = db.collection(COLLECTIONS.counters)
    this.#probes = db.collection(COLLECTIONS.probes)
    this.#leases = db.collection(COLLECTIONS.leases)
    this.#displacements = db.collection(COLLECTIONS.displacements)
    this.#claims = db.collection(COLLECTIONS.originClaims)
    this.#transfers = db.collection(COLLECTIONS.transfers)
    this.#payments = new MongoPayments(db, {
      transaction: async (work) => await this.#transaction(work),
      reserveSeq: async (session) => await this.#reserve(session, 1)
    })
  }

  /**
   * Connects, checks the server can run transactions, and applies validators and indexes
   * (idempotent). Fails with StoreUnavailableError naming the server and MONGO_URL.
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
      await ensureSchema(client.db())
    } catch (err) {
      await client.close().catch(() => {})
      throw unavailable(url, err)
    }
    return new MongoCatalogStore(client, url)
  }

  async #transaction<T> (work: (session: ClientSession) => Promise<T>): Promise<T> {
    const session = this.#client.startSession()
    try {
      return await session.withTransaction(work, { writeConcern: WRITE_CONCERN, readConcern: { level: 'snapshot' } })
    } finally {
      await session.endSession()
    }
  }

  async #duplicateEndpoint (err: unknown, records: readonly ServiceRecord[]): Promise<unknown> {
    return await duplicateEndpointOf(err, records, async (record) =>
      await this.#services.countDocuments({ resource: { $eq: record.resource }, method: { $eq: record.method }, _id: { $ne: record.id } }, { limit: 1 }) > 0)
  }

  /** Reserves `count` sequence numbers in the transaction; returns the first. */
  async #reserve (session: ClientSession, count: number): Promise<number> {
    const counter = await this.#counters.findOneAndUpdate(
      { _id: SERVICE_COUNTER_ID },
      { $inc: { seq: Long.fromNumber(count) } },
      { session, upsert: true, returnDocument: 'after' }
    )
    if (counter === null) throw new StoreUnavailableError('MongoDB did not return the change counter')
    return fromLong(counter.seq, 'seq') - count + 1
  }

  /**
   * `records` as their origins' proven claims let them be written (applyOriginClaim), read in
   * the write's transaction. Every listing write also increments the change counter, and so
   * does every proof (proveClaim), so a proof and a write that overlap conflict and one of them
   * retries after the other committed: a proof lands wholly before or after the write.
   */
  async #underOriginClaims (session: ClientSession, records: readonly ServiceRecord[]): Promise<ServiceRecord[]> {
    const origins = [...new Set(records.map((record) => originOf(record.endpoint)))]
    const docs = await this.#claims.find({ origin: { $in: origins }, provenAt: { $ne: null } }, { session, sort: { provenAt: 1 } }).toArray()
    // Newest proof last, so it is the one kept per origin.
    const proven = new Map(docs.map((doc) => [doc.origin, fromOriginClaimDocument(doc)]))
    return records.map((record) => applyOriginClaim(record, proven.get(originOf(record.endpoint)) ?? null))
  }

  async insertService (record: ServiceRecord): Promise<void> {
    await this.insertServices([record])
  }

  async insertServices (records: readonly ServiceRecord[]): Promise<void> {
    if (records.length === 0) return
    try {
      await this.#transaction(async (session) => {
        const stored = await this.#underOriginClaims(session, records)
        const first = await this.#reserve(session, records.length)
        await this.#services.insertMany(stored.map((record, i) => toServiceDocument(record, first + i)), { session, ordered: true })
        // A service registered again under a deleted id is live, not deleted.
        await this.#tombstones.deleteMany({ _id: { $in: records.map((r) => r.id) } }, { session })
      })
    } catch (err) {
      throw await this.#duplicateEndpoint(err, records)
    }
  }

  async updateService (record: ServiceRecord): Promise<boolean> {
    try {
      return await this.#transaction(async (session) => {
        if (await this.#services.countDocuments({ _id: { $eq: record.id } }, { session, limit: 1 }) === 0) return false
        const [stored] = await this.#underOriginClaims(session, [record]) as [ServiceRecord]
        const seq = await this.#reserve(session, 1)
        await this.#services.replaceOne({ _id: { $eq: record.id } }, toServiceDocument(stored, seq), { session })
        return true
      })
    } catch (err) {
      throw await this.#duplicateEndpoint(err, [record])
    }
  }

  /** Deletes a service and records a tombstone at a new sequence, in one transaction; false when no service has that id. */
  async deleteService (id: string): Promise<boolean> {
    return await this.#transaction(async (session) => await this.#deleteIn(session, id))
  }

  async #deleteIn (session: ClientSession, id: string): Promise<boolean> {
    const deleted = await this.#services.findOneAndDelete({ _id: { $eq: id } }, { session })
    if (deleted === null) return false
    await this.#probes.deleteMany({ serviceId: { $eq: id } }, { session })
    const seq = await this.#reserve(session, 1)
    await this.#tombstones.replaceOne({ _id: id }, { seq: toLong(seq, 'seq'), deletedAt: new Date() }, { session, upsert: true })
    return true
  }

  async displaceService (holder: ServiceRecord, record: ServiceRecord, displacement: Displacement): Promise<boolean> {
    try {
      return await this.#transaction(async (session) => {
        const current = await this.#services.findOne({ _id: { $eq: holder.id }, endpoint: { $eq: holder.endpoint } }, { session, projection: { updatedAt: 1 } })
        if (current === null || current.updatedAt.toISOString() !== holder.updatedAt) return false
        const [stored] = await this.#underOriginClaims(session, [record]) as [ServiceRecord]
        await this.#deleteIn(session, holder.id)
        const seq = await this.#reserve(session, 1)
        await this.#services.insertOne(toServiceDocument(stored, seq), { session })
        await this.#tombstones.deleteOne({ _id: { $eq: record.id } }, { session })
        await this.#displacements.replaceOne({ _id: displacement.id }, {
          displacedBy: displacement.displacedBy,
          endpoint: displacement.endpoint,
          ownerId: displacement.ownerId,
          reason: displacement.reason,
          at: new Date(displacement.at)
        }, { session, upsert: true })
        return true
      })
    } catch (err) {
      throw await this.#duplicateEndpoint(err, [record])
    }
  }

  async getDisplacement (id: string): Promise<Displacement | null> {
    const doc = await this.#displacements.findOne({ _id: { $eq: id } })
    if (doc === null) return null
    return { id: doc._id, displacedBy: doc.displacedBy, endpoint: doc.endpoint, ownerId: doc.ownerId, reason: doc.reason, at: doc.at.toISOString() }
  }

  async issueClaim (claim: OriginClaim): Promise<OriginClaim> {
    const _id = `${claim.ownerId} ${claim.origin}`
    await this.#claims.updateOne({ _id: { $eq: _id } }, {
      $setOnInsert: { origin: claim.origin, ownerId: claim.ownerId, token: claim.token, createdAt: toDate(claim.createdAt, 'createdAt'), provenAt: claim.provenAt === null ? null : toDate(claim.provenAt, 'provenAt') }
    }, { upsert: true, writeConcern: WRITE_CONCERN })
    return await this.getClaim(claim.origin, claim.ownerId) as OriginClaim
  }

  async getClaim (origin: string, ownerId: string): Promise<OriginClaim | null> {
    const doc = await this.#claims.findOne({ _id: { $eq: `${ownerId} ${origin}` } })
    return doc === null ? null : fromOriginClaimDocument(doc)
  }

  async provenClaim (origin: string): Promise<OriginClaim | null> {
    const doc = await this.#claims.findOne({ origin: { $eq: origin }, provenAt: { $ne: null } }, { sort: { provenAt: -1 } })
    return doc === null ? null : fromOriginClaimDocument(doc)
  }

  async proveClaim (origin: string, ownerId: string, at: string, reason: string): Promise<ServiceRecord[] | null> {
    const when = toDate(at, 'at')
    return await this.#transaction(async (session) => {
      const proven = await this.#claims.updateOne({ _id: { $eq: `${ownerId} ${origin}` } }, { $set: { provenAt: when } }, { session })
      if (proven.matchedCount === 0) return null
      // One proven owner per origin: the newest proof (a domain changes hands).
      await this.#claims.updateMany({ origin: { $eq: origin }, ownerId: { $ne: ownerId } }, { $set: { provenAt: null } }, { session })
      const docs = await this.#services.find({ origin: { $eq: origin }, $or: [{ ownerId: { $ne: ownerId } }, { claimed: { $ne: true } }] }, { session, sort: { _id: 1 } }).toArray()
      // At least one number, also with nothing to move: the counter write is what makes a
      // listing write of this origin running meanwhile conflict with the proof (#underOriginClaims).
      const first = await this.#reserve(session, Math.max(1, docs.length))
      const moved: ServiceRecord[] = []
      for (const [i, doc] of docs.entries()) {
        await this.#services.updateOne({ _id: { $eq: doc._id } }, { $set: { ownerId, claimed: true, updatedAt: when, seq: toLong(first + i, 'seq') } }, { session })
        if (doc.ownerId === ownerId) continue
        await this.#transfers.insertOne({ serviceId: doc._id, fromOwnerId: doc.ownerId, toOwnerId: ownerId, origin, reason, at: when }, { session })
        moved.push(fromServiceDocument(doc))
      }
      return moved
    })
  }

  async getTransfer (serviceId: string): Promise<ServiceTransfer | null> {
    const doc = await this.#transfers.findOne({ serviceId: { $eq: serviceId } }, { sort: { at: -1, _id: -1 } })
    return doc === null ? null : fromTransferDocument(doc)
  }

  async findServiceByResource (resource: string, method: HttpMethod): Promise<ServiceRecord | null> {
    const doc = await this.#services.findOne({ resource: { $eq: resource }, method: { $eq: method } })
    return doc === null ? null : fromServiceDocument(doc)
  }

  async * streamServices (filter: CatalogFilter, batchSize = 500): AsyncIterable<ServiceRecord> {
    const query = serviceFilter(filter)
    // Keyset on _id: each batch is one short query, never a cursor held open across the stream.
    let after: string | null = null
    for (;;) {
      const docs: ServiceDocument[] = await this.#services
        .find(after === null ? query : { $and: [query, { _id: { $gt: after } }] })
        .sort({ _id: 1 }).limit(batchSize).toArray()
      for (const doc of docs) yield fromServiceDocument(doc)
      if (docs.length < batchSize) return
      after = (docs[docs.length - 1] as ServiceDocument)._id
    }
  }

  async servicesOnOrigin (origin: string, limit: number): Promise<ServiceRecord[]> {
    // '0' follows '/' in code point order: the range is exactly the endpoints under `origin/`.
    const docs = await this.#services.find({ endpoint: { $gte: `${origin}/`, $lt: `${origin}0` } }).sort({ _id: 1 }).limit(limit).toArray()
    return docs.map(fromServiceDocument)
  }

  async recordProbe (serviceId: string, outcome: ProbeOutcome, policy: LifecyclePolicy, nextProbeAt: string | null, inferCategory?: CategoryInferrer): Promise<ServiceRecord | null> {
    return await this.#transaction(async (session) => {
      const doc = await this.#services.findOne({ _id: { $eq: serviceId } }, { session })
      if (doc === null) return null
      const newest = await this.#probes.findOne({ serviceId: { $eq: serviceId } }, { session, sort: { at: -1 }, projection: { at: 1 } })
      const at = newest === null ? 1 : fromLong(newest.at, 'at') + 1
      await this.#probes.insertOne(toProbeDocument(serviceId, at, outcome), { session })
      // Bounded per service: everything older than the newest PROBE_HISTORY_LIMIT goes.
      await this.#probes.deleteMany({ serviceId: { $eq: serviceId }, at: { $lte: toLong(Math.max(0, at - PROBE_HISTORY_LIMIT), 'at') } }, { session })
      const history = (await this.#probes.find({ serviceId: { $eq: serviceId } }, { session, sort: { at: -1 }, limit: PROBE_HISTORY_LIMIT }).toArray())
        .map((probe): ProbeSummary => ({ checkedAt: probe.checkedAt.toISOString(), answered402: probe.answered402, matched: probe.matched }))
      const before = fromServiceDocument(doc)
      const update = applyProbe(before, outcome, history, policy)
      const discovery = applyDiscovery(before, outcome.discovery)
      const discoveryDoc = discovery === null ? null : toDiscoveryDocument(discovery)
      // Fields a new declaration does not have are removed ($unset), not set to null: absent means none.
      const unset: Partial<Record<'callSchema' | 'bazaarExtension', ''>> = {}
      if (discoveryDoc !== null && discoveryDoc.callSchema === undefined) unset.callSchema = ''
      if (discoveryDoc !== null && discoveryDoc.bazaarExtension === undefined) unset.bazaarExtension = ''
      // A valid 402 answer keeps the prefilled text current (src/domain/prefill.ts).
      const text = outcome.answered402 ? refreshedText(before, outcome.text, inferCategory) : {}
      const textChanged = Object.keys(text).length > 0
      await this.#services.updateOne({ _id: { $eq: serviceId } }, {
        ...(Object.keys(unset).length === 0 ? {} : { $unset: unset }),
        $set: {
          ...(changesListing(before, update) || discovery !== null || textChanged ? { seq: toLong(await this.#reserve(session, 1), 'seq') } : {}),
          ...discoveryDoc,
          ...(text.name === undefined ? {} : { name: text.name, nameSort: nameSortKey(text.name) }),
          ...(text.description === undefined ? {} : { description: text.description }),
          ...(text.tags === undefined ? {} : { tags: text.tags }),
          ...(text.category === undefined ? {} : { category: text.category }),
          status: update.status,
          trustScore: update.trustScore,
          uptimeScore: update.uptimeScore,
          lastChecked: new Date(update.lastChecked),
          paymentRequirements: update.paymentRequirements,
          nextProbeAt: nextProbeAt === null ? null : new Date(nextProbeAt)
        }
      }, { session })
      const merged = { ...before, ...update, ...text }
      return discovery === null ? merged : withDiscovery(merged, discovery)
    })
  }

  async listProbes (serviceId: string, page: Page): Promise<ProbePage> {
    const [total, docs] = await Promise.all([
      this.#probes.countDocuments({ serviceId: { $eq: serviceId } }),
      this.#probes.find({ serviceId: { $eq: serviceId } }).sort({ at: -1 }).skip(page.offset).limit(page.limit).toArray()
    ])
    return { items: docs.map(fromProbeDocument), total }
  }

  async lastProbe (serviceId: string): Promise<ProbeOutcome | null> {
    const doc = await this.#probes.findOne({ serviceId: { $eq: serviceId } }, { sort: { at: -1 } })
    return doc === null ? null : fromProbeDocument(doc)
  }

  async dueForProbe (now: string, limit: number, includeSeeded: boolean): Promise<ProbeCandidate[]> {
    const docs = await this.#services.find({
      $or: [{ nextProbeAt: null }, { nextProbeAt: { $lte: new Date(now) } }],
      ...(includeSeeded ? {} : { ownerId: { $ne: null } })
    }, { projection: { _id: 1, endpoint: 1, method: 1, network: 1, paymentAddress: 1, priceAtomic: 1 } })
      .sort({ nextProbeAt: 1, _id: 1 }).limit(limit).toArray()
    return docs.map((doc) => ({
      id: doc._id,
      endpoint: doc.endpoint,
      method: doc.method,
      network: doc.network,
      paymentAddress: doc.paymentAddress,
      priceAtomic: fromLong(doc.priceAtomic, 'priceAtomic')
    }))
  }

  async markProbeDue (serviceId: string): Promise<boolean> {
    return (await this.#services.updateOne({ _id: { $eq: serviceId } }, { $set: { nextProbeAt: null } }, { writeConcern: WRITE_CONCERN })).matchedCount === 1
  }

  async acquireLease (name: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
    try {
      // Matches our own lease or an expired one; another holder's live lease matches nothing, and
      // the upsert then clashes on _id: not ours.
      await this.#leases.updateOne(
        { _id: name, $or: [{ holder }, { expiresAt: { $lte: toLong(now, 'now') } }] },
        { $set: { holder, expiresAt: toLong(now + ttlMs, 'expiresAt') } },
        { upsert: true, writeConcern: WRITE_CONCERN }
      )
      return true
    } catch (err) {
      if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false
      throw err
    }
  }

  async releaseLease (name: string, holder: string): Promise<void> {
    await this.#leases.deleteOne({ _id: name, holder }, { writeConcern: WRITE_CONCERN })
  }

  async getService (id: string): Promise<ServiceRecord | null> {
    const doc = await this.#services.findOne({ _id: { $eq: id } })
    return doc === null ? null : fromServiceDocument(doc)
  }

  async getServices (ids: readonly string[]): Promise<ServiceRecord[]> {
    if (ids.length === 0) return []
    const docs = await this.#services.find({ _id: { $in: [...ids] } }).toArray()
    const byId = new Map(docs.map((doc) => [doc._id, fromServiceDocument(doc)]))
    return ids.flatMap((id) => byId.get(id) ?? [])
  }

  async getServiceJson (ids: readonly string[]): Promise<ServiceJsonItem[]> {
    // Made from the documents, as listServiceJson's.
    return (await this.getServices(ids)).map((record) => ({ id: record.id, json: toServiceJson(record), uptimeScore: record.uptimeScore }))
  }

  async listServices (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServicePage> {
    const query = serviceFilter(filter)
    const [total, docs] = await Promise.all([
      this.#services.countDocuments(query),
      this.#services.find(query).sort(serviceSort(sort)).skip(page.offset).limit(page.limit).toArray()
    ])
    return { items: docs.map(fromServiceDocument), total }
  }

  // Built per read: documents hold records only (keeping the texts too is what the SQLite store does for speed).
  async listServiceJson (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServiceJsonPage> {
    const { items, total } = await this.listServices(filter, sort, page)
    return { json: jsonArrayBytes(items.map(toServiceJson)), total }
  }

  async countServices (): Promise<number> {
    return await this.#services.countDocuments({})
  }

  async countByCategory (): Promise<Map<string, number>> {
    const rows = await this.#services.aggregate<{ _id: string, n: number }>([{ $group: { _id: '$category', n: { $sum: 1 } } }]).toArray()
    return new Map(rows.map((row) => [row._id, row.n]))
  }

  async countFacets (filter: CatalogFilter): Promise<CatalogFacets> {
    const group = (field: string): Document[] => [{ $group: { _id: field, n: { $sum: 1 } } }]
    // One aggregation: the three counts see the same snapshot of the matching services.
    const [facets] = await this.#services.aggregate<Record<keyof CatalogFacets, Array<{ _id: string, n: number }>>>([
      { $match: serviceFilter(filter) },
      { $facet: { category: group(`$${EQUALITY_FILTER_KEYS.category}`), status: group(`$${EQUALITY_FILTER_KEYS.status}`), network: [{ $unwind: `$${EQUALITY_FILTER_KEYS.chain}` }, ...group(`$${EQUALITY_FILTER_KEYS.chain}`)] } }
    ]).toArray()
    const counts = (rows: Array<{ _id: string, n: number }> | undefined): Record<string, number> => Object.fromEntries((rows ?? []).map((row) => [row._id, row.n]))
    return { category: counts(facets?.category), status: counts(facets?.status), network: counts(facets?.network) }
  }

  /** Changes after `afterSeq`, oldest first; a deleted service is a tombstone (`service: null`). */
  async changesSince (afterSeq: number, limit: number): Promise<ServiceChange[]> {
    // Everything up to the counter read here has committed (sequence order is commit order).
    const upTo = await this.latestSeq()
    if (upTo <= afterSeq) return []
    const range = { seq: { $gt: toLong(afterSeq, 'afterSeq'), $lte: toLong(upTo, 'seq') } }
    const [services, tombstones] = await Promise.all([
      this.#services.find(range).sort({ seq: 1 }).limit(limit).toArray(),
      this.#tombstones.find(range).sort({ seq: 1 }).limit(limit).toArray()
    ])
    return mergeFeed(services, tombstones, limit)
  }

  async latestSeq (): Promise<number> {
    const counter = await this.#counters.findOne({ _id: SERVICE_COUNTER_ID })
    return counter === null ? 0 : fromLong(counter.seq, 'seq')
  }

  async insertApiKey (key: ApiKeyRecord): Promise<void> {
    await this.#apiKeys.insertOne(toApiKeyDocument(key))
  }

  async listApiKeys (): Promise<ApiKeyRecord[]> {
    return (await this.#apiKeys.find({}).sort({ createdAt: 1, _id: 1 }).toArray()).map(fromApiKeyDocument)
  }

  async revokeApiKey (id: string, at: string): Promise<boolean> {
    const result = await this.#apiKeys.updateOne({ _id: { $eq: id }, revokedAt: null }, { $set: { revokedAt: new Date(at) } })
    return result.modifiedCount === 1
  }

  async findActiveApiKeyByHash (hash: string): Promise<ApiKeyRecord | null> {
    const doc = await this.#apiKeys.findOne({ hash: { $eq: hash }, revokedAt: null })
    return doc === null ? null : fromApiKeyDocument(doc)
  }

  async getChainScanState (network: string): Promise<ChainScanState | null> {
    return await this.#payments.getChainScanState(network)
  }

  async commitChainScan (network: string, commit: ChainScanCommit): Promise<number> {
    return await this.#payments.commitChainScan(network, commit)
  }

  async rewindChain (network: string, toBlock: number): Promise<string[]> {
    return await this.#payments.rewindChain(network, toBlock)
  }

  async listPayments (filter: PaymentFilter, page: Page): Promise<PaymentPage> {
    return await this.#payments.listPayments(filter, page)
  }

  async summarizePayments (filter: PaymentFilter): Promise<PaymentSummary> {
    return await this.#payments.summarizePayments(filter)
  }

  async payTosOn (network: string): Promise<string[]> {
    return await this.#payments.payTosOn(network)
  }

  async servicesByPayTo (network: string, payTo: string): Promise<ServiceRecord[]> {
    return await this.#payments.servicesByPayTo(network, payTo)
  }

  async recordUsage (serviceId: string, usage: ServiceUsage): Promise<ServiceRecord | null> {
    return await this.#payments.recordUsage(serviceId, usage)
  }

  async ping (): Promise<void> {
    try {
      await this.#client.db().command({ ping: 1 })
    } catch (err) {
      throw unavailable(this.#url, err)
    }
  }

  async close (): Promise<void> {
    await this.#client.close()
  }
}

/** Sets a collection's validator (strict: every insert and update is checked). */
async function setValidator (db: Db, name: string, validator: Document): Promise<void> {
  await db.command({ collMod: name, validator, validationLevel: 'strict', validationAction: 'error' })
}

/**
 * Creates the collections with their validators (or updates the validators), migrates
 * services made by an earlier build, and creates the indexes.
 */
async function ensureSchema (db: Db): Promise<void> {
  for (const [name, validator] of Object.entries(VALIDATORS)) {
    try {
      await db.createCollection(name, { validator, validationLevel: 'strict', validationAction: 'error' })
    } catch (err) {
      if (!(err instanceof MongoServerError && err.code === NAMESPACE_EXISTS)) throw err
      if (name === COLLECTIONS.services) await migrateServices(db)
      else await setValidator(db, name, validator)
    }
  }
  const services = db.collection(COLLECTIONS.services)
  for (const name of DROPPED_SERVICE_INDEXES) {
    await services.dropIndex(name).catch((err: unknown) => {
      if (!(err instanceof MongoServerError && err.code === INDEX_NOT_FOUND)) throw err
    })
  }
  await services.createIndexes(serviceIndexes())
  await db.collection(COLLECTIONS.tombstones).createIndexes(TOMBSTONE_INDEXES)
  await db.collection(COLLECTIONS.apiKeys).createIndexes(API_KEY_INDEXES)
  await db.collection(COLLECTIONS.probes).createIndexes(PROBE_INDEXES)
  await db.collection(COLLECTIONS.originClaims).createIndexes(ORIGIN_CLAIM_INDEXES)
  await db.collection(COLLECTIONS.transfers).createIndexes(TRANSFER_INDEXES)
  await db.collection(COLLECTIONS.payments).createIndexes(PAYMENT_INDEXES)
  await db.collection(COLLECTIONS.chainCheckpoints).createIndexes(CHECKPOINT_INDEXES)
  await db.collection(COLLECTIONS.chainPayTos).createIndexes(PAY_TO_SCAN_INDEXES)
  await db.collection<CounterDocument>(COLLECTIONS.counters).updateOne(
    { _id: SERVICE_COUNTER_ID }, { $setOnInsert: { seq: Long.ZERO } }, { upsert: true })
}

/**
 * Brings an existing services collection to this build's layout (`usage` and `payToKey`
 * instead of `txCount` and `totalRevenue`; schema.ts, SERVICE_MIGRATION). A collection whose
 * validator is already this build's only gets it set again.
 *
 * The order matters because the validator is strict (`additionalProperties: false`, every
 * field required) and is checked against a document as it is after an update:
 * 1. First the transitional validator, which admits both layouts and any mix. Under the old
 *    validator the migration's update would be refused (`usage` unknown, `txCount`
 *    missing); under the new one, any other update of a document not migrated yet (a probe's
 *    $set from a process of this build running meanwhile) would be refused, the old fields
 *    still being there. The transitional one refuses neither.
 * 2. The migration: one updateMany matching only documents still in the old layout.
 * 3. This build's validator: from here on no old-layout document can be written.
 * 4. The migration once more, for documents an earlier build's process still running
 *    inserted between 2 and 3. Under the new validator the migration's own update is
 *    admitted: the document it leaves is in the new layout.
 * A crash anywhere leaves a validator that is not this build's, so the next open starts over
 * (every step is idempotent). Two processes opening at once may interleave their steps;
 * each ends by setting this build's validator and migrating after it, so the last one done
 * leaves the collection migrated.
 */
async function migrateServices (db: Db): Promise<void> {
  const [info] = await db.listCollections({ name: COLLECTIONS.services }).toArray()
  const validator = (info as { options?: { validator?: Document } } | undefined)?.options?.validator
  if (serviceLayoutIsCurrent(validator)) {
    await setValidator(db, COLLECTIONS.services, SERVICE_VALIDATOR)
    return
  }
  const services = db.collection(COLLECTIONS.services)
  await setValidator(db, COLLECTIONS.services, transitionalServiceValidator())
  await services.updateMany(SERVICE_MIGRATION.filter, SERVICE_MIGRATION.update)
  await setValidator(db, COLLECTIONS.services, SERVICE_VALIDATOR)
  await services.updateMany(SERVICE_MIGRATION.filter, SERVICE_MIGRATION.update)
}
