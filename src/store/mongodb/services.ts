/**
 * The MongoDB store's services section: the listings, each write one transaction that
 * stamps the service (or its tombstone) with a new change-feed sequence, and the reads of
 * them as records, pages and counts.
 */
import { MongoBulkWriteError, MongoServerError, type ClientSession, type Document } from 'mongodb'
import { DuplicateEndpointError } from '../../errors.js'
import type { CatalogFilter, Page, ServiceSort } from '../../domain/catalog-query.js'
import type { HttpMethod } from '../../domain/http-method.js'
import type { FirstProbeTime } from '../../domain/probe-schedule.js'
import { toServiceJson, type ServiceRecord } from '../../domain/service.js'
import type { CatalogFacets, Displacement, NewProvenance, ServiceJsonItem, ServiceJsonPage, ServicePage, ServiceStore } from '../catalog-store.js'
import { jsonArrayBytes } from '../json-page.js'
import { underOriginClaims } from './claims.js'
import type { MongoConnection } from './connection.js'
import { fromServiceDocument, toDate, toLong, toServiceDocument, type ServiceDocument } from './mapping.js'
import { serviceFilter, serviceSort } from './query.js'
import { DUPLICATE_KEY, EQUALITY_FILTER_KEYS, type ServiceSourceDocument } from './schema.js'

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

export class MongoServices implements ServiceStore {
  readonly #connection: MongoConnection

  constructor (connection: MongoConnection) {
    this.#connection = connection
  }

  async #duplicateEndpoint (err: unknown, records: readonly ServiceRecord[]): Promise<unknown> {
    return await duplicateEndpointOf(err, records, async (record) =>
      await this.#connection.services.countDocuments({ resource: { $eq: record.resource }, method: { $eq: record.method }, _id: { $ne: record.id } }, { limit: 1 }) > 0)
  }

  async insertService (record: ServiceRecord, firstProbeAt?: FirstProbeTime): Promise<void> {
    await this.insertServices([record], firstProbeAt)
  }

  async insertServices (records: readonly ServiceRecord[], firstProbeAt?: FirstProbeTime, provenance?: NewProvenance): Promise<void> {
    if (records.length === 0) return
    const connection = this.#connection
    try {
      await connection.transaction(async (session) => {
        const stored = await underOriginClaims(connection, session, records)
        const first = await connection.reserve(session, records.length)
        await connection.services.insertMany(stored.map((record, i) => {
          const at = firstProbeAt?.(record) ?? null
          return { ...toServiceDocument(record, first + i), nextProbeAt: at === null ? null : new Date(at) }
        }), { session, ordered: true })
        // A service registered again under a deleted id is live, not deleted.
        await connection.tombstones.deleteMany({ _id: { $in: records.map((r) => r.id) } }, { session })
        // Inside the listings' own change (their seq above), as addProvenance would add them; the
        // numbers reserved above make a concurrent deleteSource conflict, as they do there.
        if (provenance !== undefined && await connection.sources.countDocuments({ _id: { $eq: provenance.sourceId } }, { session, limit: 1 }) > 0) {
          const firstSeenAt = toDate(provenance.at, 'at')
          await connection.serviceSources.insertMany(records.map((record): ServiceSourceDocument => ({ sourceId: provenance.sourceId, serviceId: record.id, firstSeenAt })), { session, ordered: true })
        }
      })
    } catch (err) {
      throw await this.#duplicateEndpoint(err, records)
    }
  }

  async updateService (record: ServiceRecord): Promise<boolean> {
    const connection = this.#connection
    try {
      return await connection.transaction(async (session) => {
        const current = await connection.services.findOne({ _id: { $eq: record.id } }, { session, projection: { nextProbeAt: 1 } })
        if (current === null) return false
        const [stored] = await underOriginClaims(connection, session, [record]) as [ServiceRecord]
        const seq = await connection.reserve(session, 1)
        // The probe schedule is the prober's, not the record's: an update keeps it, as SQLite's does.
        await connection.services.replaceOne({ _id: { $eq: record.id } }, { ...toServiceDocument(stored, seq), nextProbeAt: current.nextProbeAt ?? null }, { session })
        return true
      })
    } catch (err) {
      throw await this.#duplicateEndpoint(err, [record])
    }
  }

  /** Deletes a service and records a tombstone at a new sequence, in one transaction; false when no service has that id. */
  async deleteService (id: string): Promise<boolean> {
    return await this.#connection.transaction(async (session) => await this.#deleteIn(session, id))
  }

  async #deleteIn (session: ClientSession, id: string): Promise<boolean> {
    const connection = this.#connection
    const deleted = await connection.services.findOneAndDelete({ _id: { $eq: id } }, { session })
    if (deleted === null) return false
    await connection.probes.deleteMany({ serviceId: { $eq: id } }, { session })
    await connection.serviceSources.deleteMany({ serviceId: { $eq: id } }, { session })
    const seq = await connection.reserve(session, 1)
    await connection.tombstones.replaceOne({ _id: id }, { seq: toLong(seq, 'seq'), deletedAt: new Date() }, { session, upsert: true })
    return true
  }

  async displaceService (holder: ServiceRecord, record: ServiceRecord, displacement: Displacement): Promise<boolean> {
    const connection = this.#connection
    try {
      return await connection.transaction(async (session) => {
        const current = await connection.services.findOne({ _id: { $eq: holder.id }, endpoint: { $eq: holder.endpoint } }, { session, projection: { updatedAt: 1 } })
        if (current === null || current.updatedAt.toISOString() !== holder.updatedAt) return false
        const [stored] = await underOriginClaims(connection, session, [record]) as [ServiceRecord]
        await this.#deleteIn(session, holder.id)
        const seq = await connection.reserve(session, 1)
        await connection.services.insertOne(toServiceDocument(stored, seq), { session })
        await connection.tombstones.deleteOne({ _id: { $eq: record.id } }, { session })
        await connection.displacements.replaceOne({ _id: displacement.id }, {
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
    const doc = await this.#connection.displacements.findOne({ _id: { $eq: id } })
    if (doc === null) return null
    return { id: doc._id, displacedBy: doc.displacedBy, endpoint: doc.endpoint, ownerId: doc.ownerId, reason: doc.reason, at: doc.at.toISOString() }
  }

  async getService (id: string): Promise<ServiceRecord | null> {
    const doc = await this.#connection.services.findOne({ _id: { $eq: id } })
    return doc === null ? null : fromServiceDocument(doc)
  }

  async findServiceByResource (resource: string, method: HttpMethod): Promise<ServiceRecord | null> {
    const doc = await this.#connection.services.findOne({ resource: { $eq: resource }, method: { $eq: method } })
    return doc === null ? null : fromServiceDocument(doc)
  }

  async servicesOnOrigin (origin: string, limit: number): Promise<ServiceRecord[]> {
    // '0' follows '/' in code point order: the range is exactly the endpoints under `origin/`.
    const docs = await this.#connection.services.find({ endpoint: { $gte: `${origin}/`, $lt: `${origin}0` } }).sort({ _id: 1 }).limit(limit).toArray()
    return docs.map(fromServiceDocument)
  }

  async getServices (ids: readonly string[]): Promise<ServiceRecord[]> {
    if (ids.length === 0) return []
    const docs = await this.#connection.services.find({ _id: { $in: [...ids] } }).toArray()
    const byId = new Map(docs.map((doc) => [doc._id, fromServiceDocument(doc)]))
    return ids.flatMap((id) => byId.get(id) ?? [])
  }

  async getServiceJson (ids: readonly string[]): Promise<ServiceJsonItem[]> {
    // Made from the documents, as listServiceJson's.
    return (await this.getServices(ids)).map((record) => ({ id: record.id, json: Buffer.from(toServiceJson(record)), uptimeScore: record.uptimeScore }))
  }

  async listServices (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServicePage> {
    const query = serviceFilter(filter)
    const { services } = this.#connection
    const [total, docs] = await Promise.all([
      services.countDocuments(query),
      services.find(query).sort(serviceSort(sort)).skip(page.offset).limit(page.limit).toArray()
    ])
    return { items: docs.map(fromServiceDocument), total }
  }

  // Built per read: documents hold records only (keeping the texts too is what the SQLite store does for speed).
  async listServiceJson (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServiceJsonPage> {
    const { items, total } = await this.listServices(filter, sort, page)
    return { json: jsonArrayBytes(items.map(toServiceJson)), total }
  }

  async * streamServices (filter: CatalogFilter, batchSize = 500): AsyncIterable<ServiceRecord> {
    const query = serviceFilter(filter)
    // Keyset on _id: each batch is one short query, never a cursor held open across the stream.
    let after: string | null = null
    for (;;) {
      const docs: ServiceDocument[] = await this.#connection.services
        .find(after === null ? query : { $and: [query, { _id: { $gt: after } }] })
        .sort({ _id: 1 }).limit(batchSize).toArray()
      for (const doc of docs) yield fromServiceDocument(doc)
      if (docs.length < batchSize) return
      after = (docs[docs.length - 1] as ServiceDocument)._id
    }
  }

  async countServices (): Promise<number> {
    return await this.#connection.services.countDocuments({})
  }

  async countByCategory (): Promise<Map<string, number>> {
    const rows = await this.#connection.services.aggregate<{ _id: string, n: number }>([{ $group: { _id: '$category', n: { $sum: 1 } } }]).toArray()
    return new Map(rows.map((row) => [row._id, row.n]))
  }

  async countFacets (filter: CatalogFilter): Promise<CatalogFacets> {
    const group = (field: string): Document[] => [{ $group: { _id: field, n: { $sum: 1 } } }]
    // One aggregation: the three counts see the same snapshot of the matching services.
    const [facets] = await this.#connection.services.aggregate<Record<keyof CatalogFacets, Array<{ _id: string, n: number }>>>([
      { $match: serviceFilter(filter) },
      { $facet: { category: group(`$${EQUALITY_FILTER_KEYS.category}`), status: group(`$${EQUALITY_FILTER_KEYS.status}`), network: [{ $unwind: `$${EQUALITY_FILTER_KEYS.chain}` }, ...group(`$${EQUALITY_FILTER_KEYS.chain}`)] } }
    ]).toArray()
    const counts = (rows: Array<{ _id: string, n: number }> | undefined): Record<string, number> => Object.fromEntries((rows ?? []).map((row) => [row._id, row.n]))
    return { category: counts(facets?.category), status: counts(facets?.status), network: counts(facets?.network) }
  }
}
