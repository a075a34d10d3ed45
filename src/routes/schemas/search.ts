/** Request and response schemas of the search endpoints (also their OpenAPI documentation). */
import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox'
import { ServiceSchema } from '../../domain/service.js'
import { ListQueryProperties } from '../../domain/service-query.js'
import { StringEnum } from '../../domain/string-enum.js'
import { FACET_FIELDS, SEARCH_ATTRIBUTES, type FacetField, type MatchedToken, type MatchKind } from '../../search/search-engine.js'
import { MAX_QUERY_LENGTH } from '../../search/service-search.js'
import { ValidationError } from '../../errors.js'
import { SORT_FIELDS } from '../../domain/catalog-query.js'
import { SERVICE_STATUSES } from '../../domain/trust.js'
import { PageProperties, QueryText } from './common.js'

/** The list endpoint's filters and orders, as both searches take them. */
const FilterProperties = {
  category: ListQueryProperties.category,
  chain: ListQueryProperties.chain,
  network: ListQueryProperties.network,
  status: ListQueryProperties.status,
  testnet: ListQueryProperties.testnet,
  maxPricePerRequest: ListQueryProperties.maxPricePerRequest,
  sortBy: Type.Optional(StringEnum(SORT_FIELDS, { description: 'Default: relevance' })),
  sortOrder: ListQueryProperties.sortOrder
}

/** Intent search: a sentence, whose constraints ("under $0.01", "on solana") are read; explicit filters win. */
export const IntentSearchQuerySchema = Type.Object({
  q: QueryText,
  ...FilterProperties,
  ...PageProperties
}, { additionalProperties: false })

/** Catalog search: the list endpoint's filters and orders, plus facet counts for a search page. */
export const CatalogSearchQuerySchema = Type.Object({
  q: Type.String({ maxLength: MAX_QUERY_LENGTH, description: `Search text, at most ${MAX_QUERY_LENGTH} characters; required. Empty (q=, or only spaces), the catalog is listed for browsing (with the filters and facets): most trusted first, unless sortBy says otherwise` }),
  ...FilterProperties,
  parse: Type.Optional(Type.Boolean({ default: false, description: 'Read constraints from q as intent search does ("cheap", "under $0.01", "on solana", "検証済み"): they become filters and a sort, are taken out of the text, and the answer says so (filters, removed). Explicit parameters win.' })),
  facets: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 64,
    description: `Comma-separated fields to count matches by (${FACET_FIELDS.join(', ')}): facetDistribution in the response, over every match of q after the filters`,
    examples: [FACET_FIELDS.join(',')]
  })),
  ...PageProperties
}, { additionalProperties: false })

/** 'category,network' → ['category', 'network']; an unknown field is a 400 naming `facets`. */
export function parseFacets (value: string | undefined): FacetField[] | undefined {
  if (value === undefined) return undefined
  const fields = value.split(',').map((part) => part.trim())
  for (const field of fields) {
    if (!(FACET_FIELDS as readonly string[]).includes(field)) throw new ValidationError('facets', `unknown facet "${field}"; one of ${FACET_FIELDS.join(', ')}`)
  }
  return [...new Set(fields as FacetField[])]
}

const FacetCounts = Type.Record(Type.String(), Type.Integer({ minimum: 1 }))

export const FacetDistributionSchema = Type.Object({
  category: Type.Optional(FacetCounts),
  status: Type.Optional(FacetCounts),
  network: Type.Optional(Type.Record(Type.String(), Type.Integer({ minimum: 1 }), { description: 'CAIP-2 id → matches; a service counts once per supported chain' }))
}, { additionalProperties: false, description: 'Matches per value of each field asked for in facets (values without matches omitted)' })

/**
 * The API's names for the port's match kinds, kept from before the port was neutral:
 * an alternative form of a Japanese word is its reading, a word fragment a bigram; another
 * form of an English word is the API's 'alternative'.
 */
const API_MATCH_KINDS = { exact: 'exact', alternative: 'reading', wordForm: 'alternative', romaji: 'romaji', synonym: 'synonym', prefix: 'prefix', typo: 'typo', fragment: 'bigram' } as const satisfies Record<MatchKind, string>
type ApiMatchKind = typeof API_MATCH_KINDS[MatchKind]

export const MatchSchema = Type.Object({
  word: Type.String({ description: 'Query word' }),
  term: Type.String({ description: 'Indexed term it matched' }),
  attribute: StringEnum(SEARCH_ATTRIBUTES),
  kind: StringEnum(Object.values(API_MATCH_KINDS) as ApiMatchKind[], { description: 'exact; reading (another spelling of the word: kana reading, dictionary form); alternative (another form of an English word: analysis → analyze, generator → generate); romaji (a Latin word read as Japanese kana); synonym; prefix; typo; bigram (part of a longer word)' }),
  typos: Type.Integer({ minimum: 0 })
})

/** A matched token as the API names it. */
export function toMatchView (match: MatchedToken): Omit<MatchedToken, 'kind'> & { kind: ApiMatchKind } {
  // Fields named, not spread (see SERVICE_JSON.hit in service-search.ts): one per match of every hit.
  return { word: match.word, term: match.term, attribute: match.attribute, kind: API_MATCH_KINDS[match.kind], typos: match.typos }
}

const Score = Type.Number({ minimum: 0, maximum: 1, description: 'Relevance; results are in descending score order' })
const MatchedTokens = Type.Array(Type.String(), { description: 'Query words that matched' })

/** What the text asked for (docs/search.md, "Constraints in the query"). */
export const UnderstoodFiltersSchema = Type.Object({
  maxPricePerRequest: Type.Optional(Type.String({ description: 'Price bound read from the text ("under $0.01", "0.01ドル以下", "1セント以下"), USDC, inclusive' })),
  chain: Type.Optional(Type.String({ description: 'Payment network named in the text ("on solana", "Base で", "ポリゴン"), as a CAIP-2 id' })),
  status: Type.Optional(StringEnum(SERVICE_STATUSES, { description: 'Status named in the text ("verified", "検証済み")' })),
  sortBy: Type.Optional(StringEnum(SORT_FIELDS, { description: 'Order asked for: price for "cheap", "cheapest", "安い", "格安", "free tier", "無料枠"' }))
}, { additionalProperties: false, description: 'Constraints read from the text and applied; one an explicit query parameter overrode is left out' })

const Removed = Type.Array(Type.String(), { description: 'Phrases taken out of the text as constraints (normalized: NFKC, lower case), in order; the rest is searched' })

/** The serializer the route's own response would use for a schema (reply.compileSerializationSchema). */
export type SerializerOf = (schema: TSchema) => (value: Record<string, unknown>) => string

/** A search answer as the route has it: each result's service as the JSON the store keeps (UTF-8). */
export type AnswerOf<Before extends TProperties, Hit extends TProperties, After extends TProperties> =
  Static<TObject<Before>> & Static<TObject<After>> & { results: Array<{ service: Uint8Array } & Static<TObject<Hit>>> }

/**
 * Strings and bytes joined as UTF-8 into one buffer, sized for the worst case (three bytes a
 * UTF-16 unit) and cut to what was written (a cache that keeps it copies it: response-cache.ts).
 */
function joinUtf8 (parts: ReadonlyArray<string | Uint8Array>): Buffer {
  let size = 0
  for (const part of parts) size += typeof part === 'string' ? 3 * part.length : part.byteLength
  const out = Buffer.allocUnsafe(size)
  let at = 0
  for (const part of parts) {
    if (typeof part === 'string') at += out.write(part, at)
    else {
      out.set(part, at)
      at += part.byteLength
    }
  }
  return out.subarray(0, at)
}

/**
 * A search answer's schema, `before` properties, then `results` (each a service and `hit`'s
 * properties), then `after`; and `write`, which makes the answer's JSON with the services'
 * bytes as they are: each part written by its own part of the schema's serializer (which
 * writes only its properties, in order), joined, is what the whole schema's serializer writes.
 */
function searchAnswer<Before extends TProperties, Hit extends TProperties, After extends TProperties> (before: Before, hit: Hit, after: After) {
  const parts = { before: Type.Object(before), hit: Type.Object(hit), after: Type.Object(after) }
  const schema = Type.Object({ ...before, results: Type.Array(Type.Object({ service: ServiceSchema, ...hit })), ...after })
  function write (answer: AnswerOf<Before, Hit, After>, serializerOf: SerializerOf): Buffer {
    const [head, writeHit, tail] = [serializerOf(parts.before)(answer), serializerOf(parts.hit), serializerOf(parts.after)(answer)]
    // The text between two services is one string: what follows a hit's service and opens the next.
    const out: Array<string | Uint8Array> = []
    let text = `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"results":[`
    answer.results.forEach((result, i) => {
      out.push(`${text}${i > 0 ? ',' : ''}{"service":`, result.service)
      const rest = writeHit(result)
      text = rest.length > 2 ? `,${rest.slice(1)}` : '}'
    })
    out.push(`${text}]${tail.length > 2 ? `,${tail.slice(1)}` : '}'}`)
    return joinUtf8(out)
  }
  return { schema, write }
}

const catalogSearch = searchAnswer({
  query: Type.String(),
  total: Type.Integer({ minimum: 0, description: 'Number of matching services over every page, after the filters: exact when totalExact is true, otherwise the search engine\'s estimate' }),
  totalExact: Type.Boolean({ description: 'true when total is the exact count (the embedded SQLite engine); false when it is an estimate (Meilisearch estimates totals, so paging may end before or after it)' })
}, {
  score: Score,
  matchedTokens: MatchedTokens,
  matches: Type.Array(MatchSchema, { description: 'How each query word matched' }),
  uptimeScore: Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()], { description: 'Percentage of successful probes; null until first checked' })
}, {
  facetDistribution: Type.Optional(FacetDistributionSchema),
  filters: Type.Optional(UnderstoodFiltersSchema),
  removed: Type.Optional(Removed)
})
export const CatalogSearchResponse = catalogSearch.schema
export const writeCatalogSearch = catalogSearch.write

const intentSearch = searchAnswer({
  query: Type.String(),
  tokens: Type.Array(Type.String(), { description: 'Content words kept from the query (particles, request phrasing and constraints dropped); empty when only constraints were given, and then results list every service they admit, most trusted first' }),
  total: Type.Integer({ minimum: 0, description: 'Number of matching services over every page, after the filters (see catalog search\'s totalExact)' }),
  filters: UnderstoodFiltersSchema,
  removed: Removed
}, {
  score: Score,
  matchedTokens: MatchedTokens,
  reason: Type.String({ description: 'Why it matched, in the language of the query' })
}, {})
export const IntentSearchResponse = intentSearch.schema
export const writeIntentSearch = intentSearch.write
