/**
 * The list query: its schema (also the OpenAPI parameters) and its translation into the
 * store's typed filter, sort and page.
 */
import { patterned } from './validation.js'
import { Type, type Static } from '@sinclair/typebox'
import { ValidationError } from '../errors.js'
import { requireCategory } from './categories.js'
import { findCurrency, parseUpperBound } from './money.js'
import { canonicalNetwork } from './registration.js'
import { ServiceStatusEnum } from './service.js'
import { StringEnum } from './string-enum.js'
import { SORT_FIELDS, TESTNET_MODES, testnetFilter, type Page, type ServiceFilter, type ServiceSort, type SortField } from './catalog-query.js'

export const MAX_PAGE_SIZE = 100
export const DEFAULT_PAGE_SIZE = 20
export const MAX_OFFSET = 1_000_000

/** Default direction per sort field: cheapest, most trusted, A→Z, newest first. */
const DEFAULT_ORDER: ReadonlyMap<SortField, 'asc' | 'desc'> = new Map([['price', 'asc'], ['trustScore', 'desc'], ['name', 'asc'], ['createdAt', 'desc']])

/** A sort field in its usual direction (cheapest first for price). */
export function defaultSort (field: SortField): ServiceSort {
  return { field, order: DEFAULT_ORDER.get(field) ?? 'asc' }
}

/** Inclusive upper bound in USDC (a decimal string) as atomic units, or the reason it is not one. */
export function priceBound (value: string): { ok: true, atomic: number } | { ok: false, reason: string } {
  // Prices are USDC today; the bound is read in that currency's atomic units.
  return parseUpperBound(value, (findCurrency('USDC') as { decimals: number }).decimals)
}

/** A price bound as the API and the MCP tools take it, and the words that explain it. */
export const PRICE_PATTERN = '^\\d+(\\.\\d+)?$'
export const PRICE_WORDS = 'a decimal number such as 0.01'

export const TestnetSchema = StringEnum(TESTNET_MODES, { description: 'Listings on test networks (testnet: true): exclude (the default, unless chain or network names a test network), include, or only them' })

export const PageSizeSchema = Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: `Page size, at most ${MAX_PAGE_SIZE}` })

export const ListQueryProperties = {
  query: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Keyword search (typo-tolerant, Japanese and English); results rank by relevance unless sortBy is given' })),
  category: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Category id' })),
  chain: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Network: x402 name (base) or CAIP-2 id (eip155:8453)' })),
  network: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Another name for chain, the name export, discovery and MCP use; with both, they must name the same network' })),
  status: Type.Optional(ServiceStatusEnum),
  testnet: Type.Optional(TestnetSchema),
  maxPricePerRequest: Type.Optional(Type.String({ ...patterned(PRICE_PATTERN, PRICE_WORDS), maxLength: 40, description: 'Inclusive upper bound on pricing.pricePerRequest (USDC)' })),
  sortBy: Type.Optional(StringEnum(SORT_FIELDS, { description: 'Default: createdAt (newest first); relevance when searching' })),
  sortOrder: Type.Optional(StringEnum(['asc', 'desc'], { description: 'Default: asc for price and name, desc for trustScore and createdAt' })),
  limit: Type.Optional(PageSizeSchema),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0 }))
}

export const ListQuerySchema = Type.Object(ListQueryProperties, { additionalProperties: false })

/** For routes that take no query parameters: an unknown one is a 400 naming it, as everywhere else. */
export const NoQuerySchema = Type.Object({}, { additionalProperties: false })
export type ListQuery = Static<typeof ListQuerySchema>

export interface StoreQuery {
  /** Keyword search text, when given. */
  text: string | undefined
  filter: ServiceFilter
  /** Undefined when the client asked for no order (search then ranks by relevance). */
  sort: ServiceSort | undefined
  page: Page
}

export function toStoreQuery (query: ListQuery): StoreQuery {
  const filter: ServiceFilter = {}
  if (query.category !== undefined) filter.category = requireCategory('category', query.category)
  if (query.chain !== undefined) filter.chain = canonicalNetwork('chain', query.chain).id
  if (query.network !== undefined) {
    const network = canonicalNetwork('network', query.network).id
    if (filter.chain !== undefined && filter.chain !== network) throw new ValidationError('network', `names ${network} and chain names ${filter.chain}: give one of them`)
    filter.chain = network
  }
  if (query.status !== undefined) filter.status = query.status
  const testnet = testnetFilter(query.testnet, filter.chain)
  if (testnet !== undefined) filter.testnet = testnet
  if (query.maxPricePerRequest !== undefined) {
    const bound = priceBound(query.maxPricePerRequest)
    if (!bound.ok) throw new ValidationError('maxPricePerRequest', bound.reason)
    filter.maxPriceAtomic = bound.atomic
  }
  let sort: ServiceSort | undefined
  if (query.sortBy !== undefined) sort = { field: query.sortBy, order: query.sortOrder ?? DEFAULT_ORDER.get(query.sortBy) ?? 'asc' }
  else if (query.sortOrder !== undefined) throw new ValidationError('sortOrder', 'needs sortBy')
  if (query.query !== undefined && query.query.trim() === '') throw new ValidationError('query', 'must not be blank')
  return { text: query.query, filter, sort, page: { limit: query.limit ?? DEFAULT_PAGE_SIZE, offset: query.offset ?? 0 } }
}

export const DEFAULT_SORT: ServiceSort = { field: 'createdAt', order: 'desc' }
