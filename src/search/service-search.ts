/**
 * The search application: the one entry routes and MCP call. It analyzes the user's text
 * with the catalog's analyzer, asks the engine (the port), and reads the hits' services
 * from the authoritative store, in rank order. Callers never see analysis internals.
 */
import type { Page, ServiceFilter, ServiceSort } from '../domain/catalog-query.js'
import { toService, type Service, type ServiceRecord } from '../domain/service.js'
import type { CatalogStore } from '../store/catalog-store.js'
import { analyzeIntent, splitQueryWords, type QueryLanguage } from './analysis/analyzer.js'
import { isJapanese, normalizeText } from './analysis/normalize.js'
import type { JapaneseTokenizer } from './analysis/tokenizer.js'
import { explainMatch } from './reason.js'
import { FACET_FIELDS, type FacetDistribution, type FacetField, type QueryWord, type SearchEngine, type SearchHit } from './search-engine.js'

/** Longest accepted query, in characters. */
export const MAX_QUERY_LENGTH = 200

export interface SearchDeps {
  engine: SearchEngine
  store: CatalogStore
  tokenizer: JapaneseTokenizer
}

/**
 * How to read the text: 'keywords' splits it on whitespace and punctuation and matches the
 * last word as a prefix (search-as-you-type); 'intent' reads a request in Japanese or
 * English ("東京の天気を知りたい") and keeps only the words naming what is wanted.
 */
export type QueryStyle = 'keywords' | 'intent'

export interface ServiceSearchRequest {
  text: string
  style: QueryStyle
  filter: ServiceFilter
  /** Explicit order; relevance when undefined. */
  sort?: ServiceSort | undefined
  page: Page
  facets?: readonly FacetField[] | undefined
}

export interface ServiceHit extends SearchHit {
  service: Service
  /** The store's record, for callers that show more than the public service (uptime, …). */
  record: ServiceRecord
  /** Why it matched: one sentence in the query's language. */
  reason: string
}

export interface ServiceSearchResult {
  /** The words searched for, as analyzed. */
  words: string[]
  total: number
  /** Whether total is exact or the engine's estimate (SearchResult.totalExact). */
  totalExact: boolean
  hits: ServiceHit[]
  facetDistribution?: FacetDistribution
}

function analyze (text: string, style: QueryStyle, tokenizer: JapaneseTokenizer): { words: QueryWord[], language: QueryLanguage } {
  if (style === 'keywords') return { words: splitQueryWords(text), language: isJapanese(normalizeText(text)) ? 'ja' : 'en' }
  const intent = analyzeIntent(text, tokenizer)
  // Nothing kuromoji would keep: search the text's words rather than nothing.
  return { words: intent.tokens.length > 0 ? intent.tokens : splitQueryWords(text), language: intent.language }
}

export async function searchServices (deps: SearchDeps, request: ServiceSearchRequest): Promise<ServiceSearchResult> {
  const { words, language } = analyze(request.text, request.style, deps.tokenizer)
  const texts = words.map((word) => word.text)
  const { facets } = request
  if (words.length === 0) {
    const empty = { words: texts, total: 0, totalExact: true, hits: [] }
    return facets === undefined ? empty : { ...empty, facetDistribution: Object.fromEntries(FACET_FIELDS.filter((f) => facets.includes(f)).map((f) => [f, {}])) }
  }
  const result = await deps.engine.search({
    words,
    filter: request.filter,
    ...(request.sort === undefined ? {} : { sort: request.sort }),
    page: request.page,
    prefixLastWord: request.style === 'keywords',
    ...(facets === undefined ? {} : { facets })
  })
  const records = new Map((await deps.store.getServices(result.hits.map((hit) => hit.id))).map((r) => [r.id, r]))
  const hits = result.hits.flatMap((hit) => {
    const record = records.get(hit.id)
    return record === undefined ? [] : [{ ...hit, service: toService(record), record, reason: explainMatch(hit.matchedTokens, language) }]
  })
  const { total, totalExact, facetDistribution } = result
  return facetDistribution === undefined ? { words: texts, total, totalExact, hits } : { words: texts, total, totalExact, hits, facetDistribution }
}
