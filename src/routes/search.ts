/** Catalog search (whitespace keywords) and intent search (conversational, kuromoji). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { toService, type Service } from '../domain/service.js'
import { DEFAULT_PAGE_SIZE } from '../domain/service-query.js'
import { ValidationError } from '../errors.js'
import { ErrorSchema } from '../plugins/errors.js'
import { analyzeIntent, splitQueryWords, type QueryWord } from '../search/analysis/analyzer.js'
import { explainMatch } from '../search/reason.js'
import { CatalogSearchResponse, IntentSearchResponse, SearchQuerySchema } from '../search/schemas.js'
import type { SearchHit, SearchQuery } from '../search/search-engine.js'

/** Rejects a query that is only whitespace: it asks for nothing. */
export function requireText (field: string, value: string): string {
  if (value.trim() === '') throw new ValidationError(field, 'must not be blank')
  return value
}

/** Runs a search and pairs each hit with its service from the authoritative store, in rank order. */
export async function searchServices (app: FastifyInstance, query: SearchQuery): Promise<{ total: number, hits: Array<SearchHit & { service: Service }> }> {
  if (query.words.length === 0) return { total: 0, hits: [] }
  const result = await app.searchIndex.engine.search(query)
  const records = new Map((await app.store.getServices(result.hits.map((hit) => hit.id))).map((r) => [r.id, r]))
  const hits = result.hits.flatMap((hit) => {
    const record = records.get(hit.id)
    return record === undefined ? [] : [{ ...hit, service: toService(record) }]
  })
  return { total: result.total, hits }
}

const wordsOf = (hit: SearchHit): string[] => [...new Set(hit.matchedTokens.map((m) => m.word))]

const searchRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/api/catalog/search', {
    config: { cache: 'search' },
    schema: {
      tags: ['search'],
      summary: 'Full-text search across the catalog (keywords split on whitespace; typo-tolerant; last word as prefix)',
      querystring: SearchQuerySchema,
      response: { 200: CatalogSearchResponse, 400: ErrorSchema }
    }
  }, async (request) => {
    const q = requireText('q', request.query.q)
    const words: QueryWord[] = splitQueryWords(q)
    const { total, hits } = await searchServices(app, {
      words,
      filter: {},
      prefixLastWord: true,
      page: { limit: request.query.limit ?? DEFAULT_PAGE_SIZE, offset: request.query.offset ?? 0 }
    })
    return {
      query: q,
      total,
      results: hits.map((hit) => ({ service: hit.service, score: hit.score, matchedTokens: wordsOf(hit), matches: hit.matchedTokens }))
    }
  })

  app.get('/api/services/search/intent', {
    config: { cache: 'search' },
    schema: {
      tags: ['search'],
      summary: 'Search by what you want, in Japanese or English ("東京の天気を知りたい", "I need speech to text")',
      querystring: SearchQuerySchema,
      response: { 200: IntentSearchResponse, 400: ErrorSchema }
    }
  }, async (request) => {
    const q = requireText('q', request.query.q)
    const intent = analyzeIntent(q, app.searchIndex.tokenizer)
    const { hits } = await searchServices(app, {
      words: intent.tokens,
      filter: {},
      prefixLastWord: false,
      page: { limit: request.query.limit ?? DEFAULT_PAGE_SIZE, offset: request.query.offset ?? 0 }
    })
    return {
      query: q,
      tokens: intent.tokens.map((token) => token.text),
      results: hits.map((hit) => ({
        service: hit.service,
        score: hit.score,
        matchedTokens: wordsOf(hit),
        reason: explainMatch(hit.matchedTokens, intent.language)
      }))
    }
  })
}

export default searchRoutes
