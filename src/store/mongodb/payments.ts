/**
 * The MongoDB store's payments section: payments, the chain watcher's checkpoints and
 * per-payTo progress, the services a payTo belongs to, and usage figures on services. Every
 * write here is one majority-committed transaction on the connection the sections share
 * (connection.ts), as the rest of the store.
 */
import type { AnyBulkWriteOperation } from 'mongodb'
import { applyUsage, usageChangesListing } from '../../domain/lifecycle.js'
import { payToKey } from '../../domain/pay-to.js'
import {
  CHAIN_CHECKPOINT_HISTORY,
  type ChainScanCommit, type ChainScanState, type PaymentFilter, type PaymentPage, type PaymentSummary, type ServiceUsage
} from '../../domain/payment.js'
import type { ServiceRecord } from '../../domain/service.js'
import type { Page } from '../../domain/catalog-query.js'
import type { PaymentStore } from '../catalog-store.js'
import type { MongoConnection } from './connection.js'
import {
  fromCheckpointDocument, fromLong, fromPaymentDocument, fromServiceDocument, toLong, toPaymentDocument, toUsageDocument,
  type PaymentDocument
} from './mapping.js'
import { PAYMENT_ORDER, paymentFilter, paymentSummaryPipeline, toPaymentSummary, type SummaryDocument } from './query.js'

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

export class MongoPayments implements PaymentStore {
  readonly #connection: MongoConnection

  constructor (connection: MongoConnection) {
    this.#connection = connection
  }

  async getChainScanState (network: string): Promise<ChainScanState | null> {
    // The watcher (one per store, under its lease) is the only writer: two plain reads see one state.
    const [checkpoints, payTos] = await Promise.all([
      this.#connection.checkpoints.find({ network: { $eq: network } }).sort({ blockNumber: -1 }).limit(CHAIN_CHECKPOINT_HISTORY).toArray(),
      this.#connection.payTos.find({ network: { $eq: network } }).toArray()
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
    return await this.#connection.transaction(async (session) => {
      // Counted per attempt: withTransaction may run this again after a transient error.
      let added = 0
      if (upserts.length > 0) added = (await this.#connection.payments.bulkWrite(upserts, { session, ordered: true })).upsertedCount
      if (checkpoint !== undefined) {
        // Replaces the hash of a block scanned again (as the SQLite store's INSERT OR REPLACE).
        await this.#connection.checkpoints.updateOne(
          { network: { $eq: network }, blockNumber: { $eq: checkpoint.blockNumber } },
          { $set: { blockHash: checkpoint.blockHash }, $setOnInsert: { network, blockNumber: checkpoint.blockNumber } },
          { session, upsert: true })
        // Keeps the newest CHAIN_CHECKPOINT_HISTORY: everything below the oldest of them goes.
        const [oldestKept] = await this.#connection.checkpoints.find({ network: { $eq: network } }, { session, projection: { blockNumber: 1 } })
          .sort({ blockNumber: -1 }).skip(CHAIN_CHECKPOINT_HISTORY - 1).limit(1).toArray()
        if (oldestKept !== undefined) {
          await this.#connection.checkpoints.deleteMany({ network: { $eq: network }, blockNumber: { $lt: oldestKept.blockNumber } }, { session })
        }
      }
      if (commit.scanned !== undefined && scannedTo !== undefined && commit.scanned.payTos.length > 0) {
        await this.#connection.payTos.bulkWrite([...new Set(commit.scanned.payTos)].map((payTo) => ({
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
    return await this.#connection.transaction(async (session) => {
      // A $group rather than distinct: distinct is not allowed in a transaction on a sharded collection.
      const payTos = (await this.#connection.payments.aggregate<{ _id: string }>([{ $match: above }, { $group: { _id: '$payTo' } }], { session }).toArray())
        .map((row) => row._id).sort()
      await this.#connection.payments.deleteMany(above, { session })
      await this.#connection.checkpoints.deleteMany(above, { session })
      await this.#connection.payTos.updateMany(
        { network: { $eq: network }, scannedTo: { $gt: toLong(toBlock, 'toBlock') } },
        { $set: { scannedTo: toLong(toBlock, 'toBlock') } },
        { session })
      return payTos
    })
  }

  async listPayments (filter: PaymentFilter, page: Page): Promise<PaymentPage> {
    const query = paymentFilter(filter)
    const [total, docs] = await Promise.all([
      this.#connection.payments.countDocuments(query),
      // limit(0) is "no limit" to MongoDB; a page of 0 is the count alone (SQLite's LIMIT 0).
      page.limit <= 0 ? [] : this.#connection.payments.find(query).sort(PAYMENT_ORDER).skip(page.offset).limit(page.limit).toArray()
    ])
    return { items: docs.map(fromPaymentDocument), total }
  }

  async summarizePayments (filter: PaymentFilter): Promise<PaymentSummary> {
    const [doc] = await this.#connection.payments.aggregate<SummaryDocument>(paymentSummaryPipeline(filter), { allowDiskUse: true }).toArray()
    return toPaymentSummary(doc)
  }

  async payTosOn (network: string): Promise<string[]> {
    return (await this.#connection.services.distinct('payToKey', { network: { $eq: network } })).sort()
  }

  async servicesByPayTo (network: string, payTo: string): Promise<ServiceRecord[]> {
    const docs = await this.#connection.services.find({ network: { $eq: network }, payToKey: { $eq: payToKey(payTo) } }).sort({ createdAt: 1, _id: 1 }).toArray()
    return docs.map(fromServiceDocument)
  }

  /** As recordProbe: the service read, the domain's rule applied and the update written in one transaction; a seq only when the listing changes. */
  async recordUsage (serviceId: string, usage: ServiceUsage): Promise<ServiceRecord | null> {
    const usageDoc = toUsageDocument(usage)
    return await this.#connection.transaction(async (session) => {
      const doc = await this.#connection.services.findOne({ _id: { $eq: serviceId } }, { session })
      if (doc === null) return null
      const before = fromServiceDocument(doc)
      const update = applyUsage(before, usage)
      await this.#connection.services.updateOne({ _id: { $eq: serviceId } }, {
        $set: {
          ...(usageChangesListing(before, update) ? { seq: toLong(await this.#connection.reserve(session, 1), 'seq') } : {}),
          trustScore: update.trustScore,
          usage: usageDoc
        }
      }, { session })
      return { ...before, ...update }
    })
  }
}
