/**
 * The store port's typed filter, sort and page as MongoDB query parts. Values are placed
 * in the query as values (never parsed from text), so `category[$ne]=x`-style input cannot
 * become an operator: the routes refuse it anyway, and here a string stays a string.
 */
import { Long, type Filter, type Sort } from 'mongodb'
import { payToKey } from '../../domain/pay-to.js'
import type { CatalogFilter, ServiceSort } from '../../domain/catalog-query.js'
import type { ServiceDocument } from './mapping.js'
import { EQUALITY_FILTER_KEYS, SORT_KEYS } from './schema.js'
import { toLong } from './mapping.js'

export function serviceFilter (filter: CatalogFilter): Filter<ServiceDocument> {
  const query: Record<string, unknown> = {}
  if (filter.category !== undefined) query[EQUALITY_FILTER_KEYS.category] = { $eq: filter.category }
  if (filter.status !== undefined) query[EQUALITY_FILTER_KEYS.status] = { $eq: filter.status }
  // An equality on an array field matches documents listing the chain anywhere in it.
  if (filter.chain !== undefined) query[EQUALITY_FILTER_KEYS.chain] = { $eq: filter.chain }
  if (filter.maxPriceAtomic !== undefined) query.priceAtomic = { $lte: toLong(filter.maxPriceAtomic, 'maxPriceAtomic') }
  if (filter.payTo !== undefined) {
    const key = payToKey(filter.payTo)
    // EVM addresses compare case-insensitively (payToKey): an anchored, escaped, case-insensitive match.
    query.paymentAddress = key.startsWith('0x')
      ? { $regex: `^${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, $options: 'i' }
      : { $eq: key }
  }
  return query as Filter<ServiceDocument>
}

/** The sort field, then `_id` in the same direction, so a descending walk is the exact reverse. */
export function serviceSort (sort: ServiceSort): Sort {
  const direction = sort.order === 'asc' ? 1 : -1
  return { [SORT_KEYS[sort.field]]: direction, _id: direction }
}

/** Changes after a sequence number, for the feed. */
export function afterSeq (seq: number): { seq: { $gt: Long } } {
  return { seq: { $gt: toLong(seq, 'afterSeq') } }
}
