/**
 * The SearchEngine port: a search index mirroring the CatalogStore, fed by the indexer
 * (indexer/) from the store's change feed and queried by the API. Documents arrive with
 * their raw text and its analyzed terms (DocumentTerm) beside the filter and sort fields;
 * queries arrive as analyzed words (QueryWord) plus typed filter, sort and page
 * (src/domain/catalog-query.ts). The types here are the whole contract: the catalog's
 * analyzer (src/search/analysis/) produces them, and an adapter needs nothing of it to use
 * them. An adapter translates them into its engine's query language and keeps that
 * language to itself.
 *
 * The index is derived data: it may lag the store and can always be rebuilt from it.
 * What every adapter promises (test/contract/search-engine.contract.ts checks it):
 * - The checkpoint is the change-feed sequence number (see CatalogStore) up to which the
 *   index holds every change. It is stored with the index and advances only once the
 *   changes before it are durably applied, so a crash or kill at any point resumes from a
 *   checkpoint whose changes are all in (some later ones may be too; see apply).
 * - Writes may be asynchronous inside the engine; a method resolves only after the engine
 *   confirmed them, and rejects when it did not.
 * - Sequence numbers are compared, never counted (they are not dense).
 */
import type { ExtensionKey, Page, ServiceFilter, ServiceSort } from '../domain/catalog-query.js'
import type { ServiceStatus } from '../domain/trust.js'

/** Searchable attributes, most important first: a match in an earlier one ranks higher. */
export const SEARCH_ATTRIBUTES = ['name', 'category', 'description'] as const
export type SearchAttribute = typeof SEARCH_ATTRIBUTES[number]

/**
 * One term of a document attribute's analyzed text, in the normalized form query words are
 * compared in. Terms sharing a position are alternative forms of one word of the text (as
 * written, dictionary form, reading, ...): a query word matching any of them matches that
 * word, and positions give word order and proximity.
 */
export interface DocumentTerm {
  term: string
  /** Index of the word in the attribute's text (0 for the first). */
  position: number
  /**
   * A piece of a word rather than a word (e.g. two characters of a long Japanese compound,
   * which has no spaces): it lets a query word find a longer word containing it, ranks as
   * a partial match, and is not a word of its own (no typo or prefix expansion to it).
   */
  fragment?: true
}

/** One word of the query as analyzed: what the user typed, normalized, and its equivalent spellings. */
export interface QueryWord {
  /** The word (for an inflected word, its dictionary form). Typo and prefix matching start from it. */
  text: string
  /**
   * Exact alternatives, `text` first: other spellings of the same word the analysis knows
   * (katakana for hiragana, a reading, the form as typed). A document term equal to one of
   * them is a match of kind 'exact' (text) or 'alternative' (the others).
   */
  forms: string[]
  /**
   * Other spellings the analysis reads the word as, searched at lower weight than `forms`
   * (docs/search.md, "Romaji and kana slips"). Engines match an expansion form like a form
   * of the word, but rank it as the expansion's kind says: a 'romaji' reading with 0 typos
   * as MatchKind 'romaji' (below 'exact' and 'alternative'), any expansion with typos as a
   * 'typo' match with that count. Absent when there are none.
   */
  expansions?: QueryExpansion[]
}

/**
 * A spelling of a query word in another script or one slip away: 'romaji' (a Latin word
 * read as Japanese: tenki → てんき) or 'slip' (a kana word with a small-kana or voiced-mark
 * slip: ほにゃく → ほんやく).
 */
export interface QueryExpansion {
  kind: 'romaji' | 'slip'
  /** Its spellings: hiragana first, then katakana (the form readings are indexed in). */
  forms: string[]
  /** What matching it costs: 0 for a reading of the word as typed, 1 for a slip. */
  typos: number
}

/** One service as the index holds it (built by indexer/search-document.ts). */
export interface SearchDocument {
  id: string
  /** Change-feed sequence number of the service state this document mirrors: a newer document has a higher one. */
  seq: number
  category: string
  status: ServiceStatus
  chains: string[]
  /** priceSortKey of the price (src/domain/sort-keys.ts): a dynamic price is above every fixed one. */
  priceAtomic: number
  trustScore: number
  nameSort: string
  createdAt: string
  /** payToKey of the payment address: engines compare it with payToKey(filter.payTo). */
  payTo: string
  /** x402 extensions the endpoint declares (declaredExtensions): the extension filter. */
  extensions: ExtensionKey[]
  /** Raw text per attribute (for engines that analyze themselves). */
  text: Record<SearchAttribute, string>
  /** Analyzed terms per attribute (see DocumentTerm). */
  terms: Record<SearchAttribute, DocumentTerm[]>
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
   * Count the matches per value of these fields: over every match of the words, after the
   * filter, not just the page. 'network' counts each of a service's chains (CAIP-2 ids).
   * Counts are exact when `totalExact` is; they share its caveat otherwise.
   */
  facets?: readonly FacetField[]
}

/**
 * How a query word met the document: 'exact' (the word itself), 'alternative' (one of its
 * other QueryWord.forms), 'wordForm' (another form of an English word: analysis → analyze), 'romaji' (a romaji reading from QueryWord.expansions), 'synonym' (a synonym of it), 'prefix' (the last word began a
 * longer term), 'typo' (within the typo budget, see match-rules.ts), 'fragment' (part of a
 * word met part of the other, e.g. a DocumentTerm fragment). MATCH_EXACTNESS orders them.
 * An engine that cannot tell how a match was made (only where) reports the kind it can
 * infer from the matched text; see MatchedToken.
 */
export type MatchKind = 'exact' | 'alternative' | 'wordForm' | 'romaji' | 'synonym' | 'prefix' | 'typo' | 'fragment'

/**
 * Why a hit matched, per query word: the API builds `matchedTokens` and the `reason` line
 * from these. Engines report what they know: an engine that plans each term itself reports
 * exactly which form matched; one that only returns match positions reconstructs the kind
 * from the matched text, which may be coarser (docs/search.md lists the differences).
 */
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
  /** Relevance in [0, 1], consistent with the ranking order of a relevance query (not comparable across engines). */
  score: number
  matchedTokens: MatchedToken[]
}

export interface SearchResult {
  /**
   * Matches after the filter, across all pages: exact or an estimate, as `totalExact` says
   * (the API passes both on). Paging past it yields an empty page, never an error.
   */
  total: number
  /** Whether `total` is the exact count (the embedded engine) or the engine's estimate (Meilisearch's estimatedTotalHits). */
  totalExact: boolean
  /** The requested page of hits, in relevance order or the requested sort. */
  hits: SearchHit[]
  /** Present when the query asked for facets: one entry per asked field (values with 0 omitted). */
  facetDistribution?: FacetDistribution
}

export interface IndexStats {
  /** Services in the index (bookkeeping records such as a stored checkpoint not counted). */
  documents: number
  /** The checkpoint (see SearchEngine.checkpoint). */
  checkpoint: number
}

export interface SearchEngine {
  /**
   * Applies one slice of the change feed: upserts `documents` whole (replacing the indexed
   * document of the same id), removes the services whose ids are in `removedIds`, and raises
   * the checkpoint to `checkpoint` (never lowers it). Guarantees:
   * - Idempotent and replay-tolerant: applying the same call twice, or an older slice after a
   *   newer one, leaves the index as after the newest: a document whose `seq` is lower than
   *   the indexed one's is ignored; removing an unknown id does nothing.
   * - The checkpoint moves only with its changes: once the new checkpoint is readable, every
   *   document and removal of the call is searchable. Adapters whose engine cannot write all
   *   of it in one atomic step write the checkpoint last, so a crash in between leaves the
   *   old checkpoint and the indexer replays the slice.
   * - An id appears at most once across `documents` and `removedIds` (the feed gives each
   *   service's latest state once).
   */
  apply (documents: readonly SearchDocument[], checkpoint: number, removedIds?: readonly string[]): Promise<void>
  /**
   * Replaces the whole index: builds a new one aside from `batches` (every live service, no
   * tombstones) while searches keep answering from the current one, then swaps it in
   * atomically together with `checkpoint` (which may be lower than the current one: the
   * indexer replays from there). A search sees the old index or the new one, never a
   * partial one; a failure before the swap leaves the current index and checkpoint as they
   * were and discards the partial build.
   */
  rebuild (batches: AsyncIterable<readonly SearchDocument[]>, checkpoint: number): Promise<void>
  /**
   * Services matching the query words (typo-tolerant, readings and synonyms included, the
   * last word as a prefix when asked), after the filter; ranked by relevance unless a sort
   * is given. Documents matching every word rank above partial matches; whether a document
   * matching only some words is returned is the engine's choice (docs/search.md says each
   * one's). No words give no hits, not an error. Throws SearchUnavailableError when the
   * engine cannot answer.
   */
  search (query: SearchQuery): Promise<SearchResult>
  /**
   * An opaque token that changes whenever search results may change (documents applied,
   * index swapped). Callers compare it for equality only (result caches key on it).
   */
  version (): Promise<string>
  /** The highest change-feed sequence number whose changes are all in the index; 0 for an empty index. Cheap: the indexer polls it. */
  checkpoint (): Promise<number>
  stats (): Promise<IndexStats>
  /** Releases connections, threads or files; the engine is unusable afterwards. */
  close (): Promise<void>
}
