/**
 * The payment half of the MongoDB store (CatalogStore's payment methods): payments, the chain
 * watcher's checkpoints and per-payTo progress, the services a payTo belongs to, and usage
 * figures on services. mongo-store.ts delegates to it and hands it its transactions and its
 * change counter, so every write here is one majority-committed transaction like the rest.
 */
import type { AnyBulkWriteOperation, ClientSession, Collection, Db } from 'mongodb'
import { applyUsage, usageChangesListing } from '../../domain/lifecycle.js'
import { payToKey } from '../../domain/pay-to.js'
import {
  CHAIN_CHECKPOINT_HISTORY,
  type ChainScanCommit, type ChainScanState, type PaymentFilter, type PaymentPage, type PaymentSummary, type ServiceUsage
} from '../../domain/payment.js'
import type { ServiceRecord } from '../../domain/service.js'
import type { Page } from '../../domain/catalog-query.js'
import {
  fromCheckpointDocument, fromLong, fromPaymentDocument, fromServiceDocument, toLong, toPaymentDocument, toUsageDocument,
  type CheckpointDocument, type PayToScanDocument, type PaymentDocument, type ServiceDocument
} from './mapping.js'
import { PAYMENT_ORDER, paymentFilter, paymentSummaryPipeline, toPaymentSummary, type SummaryDocument } from './query.js'
import { COLLECTIONS } from './schema.js'

/** What the store lends: its transaction runner and the change counter (a seq reserved inside a transaction). */
export interface StoreTransactions {
  transaction: <T>(work: (session: ClientSession) => Promise<T>) => Promise<T>
  reserveSeq: (session: ClientSession) => Promise<number>
}

/**
 * The upserts that store a scanned range's payments: one per payment, matching its unique key
 * and inserting the whole document only when none matches ($setOnInsert), so a payment
 * already stored is left as it is and the bulk result's upsertedCount is how many were new.
 * (insertMany ignoring E11000 does not work here: inside a transaction a write error aborts
 * the whole transaction.) Validated before any write: an amount beyond Int64 throws.
 */
export function paymentUpserts (network: string, commit: ChainScanCommit): Array<AnyBulkWriteOperation<PaymentDocument>> {
  return commit.payments.map((payment) => {
    const doc = toPaymentDocument(network, payment)
    return {
      updateOne: {
        filter: { network: { $eq: doc.network }, txHash: { $eq: doc.txHash }, logIndex: { $eq: doc.logIndex } },
        update: { $setOnInsert: doc },
        upsert: true
      }
    }
  })
}

export class MongoPayments {
  readonly #services: Collection<ServiceDocument>
  readonly #payments: Collection<PaymentDocument>
  readonly #checkpoints: Collection<CheckpointDocument>
  readonly #payTos: Collection<PayToScanDocument>
  readonly #tx: StoreTransactions

  constructor (db: Db, tx: StoreTransactions) {
    this.#services = db.collection(COLLECTIONS.services)
    this.#payments = db.collection(COLLECTIONS.payments)
    this.#checkpoints = db.collection(COLLECTIONS.chainCheckpoints)
    this.#payTos = db.collection(COLLECTIONS.chainPayTos)
    this.#tx = tx
  }

  async getChainScanState (network: string): Promise<ChainScanState | null> {
    // The watcher (one per store, under its lease) is the only writer: two plain reads see one state.
    const [checkpoints, payTos] = await Promise.all([
      this.#checkpoints.find({ network: { $eq: network } }).sort({ blockNumber: -1 }).limit(CHAIN_CHECKPOINT_HISTORY).toArray(),
      this.#payTos.find({ network: { $eq: network } }).toArray()
    ])
    if (checkpoints.length === 0 && payTos.length === 0) return null
    return {
      network,
      checkpoints: checkpoints.map(fromCheckpointDocument),
      payTos: Object.fromEntries(payTos.map((doc) => [doc.payTo, fromLong(doc.scannedTo, 'scannedTo')]))
    }
  }

  async commitChainScan (network: string, commit: ChainScanCommit): Promise<number> {
    // Mapped before the transaction: a bad amount or number refuses the whole commit, nothing written.
    const upserts = paymentUpserts(network, commit)
    const checkpoint = commit.checkpoint === undefined
      ? undefined
      : { blockNumber: toLong(commit.checkpoint.blockNumber, 'checkpoint.blockNumber'), blockHash: commit.checkpoint.blockHash }
    const scannedTo = commit.scanned === undefined ? undefined : toLong(commit.scanned.block, 'scanned.block')
    return await this.#tx.transaction(async (session) => {
      // Counted per attempt: withTransaction may run this again after a transient error.
      let added = 0
      if (upserts.length > 0) added = (await this.#payments.bulkWrite(upserts, { session, ordered: true })).upsertedCount
      if (checkpoint !== undefined) {
        // Replaces the hash of a block scanned again (as the SQLite store's INSERT OR REPLACE).
        await this.#checkpoints.updateOne(
          { network: { $eq: network }, blockNumber: { $eq: checkpoint.blockNumber } },
          { $set: { blockHash: checkpoint.blockHash }, $setOnInsert: { network, blockNumber: checkpoint.blockNumber } },
          { session, upsert: true })
        // Keeps the newest CHAIN_CHECKPOINT_HISTORY: everything below the oldest of them goes.
        const [oldestKept] = await this.#checkpoints.find({ network: { $eq: network } }, { session, projection: { blockNumber: 1 } })
          .sort({ blockNumber: -1 }).skip(CHAIN_CHECKPOINT_HISTORY - 1).limit(1).toArray()
        if (oldestKept !== undefined) {
          await this.#checkpoints.deleteMany({ network: { $eq: network }, blockNumber: { $lt: oldestKept.blockNumber } }, { session })
        }
      }
      if (commit.scanned !== undefined && scannedTo !== undefined && commit.scanned.payTos.length > 0) {
        await this.#payTos.bulkWrite([...new Set(commit.scanned.payTos)].map((payTo) => ({
          updateOne: {
            filter: { network: { $eq: network }, payTo: { $eq: payTo } },
            update: { $set: { scannedTo }, $setOnInsert: { network, payTo } },
            upsert: true
          }
        })), { session, ordered: true })
      }
      return added
    })
  }

  async rewindChain (network: string, toBlock: number): Promise<string[]> {
    const above = { network: { $eq: network }, blockNumber: { $gt: toLong(toBlock, 'toBlock') } }
    return await this.#tx.transaction(async (session) => {
      // A $group rather than distinct: distinct is not allowed in a transaction on a sharded collection.
      const payTos = (await this.#payments.aggregate<{ _id: string }>([{ $match: above }, { $group: { _id: '$payTo' } }], { session }).toArray())
        .map((row) => row._id).sort()
      await this.#payments.deleteMany(above, { session })
      await this.#checkpoints.deleteMany(above, { session })
      await this.#payTos.updateMany(
        { network: { $eq: network }, scannedTo: { $gt: toLong(toBlock, 'toBlock') } },
        { $set: { scannedTo: toLong(toBlock, 'toBlock') } },
        { session })
      return payTos
    })
  }

  async listPayments (filter: PaymentFilter, page: Page): Promise<PaymentPage> {
    const query = paymentFilter(filter)
    const [total, docs] = await Promise.all([
      this.#payments.countDocuments(query),
      // limit(0) is "no limit" to MongoDB; a page of 0 is the count alone (SQLite's LIMIT 0).
      page.limit <= 0 ? [] : this.#payments.find(query).sort(PAYMENT_ORDER).skip(page.offset).limit(page.limit).toArray()
    ])
    return { items: docs.map(fromPaymentDocument), total }
  }

  async summarizePayments (filter: PaymentFilter): Promise<PaymentSummary> {
    const [doc] = await this.#payments.aggregate<SummaryDocument>(paymentSummaryPipeline(filter), { allowDiskUse: true }).toArray()
    return toPaymentSummary(doc)
  }

  async payTosOn (network: string): Promise<string[]> {
    return (await this.#services.distinct('payToKey', { network: { $eq: network } })).sort()
  }

  async servicesByPayTo (network: string, payTo: string): Promise<ServiceRecord[]> {
    const docs = await this.#services.find({ network: { $eq: network }, payToKey: { $eq: payToKey(payTo) } }).sort({ createdAt: 1, _id: 1 }).toArray()
    return docs.map(fromServiceDocument)
  }

  /** As recordProbe: the service read, the domain's rule applied and the update written in one transaction; a seq only when the listing changes. */
  async recordUsage (serviceId: string, usage: ServiceUsage): Promise<ServiceRecord | null> {
    const usageDoc = toUsageDocument(usage)
    return await this.#tx.transaction(async (session) => {
      const doc = await this.#services.findOne({ _id: { $eq: serviceId } }, { session })
      if (doc === null) return null
      const before = fromServiceDocument(doc)
      const update = applyUsage(before, usage)
      await this.#services.updateOne({ _id: { $eq: serviceId } }, {
        $set: {
          ...(usageChangesListing(before, update) ? { seq: toLong(await this.#tx.reserveSeq(session), 'seq') } : {}),
          trustScore: update.trustScore,
          usage: usageDoc
        }
      }, { session })
      return { ...before, ...update }
    })
  }
}
