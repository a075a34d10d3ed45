/**
 * The store port's typed filter, sort and page as MongoDB query parts. Values are placed
 * in the query as values (never parsed from text), so `category[$ne]=x`-style input cannot
 * become an operator: the routes refuse it anyway, and here a string stays a string.
 */
import type { Decimal128, Document, Filter, Long, Sort } from 'mongodb'
import { TEST_NETWORK_IDS } from '../../domain/networks.js'
import { payToKey } from '../../domain/pay-to.js'
import type { CatalogFilter, ServiceSort } from '../../domain/catalog-query.js'
import type { PaymentFilter, PaymentSummary } from '../../domain/payment.js'
import type { PaymentDocument, ServiceDocument } from './mapping.js'
import { EQUALITY_FILTER_KEYS, EXTENSION_FIELDS, SORT_KEYS } from './schema.js'
import { fromAtomicDecimal, fromLong, toAmountLong, toLong } from './mapping.js'

/**
 * isTestListing as an expression: none of the document's chains is outside the test networks
 * (the validator keeps at least one). An expression, not an operator on supportedChains, so
 * the planner never takes the multikey chain index for it and keeps walking a sort index.
 */
const TEST_LISTING = { $eq: [{ $size: { $setDifference: [`$${EQUALITY_FILTER_KEYS.chain}`, { $literal: TEST_NETWORK_IDS }] } }, 0] }

export function serviceFilter (filter: CatalogFilter): Filter<ServiceDocument> {
  const query: Record<string, unknown> = {}
  if (filter.category !== undefined) query[EQUALITY_FILTER_KEYS.category] = { $eq: filter.category }
  if (filter.status !== undefined) query[EQUALITY_FILTER_KEYS.status] = { $eq: filter.status }
  // An equality on an array field matches documents listing the chain anywhere in it.
  if (filter.chain !== undefined) query[EQUALITY_FILTER_KEYS.chain] = { $eq: filter.chain }
  if (filter.maxPriceAtomic !== undefined) query.priceAtomic = { $lte: toLong(filter.maxPriceAtomic, 'maxPriceAtomic') }
  // EVM addresses compare case-insensitively: each document keeps payToKey(paymentAddress), compared exactly.
  if (filter.payTo !== undefined) query.payToKey = { $eq: payToKey(filter.payTo) }
  // The partial index bazaar_trustScore_id serves this (its filter expression is the same).
  if (filter.extension !== undefined) query[EXTENSION_FIELDS[filter.extension]] = { $exists: true }
  if (filter.testnet !== undefined) query.$expr = filter.testnet ? TEST_LISTING : { $not: [TEST_LISTING] }
  return query as Filter<ServiceDocument>
}

/** The sort field, then `_id` in the same direction, so a descending walk is the exact reverse. */
export function serviceSort (sort: ServiceSort): Sort {
  const direction = sort.order === 'asc' ? 1 : -1
  return { [SORT_KEYS[sort.field]]: direction, _id: direction }
}

/** A payment filter as a query on the payments collection (index network_payTo_blockNumber_logIndex). */
export function paymentFilter (filter: PaymentFilter): Filter<PaymentDocument> {
  // Payments keep payTo as payToKey: a checksum-cased EVM address finds them too.
  const query: Record<string, unknown> = { network: { $eq: filter.network }, payTo: { $eq: payToKey(filter.payTo) } }
  if (filter.since !== undefined) {
    const since = new Date(filter.since)
    if (Number.isNaN(since.getTime())) throw new RangeError(`since is not a date: ${filter.since}`)
    query.at = { $gte: since }
  }
  const amount: Record<string, unknown> = {}
  if (filter.amount !== undefined) amount.$eq = toAmountLong(filter.amount, 'amount')
  if (filter.excludeAmounts !== undefined && filter.excludeAmounts.length > 0) {
    amount.$nin = filter.excludeAmounts.map((excluded) => toAmountLong(excluded, 'excludeAmounts'))
  }
  if (Object.keys(amount).length > 0) query.amount = amount
  return query as Filter<PaymentDocument>
}

/** listPayments' order: newest first, as the index stores it. */
export const PAYMENT_ORDER: Sort = { blockNumber: -1, logIndex: -1 }

/**
 * summarizePayments as an aggregation. Two groups: first one entry per payer (its count,
 * total and newest time), then one over those. A single group with $addToSet would build
 * the set of payers inside one document (16 MB at most); grouping by payer first keeps one
 * small entry per payer, which the server spills to disk past 100 MB (allowDiskUse).
 * Amounts are summed as Decimal128 ($toDecimal): an Int64 $sum past 2^63 turns into a
 * double and loses units; 34 exact digits cannot overflow from Int64 amounts.
 */
export function paymentSummaryPipeline (filter: PaymentFilter): Document[] {
  return [
    { $match: paymentFilter(filter) },
    { $group: { _id: '$payer', count: { $sum: 1 }, total: { $sum: { $toDecimal: '$amount' } }, lastAt: { $max: '$at' } } },
    { $group: { _id: null, count: { $sum: '$count' }, total: { $sum: '$total' }, uniquePayers: { $sum: 1 }, lastAt: { $max: '$lastAt' } } }
  ]
}

/** What paymentSummaryPipeline answers: one document, or none when nothing matched. */
export interface SummaryDocument {
  count: number | Long
  total: Decimal128
  uniquePayers: number | Long
  lastAt: Date | null
}

export function toPaymentSummary (doc: SummaryDocument | undefined): PaymentSummary {
  if (doc === undefined) return { count: 0, totalAtomic: '0', uniquePayers: 0, lastAt: null }
  return {
    count: fromLong(doc.count, 'count'),
    totalAtomic: fromAtomicDecimal(doc.total, 'totalAtomic'),
    uniquePayers: fromLong(doc.uniquePayers, 'uniquePayers'),
    lastAt: doc.lastAt === null ? null : doc.lastAt.toISOString()
  }
}
