/**
 * The MongoDB store's sources section: the sources themselves and the provenance of each
 * listing (one `service_sources` document per source and listing). A write that changes a
 * listing's provenance is one transaction that also gives the listing a new change-feed
 * sequence (connection.ts, reserve); a service's entries go with it (services.ts).
 */
import { MongoServerError, type ClientSession } from 'mongodb'
import type { ProvenanceEntry, SourceRecord, SyncReport } from '../../domain/sources.js'
import { DuplicateSourceError } from '../../errors.js'
import type { SourceStore } from '../catalog-store.js'
import { WRITE_CONCERN, type MongoConnection } from './connection.js'
import { fromLong, toDate, toLong } from './mapping.js'
import { DUPLICATE_KEY, type ServiceSourceDocument, type SourceDocument, type SyncReportDocument } from './schema.js'

function toSyncReportDocument (report: SyncReport): SyncReportDocument {
  return {
    startedAt: toDate(report.startedAt, 'startedAt'),
    finishedAt: toDate(report.finishedAt, 'finishedAt'),
    complete: report.complete,
    seen: toLong(report.seen, 'seen'),
    added: toLong(report.added, 'added'),
    updated: toLong(report.updated, 'updated'),
    unchanged: toLong(report.unchanged, 'unchanged'),
    retired: toLong(report.retired, 'retired'),
    refusedCount: toLong(report.refusedCount, 'refusedCount'),
    refused: report.refused.map((refusal) => ({ item: refusal.item, reason: refusal.reason })),
    error: report.error,
    ...(report.feed === undefined ? {} : { feed: { since: report.feed.since, next: report.feed.next, wholeAt: report.feed.wholeAt === null ? null : toDate(report.feed.wholeAt, 'feed.wholeAt') } })
  }
}

function fromSyncReportDocument (doc: SyncReportDocument): SyncReport {
  return {
    startedAt: doc.startedAt.toISOString(),
    finishedAt: doc.finishedAt.toISOString(),
    complete: doc.complete,
    seen: fromLong(doc.seen, 'seen'),
    added: fromLong(doc.added, 'added'),
    updated: fromLong(doc.updated, 'updated'),
    unchanged: fromLong(doc.unchanged, 'unchanged'),
    retired: fromLong(doc.retired, 'retired'),
    refusedCount: fromLong(doc.refusedCount, 'refusedCount'),
    refused: doc.refused.map((refusal) => ({ item: refusal.item, reason: refusal.reason })),
    error: doc.error,
    ...(doc.feed === undefined ? {} : { feed: { since: doc.feed.since, next: doc.feed.next, wholeAt: doc.feed.wholeAt === null ? null : doc.feed.wholeAt.toISOString() } })
  }
}

export function toSourceDocument (source: SourceRecord): SourceDocument {
  return {
    _id: source.id,
    kind: source.kind,
    url: source.url,
    createdAt: toDate(source.createdAt, 'createdAt'),
    lastSync: source.lastSync === null ? null : toSyncReportDocument(source.lastSync),
    lastCompleteAt: source.lastCompleteAt === null ? null : toDate(source.lastCompleteAt, 'lastCompleteAt')
  }
}

export function fromSourceDocument (doc: SourceDocument): SourceRecord {
  return {
    id: doc._id,
    kind: doc.kind,
    url: doc.url,
    createdAt: doc.createdAt.toISOString(),
    lastSync: doc.lastSync === null ? null : fromSyncReportDocument(doc.lastSync),
    lastCompleteAt: doc.lastCompleteAt === null ? null : doc.lastCompleteAt.toISOString()
  }
}

export class MongoSources implements SourceStore {
  readonly #connection: MongoConnection

  constructor (connection: MongoConnection) {
    this.#connection = connection
  }

  /**
   * Gives each listing its own new change-feed sequence, in the order given, in the
   * transaction; at least one number is reserved (`atLeastOne`) also with none to stamp,
   * when the write must conflict with a concurrent one through the counter.
   */
  async #touch (session: ClientSession, serviceIds: readonly string[], atLeastOne = false): Promise<void> {
    if (serviceIds.length === 0 && !atLeastOne) return
    const first = await this.#connection.reserve(session, Math.max(1, serviceIds.length))
    if (serviceIds.length === 0) return
    await this.#connection.services.bulkWrite(serviceIds.map((id, i) => ({
      updateOne: { filter: { _id: { $eq: id } }, update: { $set: { seq: toLong(first + i, 'seq') } } }
    })), { session, ordered: true })
  }

  async insertSource (source: SourceRecord): Promise<void> {
    try {
      await this.#connection.sources.insertOne(toSourceDocument(source), { writeConcern: WRITE_CONCERN })
    } catch (err) {
      // Only a clash on (kind, url) is a duplicate source; another (an id already stored) is not.
      if (err instanceof MongoServerError && err.code === DUPLICATE_KEY && err.keyPattern?.url !== undefined) throw new DuplicateSourceError(source.kind, source.url)
      throw err
    }
  }

  async listSources (): Promise<SourceRecord[]> {
    return (await this.#connection.sources.find({}).sort({ createdAt: 1, _id: 1 }).toArray()).map(fromSourceDocument)
  }

  async getSource (id: string): Promise<SourceRecord | null> {
    const doc = await this.#connection.sources.findOne({ _id: { $eq: id } })
    return doc === null ? null : fromSourceDocument(doc)
  }

  async recordSourceSync (id: string, report: SyncReport, completeAt: string | null): Promise<boolean> {
    const lastSync = toSyncReportDocument(report)
    const result = await this.#connection.sources.updateOne({ _id: { $eq: id } }, {
      $set: { lastSync, ...(completeAt === null ? {} : { lastCompleteAt: toDate(completeAt, 'completeAt') }) }
    }, { writeConcern: WRITE_CONCERN })
    return result.matchedCount === 1
  }

  async deleteSource (id: string): Promise<string[] | null> {
    const { sources, serviceSources } = this.#connection
    return await this.#connection.transaction(async (session) => {
      if ((await sources.deleteOne({ _id: { $eq: id } }, { session })).deletedCount === 0) return null
      const listed = (await serviceSources.find({ sourceId: { $eq: id } }, { session, projection: { serviceId: 1 }, sort: { serviceId: 1 } }).toArray())
        .map((doc) => doc.serviceId)
      await serviceSources.deleteMany({ sourceId: { $eq: id } }, { session })
      // A number also when no listing had the source: an addProvenance of it running meanwhile
      // (which takes numbers for what it adds) then conflicts, and never leaves entries of a deleted source.
      await this.#touch(session, listed, true)
      return listed
    })
  }

  async addProvenance (sourceId: string, serviceIds: readonly string[], at: string): Promise<number> {
    const ids = [...new Set(serviceIds)]
    if (ids.length === 0) return 0
    const firstSeenAt = toDate(at, 'at')
    const { services, sources, serviceSources } = this.#connection
    return await this.#connection.transaction(async (session) => {
      // No entries for a source that is not stored (deleteSource says why a concurrent deletion cannot slip between).
      if (await sources.countDocuments({ _id: { $eq: sourceId } }, { session, limit: 1 }) === 0) return 0
      const existing = new Set((await services.find({ _id: { $in: ids } }, { session, projection: { _id: 1 } }).toArray()).map((doc) => doc._id))
      const carrying = new Set((await serviceSources.find({ sourceId: { $eq: sourceId }, serviceId: { $in: ids } }, { session, projection: { serviceId: 1 } }).toArray())
        .map((doc) => doc.serviceId))
      const gaining = ids.filter((id) => existing.has(id) && !carrying.has(id))
      if (gaining.length === 0) return 0
      // Inserted, not upserted: the unique index refuses a concurrent insert of the same entry,
      // and both transactions take numbers from the counter, so one retries and sees the other's.
      await serviceSources.insertMany(gaining.map((serviceId): ServiceSourceDocument => ({ sourceId, serviceId, firstSeenAt })), { session, ordered: true })
      // Writing each listing also makes a deleteService running meanwhile conflict: no entry outlives its listing.
      await this.#touch(session, gaining)
      return gaining.length
    })
  }

  async removeProvenance (sourceId: string, serviceIds: readonly string[]): Promise<void> {
    const ids = [...new Set(serviceIds)]
    if (ids.length === 0) return
    const { serviceSources } = this.#connection
    await this.#connection.transaction(async (session) => {
      const had = new Set((await serviceSources.find({ sourceId: { $eq: sourceId }, serviceId: { $in: ids } }, { session, projection: { serviceId: 1 } }).toArray())
        .map((doc) => doc.serviceId))
      if (had.size === 0) return
      await serviceSources.deleteMany({ sourceId: { $eq: sourceId }, serviceId: { $in: [...had] } }, { session })
      await this.#touch(session, ids.filter((id) => had.has(id)))
    })
  }

  async servicesOfSource (sourceId: string): Promise<string[]> {
    const docs = await this.#connection.serviceSources.find({ sourceId: { $eq: sourceId } }, { projection: { serviceId: 1 } }).sort({ serviceId: 1 }).toArray()
    return docs.map((doc) => doc.serviceId)
  }

  async provenanceOf (serviceIds: readonly string[]): Promise<Map<string, ProvenanceEntry[]>> {
    const found = new Map<string, ProvenanceEntry[]>()
    if (serviceIds.length === 0) return found
    const docs = await this.#connection.serviceSources.find({ serviceId: { $in: [...new Set(serviceIds)] } }).sort({ firstSeenAt: 1, sourceId: 1 }).toArray()
    for (const doc of docs) {
      const entries = found.get(doc.serviceId) ?? []
      entries.push({ sourceId: doc.sourceId, firstSeenAt: doc.firstSeenAt.toISOString() })
      found.set(doc.serviceId, entries)
    }
    return found
  }
}
