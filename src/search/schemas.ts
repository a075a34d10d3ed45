/** Request and response schemas of the search endpoints (also their OpenAPI documentation). */
import { Type } from '@sinclair/typebox'
import { ServiceSchema } from '../domain/service.js'
import { PageSizeSchema, MAX_OFFSET } from '../domain/service-query.js'
import { StringEnum } from '../domain/string-enum.js'
import { SEARCH_ATTRIBUTES } from './search-engine.js'

/** Longest accepted query, in characters. */
export const MAX_QUERY_LENGTH = 200

export const QueryText = Type.String({ minLength: 1, maxLength: MAX_QUERY_LENGTH, description: `Search text, at most ${MAX_QUERY_LENGTH} characters` })

export const SearchQuerySchema = Type.Object({
  q: QueryText,
  limit: Type.Optional(PageSizeSchema),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0 }))
}, { additionalProperties: false })

export const MatchSchema = Type.Object({
  word: Type.String({ description: 'Query word' }),
  term: Type.String({ description: 'Indexed term it matched' }),
  attribute: StringEnum(SEARCH_ATTRIBUTES),
  kind: StringEnum(['exact', 'reading', 'synonym', 'prefix', 'typo', 'bigram']),
  typos: Type.Integer({ minimum: 0 })
})

const Score = Type.Number({ minimum: 0, maximum: 1, description: 'Relevance; results are in descending score order' })
const MatchedTokens = Type.Array(Type.String(), { description: 'Query words that matched' })

export const CatalogSearchResponse = Type.Object({
  query: Type.String(),
  total: Type.Integer({ minimum: 0, description: 'Number of matching services: exact, counted over every match whatever the page (the engine counts them in the same pass that finds them, so no estimate is needed)' }),
  results: Type.Array(Type.Object({
    service: ServiceSchema,
    score: Score,
    matchedTokens: MatchedTokens,
    matches: Type.Array(MatchSchema, { description: 'How each query word matched' })
  }))
})

export const IntentSearchResponse = Type.Object({
  query: Type.String(),
  tokens: Type.Array(Type.String(), { description: 'Content words kept from the query (particles and request phrasing dropped)' }),
  results: Type.Array(Type.Object({
    service: ServiceSchema,
    score: Score,
    matchedTokens: MatchedTokens,
    reason: Type.String({ description: 'Why it matched, in the language of the query' })
  }))
})
