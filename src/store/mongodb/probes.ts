/** The MongoDB store's probes section: what the prober measured, the monitoring state it sets, and when each service is due again. */
import { applyDiscovery, withDiscovery } from '../../domain/call-schema.js'
import type { Page } from '../../domain/catalog-query.js'
import { PROBE_HISTORY_LIMIT, applyProbe, changesListing, type LifecyclePolicy, type ProbeSummary } from '../../domain/lifecycle.js'
import type { CategoryInferrer } from '../../domain/listing-text.js'
import { refreshedText } from '../../domain/prefill.js'
import type { ProbeOutcome } from '../../domain/probe.js'
import type { ServiceRecord } from '../../domain/service.js'
import { nameSortKey, priceOfSortKey } from '../../domain/sort-keys.js'
import type { ProbeCandidate, ProbePage, ProbeStore } from '../catalog-store.js'
import { WRITE_CONCERN, type MongoConnection } from './connection.js'
import { fromLong, fromProbeDocument, fromServiceDocument, toDiscoveryDocument, toLong, toProbeDocument, type ServiceDocument } from './mapping.js'
import { COLLECTIONS } from './schema.js'

export class MongoProbes implements ProbeStore {
  readonly #connection: MongoConnection

  constructor (connection: MongoConnection) {
    this.#connection = connection
  }

  async recordProbe (serviceId: string, outcome: ProbeOutcome, policy: LifecyclePolicy, nextProbeAt: string | null, inferCategory?: CategoryInferrer): Promise<ServiceRecord | null> {
    const { services, probes } = this.#connection
    return await this.#connection.transaction(async (session) => {
      const doc = await services.findOne({ _id: { $eq: serviceId } }, { session })
      if (doc === null) return null
      const newest = await probes.findOne({ serviceId: { $eq: serviceId } }, { session, sort: { at: -1 }, projection: { at: 1 } })
      const at = newest === null ? 1 : fromLong(newest.at, 'at') + 1
      await probes.insertOne(toProbeDocument(serviceId, at, outcome), { session })
      // Bounded per service: everything older than the newest PROBE_HISTORY_LIMIT goes.
      await probes.deleteMany({ serviceId: { $eq: serviceId }, at: { $lte: toLong(Math.max(0, at - PROBE_HISTORY_LIMIT), 'at') } }, { session })
      const history = (await probes.find({ serviceId: { $eq: serviceId } }, { session, sort: { at: -1 }, limit: PROBE_HISTORY_LIMIT }).toArray())
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
      await services.updateOne({ _id: { $eq: serviceId } }, {
        ...(Object.keys(unset).length === 0 ? {} : { $unset: unset }),
        $set: {
          ...(changesListing(before, update) || discovery !== null || textChanged ? { seq: toLong(await this.#connection.reserve(session, 1), 'seq') } : {}),
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
    const { probes } = this.#connection
    const [total, docs] = await Promise.all([
      probes.countDocuments({ serviceId: { $eq: serviceId } }),
      probes.find({ serviceId: { $eq: serviceId } }).sort({ at: -1 }).skip(page.offset).limit(page.limit).toArray()
    ])
    return { items: docs.map(fromProbeDocument), total }
  }

  async lastProbe (serviceId: string): Promise<ProbeOutcome | null> {
    const doc = await this.#connection.probes.findOne({ serviceId: { $eq: serviceId } }, { sort: { at: -1 } })
    return doc === null ? null : fromProbeDocument(doc)
  }

  async dueForProbe (now: string, limit: number, includeSeeded: boolean): Promise<ProbeCandidate[]> {
    const due = { $or: [{ nextProbeAt: null }, { nextProbeAt: { $lte: new Date(now) } }] }
    const projection = { _id: 1, endpoint: 1, method: 1, network: 1, paymentAddress: 1, priceAtomic: 1 }
    // Seeded listings have no owner and no source; a listing a source lists is probed like a registered one.
    const docs = includeSeeded
      ? await this.#connection.services.find(due, { projection }).sort({ nextProbeAt: 1, _id: 1 }).limit(limit).toArray()
      : await this.#connection.services.aggregate<Pick<ServiceDocument, '_id' | 'endpoint' | 'method' | 'network' | 'paymentAddress' | 'priceAtomic'>>([
        { $match: due },
        { $sort: { nextProbeAt: 1, _id: 1 } },
        { $lookup: { from: COLLECTIONS.serviceSources, localField: '_id', foreignField: 'serviceId', as: 'listedBy', pipeline: [{ $limit: 1 }, { $project: { _id: 1 } }] } },
        { $match: { $or: [{ ownerId: { $ne: null } }, { 'listedBy.0': { $exists: true } }] } },
        { $limit: limit },
        { $project: projection }
      ]).toArray()
    return docs.map((doc) => ({
      id: doc._id,
      endpoint: doc.endpoint,
      method: doc.method,
      network: doc.network,
      paymentAddress: doc.paymentAddress,
      priceAtomic: priceOfSortKey(fromLong(doc.priceAtomic, 'priceAtomic'))
    }))
  }

  async markProbeDue (serviceId: string): Promise<boolean> {
    return (await this.#connection.services.updateOne({ _id: { $eq: serviceId } }, { $set: { nextProbeAt: null } }, { writeConcern: WRITE_CONCERN })).matchedCount === 1
  }
}
