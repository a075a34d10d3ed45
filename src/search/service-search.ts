/**
 * The search application: the one entry routes and MCP call. It analyzes the user's text
 * with the catalog's analyzer, asks the engine (the port), and reads the hits' services
 * from the authoritative store, in rank order. Callers never see analysis internals.
 */
import { testnetFilter, type Page, type ServiceFilter, type ServiceSort } from '../domain/catalog-query.js'
import { defaultSort, priceBound } from '../domain/service-query.js'
import { toService, toServiceJson, type Service, type ServiceRecord } from '../domain/service.js'
import type { CatalogStore, ServiceJsonItem } from '../store/catalog-store.js'
import { analyzeIntent, ENGLISH_FILLER_WORDS, JAPANESE_FILLER_WORDS, splitQueryWords, type QueryLanguage } from './analysis/analyzer.js'
import { isJapanese, normalizeText } from './analysis/normalize.js'
import type { JapaneseTokenizer } from './analysis/tokenizer.js'
import { parseConstraints, type ParsedFilters } from './constraints.js'
import { explainMatch } from './reason.js'
import { FACET_FIELDS, type FacetDistribution, type FacetField, type MatchedToken, type QueryWord, type SearchEngine, type SearchHit } from './search-engine.js'

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
  /**
   * Read constraints from the text (src/search/constraints.ts: "under $0.01", "cheap",
   * "on solana", "検証済み") and apply them; `filter` and `sort` are the explicit ones and win.
   */
  parseConstraints?: boolean
}

export interface ServiceHit extends SearchHit {
  service: Service
  /** The store's record, for callers that show more than the public service (uptime, …). */
  record: ServiceRecord
  /** Why it matched: one sentence in the query's language. */
  reason: string
}

/** A hit as the search routes send it: the service as its stored JSON (toServiceJson, UTF-8), no record read. */
export interface ServiceJsonHit extends SearchHit {
  serviceJson: Uint8Array
  uptimeScore: number | null
  /** Why it matched: one sentence in the query's language. */
  reason: string
}

export interface SearchResultOf<Hit> {
  /** The words searched for, as analyzed. */
  words: string[]
  total: number
  /** Whether total is exact or the engine's estimate (SearchResult.totalExact). */
  totalExact: boolean
  hits: Hit[]
  facetDistribution?: FacetDistribution
  /** With parseConstraints: what the text asked for and was applied, and the phrases taken out of it. */
  understood?: Understood
}

export interface Understood {
  /** The parsed constraints applied (one an explicit parameter overrode is left out). */
  filters: ParsedFilters
  /** The phrases taken out of the text, in order. */
  removed: string[]
}

export type ServiceSearchResult = SearchResultOf<ServiceHit>
export type ServiceJsonSearchResult = SearchResultOf<ServiceJsonHit>

/** How a search reads its hits' services from the store, and what it makes of each. */
interface Hydration<Item extends { id: string }, Hit> {
  /** The services with these ids that exist, in the order of `ids`. */
  read: (store: CatalogStore, ids: readonly string[]) => Promise<Item[]>
  /** A listed record as `read` would have given it (a search without words lists records). */
  fromRecord: (record: ServiceRecord) => Item
  /** `reason` makes the hit's sentence (explainMatch), for hits that are asked it. */
  hit: (hit: SearchHit, item: Item, reason: () => string) => Hit
}

const RECORDS: Hydration<ServiceRecord, ServiceHit> = {
  read: async (store, ids) => await store.getServices(ids),
  fromRecord: (record) => record,
  hit: (hit, record, reason) => ({ id: hit.id, score: hit.score, matchedTokens: hit.matchedTokens, service: toService(record), record, reason: reason() })
}

/**
 * A hit of searchServiceJson. Its reason is made when read: the intent answer sends it, the
 * catalog answer does not (making it took ~4.5 µs of the API's thread for 20 hits). Fields
 * named, not spread: a spread plus more properties took ~2.3 µs a hit against ~0.12 (4 % of
 * the API thread under a search load).
 */
class JsonHit implements ServiceJsonHit {
  readonly id: string
  readonly score: number
  readonly matchedTokens: MatchedToken[]
  readonly serviceJson: Uint8Array
  readonly uptimeScore: number | null
  readonly #reason: () => string

  constructor (hit: SearchHit, item: ServiceJsonItem, reason: () => string) {
    this.id = hit.id
    this.score = hit.score
    this.matchedTokens = hit.matchedTokens
    this.serviceJson = item.json
    this.uptimeScore = item.uptimeScore
    this.#reason = reason
  }

  get reason (): string { return this.#reason() }
}

const SERVICE_JSON: Hydration<ServiceJsonItem, ServiceJsonHit> = {
  read: async (store, ids) => await store.getServiceJson(ids),
  fromRecord: (record) => ({ id: record.id, json: Buffer.from(toServiceJson(record)), uptimeScore: record.uptimeScore }),
  hit: (hit, item, reason) => new JsonHit(hit, item, reason)
}

/** The explicit filter and sort, completed by the parsed ones they leave open. */
function withParsed (request: ServiceSearchRequest, parsed: ParsedFilters): { filter: ServiceFilter, sort: ServiceSort | undefined, applied: ParsedFilters } {
  const filter = { ...request.filter }
  const applied: ParsedFilters = {}
  if (parsed.maxPricePerRequest !== undefined && filter.maxPriceAtomic === undefined) {
    const bound = priceBound(parsed.maxPricePerRequest)
    if (bound.ok) {
      filter.maxPriceAtomic = bound.atomic
      applied.maxPricePerRequest = parsed.maxPricePerRequest
    }
  }
  if (parsed.chain !== undefined && filter.chain === undefined) {
    filter.chain = applied.chain = parsed.chain
    // "on base sepolia" asks for a test network as chain= does: the default exclusion no longer applies.
    if (filter.testnet === false && testnetFilter('exclude', filter.chain) === undefined) delete filter.testnet
  }
  if (parsed.status !== undefined && filter.status === undefined) filter.status = applied.status = parsed.status
  let sort = request.sort
  if (parsed.sortBy !== undefined && sort === undefined) {
    sort = defaultSort(parsed.sortBy)
    applied.sortBy = parsed.sortBy
  }
  return { filter, sort, applied }
}

const FILLERS = new Set([...ENGLISH_FILLER_WORDS, ...JAPANESE_FILLER_WORDS])

function analyze (text: string, style: QueryStyle, tokenizer: JapaneseTokenizer): { words: QueryWord[], language: QueryLanguage } {
  if (style === 'keywords') return { words: splitQueryWords(text), language: isJapanese(normalizeText(text)) ? 'ja' : 'en' }
  const intent = analyzeIntent(text, tokenizer)
  // Nothing kuromoji would keep: search the text's words rather than nothing.
  return { words: intent.tokens.length > 0 ? intent.tokens : splitQueryWords(text), language: intent.language }
}

/**
 * Searches the text; with parseConstraints, reads the constraints out of it first. Empty text
 * (the search page before anything is typed), or text of constraints only, lists the services
 * the filters admit instead: most trusted first unless a sort is asked.
 */
export async function searchServices (deps: SearchDeps, given: ServiceSearchRequest): Promise<ServiceSearchResult> {
  return await run(deps, given, RECORDS)
}

/**
 * searchServices, with each hit's service as the JSON text the store keeps (the bytes an API
 * answer sends) and its uptime, instead of the whole record: what the search routes show.
 */
export async function searchServiceJson (deps: SearchDeps, given: ServiceSearchRequest): Promise<ServiceJsonSearchResult> {
  return await run(deps, given, SERVICE_JSON)
}

async function run<Item extends { id: string }, Hit> (deps: SearchDeps, given: ServiceSearchRequest, hydration: Hydration<Item, Hit>): Promise<SearchResultOf<Hit>> {
  if (given.text.trim() === '') return await browse(deps, given, hydration)
  if (given.parseConstraints !== true) return await search(deps, given, hydration)
  const parsed = parseConstraints(given.text)
  const { filter, sort, applied } = withParsed(given, parsed.filters)
  const understood: Understood = { filters: applied, removed: parsed.removed }
  const request = { ...given, text: parsed.text, filter, sort }
  // Only constraints ("cheap APIs on solana"): every service they admit, not a text search for "apis".
  const { words } = analyze(parsed.text, given.style, deps.tokenizer)
  if (parsed.removed.length > 0 && words.every((word) => FILLERS.has(word.text))) return { ...await browse(deps, request, hydration), understood }
  return { ...await search(deps, request, hydration), understood }
}

/**
 * The catalog by the filters, in the requested order or most trusted first: the trust score puts
 * every verified service (40 or more) above every other (35 at most; src/domain/trust.ts).
 */
async function browse<Item extends { id: string }, Hit> (deps: SearchDeps, request: ServiceSearchRequest, hydration: Hydration<Item, Hit>): Promise<SearchResultOf<Hit>> {
  const listed = await deps.store.listServices(request.filter, request.sort ?? defaultSort('trustScore'), request.page)
  const language = isJapanese(normalizeText(request.text)) ? 'ja' : 'en'
  const reason = language === 'ja' ? '条件に合うサービス（検索語なし）。' : 'Matches the conditions (no search words).'
  const hits = listed.items.map((record) => hydration.hit({ id: record.id, score: 0, matchedTokens: [] }, hydration.fromRecord(record), () => reason))
  const { facets } = request
  if (facets === undefined) return { words: [], total: listed.total, totalExact: true, hits }
  const counts = await deps.store.countFacets(request.filter)
  const facetDistribution: FacetDistribution = Object.fromEntries(FACET_FIELDS.filter((f) => facets.includes(f)).map((f) => [f, counts[f]]))
  return { words: [], total: listed.total, totalExact: true, hits, facetDistribution }
}

async function search<Item extends { id: string }, Hit> (deps: SearchDeps, request: ServiceSearchRequest, hydration: Hydration<Item, Hit>): Promise<SearchResultOf<Hit>> {
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
  const items = new Map((await hydration.read(deps.store, result.hits.map((hit) => hit.id))).map((item) => [item.id, item]))
  // A hit whose service went between the engine's answer and this read is left out.
  const hits = result.hits.flatMap((hit) => {
    const item = items.get(hit.id)
    return item === undefined ? [] : [hydration.hit(hit, item, () => explainMatch(hit.matchedTokens, language))]
  })
  const { total, totalExact, facetDistribution } = result
  return facetDistribution === undefined ? { words: texts, total, totalExact, hits } : { words: texts, total, totalExact, hits, facetDistribution }
}
