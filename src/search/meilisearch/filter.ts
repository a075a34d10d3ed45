/**
 * The port's typed filter and sort as Meilisearch expressions. Strings are always quoted
 * and escaped, numbers always safe integers, attribute names constants: no value can change
 * the shape of the expression (`a" OR status = "x`, `TO`, `NOT` stay values).
 */
import type { ServiceFilter, ServiceSort, SortField } from '../../domain/catalog-query.js'
import { payToKey } from '../../domain/pay-to.js'

/** Meilisearch attribute behind each sort field. */
export const SORT_ATTRIBUTES: Record<SortField, string> = {
  price: 'priceAtomic',
  trustScore: 'trustScore',
  name: 'nameSort',
  createdAt: 'createdAt'
}

/**
 * A double-quoted filter value. Meilisearch's filter parser unescapes `\"` inside double
 * quotes, then reads backslash escapes (`\\`, `\n`, …) in the value: so every backslash is
 * doubled first, then every quote escaped.
 */
export function quoteFilterValue (value: string): string {
  return `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
}

function integer (value: number, field: string): string {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${field} must be a safe integer, got ${value}`)
  return String(value)
}

/** The filter expression, or undefined when nothing is filtered. */
export function buildFilter (filter: ServiceFilter): string | undefined {
  const conditions: string[] = []
  if (filter.category !== undefined) conditions.push(`category = ${quoteFilterValue(filter.category)}`)
  if (filter.status !== undefined) conditions.push(`status = ${quoteFilterValue(filter.status)}`)
  // `networks` is an array: equality matches a document listing the chain anywhere in it.
  if (filter.chain !== undefined) conditions.push(`networks = ${quoteFilterValue(filter.chain)}`)
  if (filter.maxPriceAtomic !== undefined) conditions.push(`priceAtomic <= ${integer(filter.maxPriceAtomic, 'maxPriceAtomic')}`)
  if (filter.payTo !== undefined) conditions.push(`payTo = ${quoteFilterValue(payToKey(filter.payTo))}`)
  // `extensions` is an array, like `networks`.
  if (filter.extension !== undefined) conditions.push(`extensions = ${quoteFilterValue(filter.extension)}`)
  // `!=` also admits a document without the field (indexed before it): a real listing until reindexed.
  if (filter.testnet !== undefined) conditions.push(`testnet ${filter.testnet ? '=' : '!='} true`)
  return conditions.length === 0 ? undefined : conditions.join(' AND ')
}

/** `id IN [...]`, for reading back the indexed sequence of a batch's documents. */
export function idsFilter (ids: readonly string[]): string {
  return `id IN [${ids.map(quoteFilterValue).join(', ')}]`
}

/** The explicit order, then the id in the same direction (stable paging, as the store does). */
export function buildSort (sort: ServiceSort | undefined): string[] | undefined {
  if (sort === undefined) return undefined
  return [`${SORT_ATTRIBUTES[sort.field]}:${sort.order}`, `id:${sort.order}`]
}
