/**
 * The typed query vocabulary shared by the store and search ports: filters, sorts and
 * pages. Domain types, so the domain (service-query.ts) depends on nothing above it;
 * adapters translate them into their engine's query language.
 */
import { isTestNetwork } from './networks.js'
import type { ServiceStatus } from './trust.js'

/**
 * x402 extension keys a resource can be filtered on (`?extensions=` of the Bazaar routes):
 * only the Bazaar discovery extension, the one declaration the catalog keeps.
 */
export const EXTENSION_KEYS = ['bazaar'] as const
export type ExtensionKey = typeof EXTENSION_KEYS[number]

export function isExtensionKey (key: string): key is ExtensionKey {
  return (EXTENSION_KEYS as readonly string[]).includes(key)
}

/** An extension's bit in a mask of declared extensions (in-memory columns, the embedded index). */
export function extensionBit (key: ExtensionKey): number {
  return 1 << EXTENSION_KEYS.indexOf(key)
}

/** The mask of a set of declared extensions. */
export function extensionMask (keys: readonly ExtensionKey[]): number {
  return keys.reduce((mask, key) => mask | extensionBit(key), 0)
}

export interface ServiceFilter {
  category?: string
  /** CAIP-2 id; matches services listing it in supportedChains. */
  chain?: string
  status?: ServiceStatus
  /** Inclusive upper bound on the price, in atomic units. */
  maxPriceAtomic?: number
  /** Registered payment address; compared by payToKey (EVM case-insensitively, others exactly). */
  payTo?: string
  /** Only services whose endpoint declares this x402 extension (src/domain/call-schema.ts declaredExtensions). */
  extension?: ExtensionKey
  /** Only test-network listings (true) or only the others (false), as isTestListing (src/domain/networks.ts) reads supportedChains; absent: both. */
  testnet?: boolean
}

/**
 * How a list treats test-network listings (`testnet=`): `exclude` (the default) leaves them
 * out, `include` lists them beside the others, `only` lists nothing else.
 */
export const TESTNET_MODES = ['exclude', 'include', 'only'] as const
export type TestnetMode = typeof TESTNET_MODES[number]

/**
 * The filter's `testnet` for a list asked with `mode` (absent: exclude) on `chain`. Mirrored
 * lists mix test networks with real ones, and a test listing takes no real money, so lists
 * leave them out unless asked; a chain filter naming a test network asks for them.
 */
export function testnetFilter (mode: TestnetMode | undefined, chain: string | undefined): boolean | undefined {
  if (mode === 'only') return true
  if (mode === 'include' || (chain !== undefined && isTestNetwork(chain))) return undefined
  return false
}

/**
 * The store's name for the same filter. The search engines filter on payTo too, so a search
 * narrowed to one address pages and counts only that address's services.
 */
export type CatalogFilter = ServiceFilter

export const SORT_FIELDS = ['price', 'trustScore', 'name', 'createdAt'] as const
export type SortField = typeof SORT_FIELDS[number]
export type SortOrder = 'asc' | 'desc'

export interface ServiceSort {
  field: SortField
  order: SortOrder
}

export interface Page {
  limit: number
  offset: number
}
