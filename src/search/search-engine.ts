/**
 * The SearchEngine port. Documents arrive pre-analyzed (kuromoji terms, readings,
 * bigrams) and with the filterable fields; queries are typed objects. Only adapters
 * speak SQL or Meilisearch filter strings.
 */
import type { IndexedTerm, QueryWord } from './analysis/analyzer.js'
import type { Page, ServiceFilter, ServiceSort } from '../domain/catalog-query.js'
import type { ServiceStatus } from '../domain/trust.js'

/** Searchable attributes, most important first (Meilisearch's searchableAttributes order). */
export const SEARCH_ATTRIBUTES = ['name', 'category', 'description'] as const
export type SearchAttribute = typeof SEARCH_ATTRIBUTES[number]

export interface SearchDocument {
  id: string
  /** Change-feed sequence of the service state this document mirrors. */
  seq: number
  category: string
  status: ServiceStatus
  chains: string[]
  priceAtomic: number
  trustScore: number
  nameSort: string
  createdAt: string
  /** Raw text per attribute (for engines that analyze themselves). */
  text: Record<SearchAttribute, string>
  /** Analyzed terms per attribute: normalized words, base forms, readings, bigrams. */
  terms: Record<SearchAttribute, IndexedTerm[]>
}

export const FACET_FIELDS = ['category', 'status', 'network'] as const
export type FacetField = typeof FACET_FIELDS[number]
export type FacetDistribution = Partial<Record<FacetField, Record<string, number>>>

export interface SearchQuery {
  words: QueryWord[]
  filter: ServiceFilter
  /** Explicit order; relevance when undefined. */
  sort?: ServiceSort
  page: Page
  /** Match the last word as a prefix (search-as-you-type); off for whole sentences. */
  prefixLastWord: boolean
  /**
   * Count the matches per value of these fields (Meilisearch's facetDistribution): over every
   * match of the words, after the filter, not just the page. 'network' counts each of a
   * service's chains (CAIP-2 ids).
   */
  facets?: readonly FacetField[]
}

/** How a query word met the document. */
export type MatchKind = 'exact' | 'reading' | 'synonym' | 'prefix' | 'typo' | 'bigram'

export interface MatchedToken {
  /** The query word as analyzed. */
  word: string
  /** The indexed term it matched. */
  term: string
  attribute: SearchAttribute
  kind: MatchKind
  typos: number
}

export interface SearchHit {
  id: string
  /** Relevance in [0, 1], consistent with the ranking order. */
  score: number
  matchedTokens: MatchedToken[]
}

export interface SearchResult {
  total: number
  hits: SearchHit[]
  /** Present when the query asked for facets: one entry per asked field (values with 0 omitted). */
  facetDistribution?: FacetDistribution
}

export interface IndexStats {
  documents: number
  /** Highest change-feed sequence applied. */
  checkpoint: number
}

export interface SearchEngine {
  /**
   * Upserts documents (a document older than the indexed one is ignored), removes the services
   * whose ids are in `removedIds` (unknown ids are ignored), and advances the checkpoint, all
   * atomically. Replaying the same call is harmless.
   */
  apply (documents: readonly SearchDocument[], checkpoint: number, removedIds?: readonly string[]): Promise<void>
  /**
   * Builds a complete new index from `batches` while searches keep answering from the
   * current one, then swaps to it atomically with the given checkpoint.
   */
  rebuild (batches: AsyncIterable<readonly SearchDocument[]>, checkpoint: number): Promise<void>
  search (query: SearchQuery): Promise<SearchResult>
  /** An opaque token that changes whenever search results may change (documents applied, index swapped). */
  version (): Promise<string>
  /** Highest change-feed sequence applied (cheap: the indexer polls it). */
  checkpoint (): Promise<number>
  stats (): Promise<IndexStats>
  close (): Promise<void>
}
