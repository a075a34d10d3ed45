/**
 * The typed query vocabulary shared by the store and search ports: filters, sorts and
 * pages. Domain types, so the domain (service-query.ts) depends on nothing above it;
 * adapters translate them into their engine's query language.
 */
import type { ServiceStatus } from './trust.js'

export interface ServiceFilter {
  category?: string
  /** CAIP-2 id; matches services listing it in supportedChains. */
  chain?: string
  status?: ServiceStatus
  /** Inclusive upper bound on the price, in atomic units. */
  maxPriceAtomic?: number
  /** Registered payment address; compared by payToKey (EVM case-insensitively, others exactly). */
  payTo?: string
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
