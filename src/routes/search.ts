/** Catalog search (whitespace keywords) and intent search (conversational, kuromoji). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { toStoreQuery } from '../domain/service-query.js'
import { ValidationError } from '../errors.js'
import { ErrorSchema } from '../plugins/errors.js'
import type { SearchHit } from '../search/search-engine.js'
import { CatalogSearchQuerySchema, CatalogSearchResponse, IntentSearchQuerySchema, IntentSearchResponse, parseFacets, toMatchView, writeCatalogSearch, writeIntentSearch, type SerializerOf } from './schemas/search.js'

/** Rejects a query that is only whitespace: it asks for nothing. */
function requireText (field: string, value: string): string {
  if (value.trim() === '') throw new ValidationError(field, 'must not be blank')
  return value
}

const wordsOf = (hit: SearchHit): string[] => [...new Set(hit.matchedTokens.map((m) => m.word))]

/**
 * Sends an answer already written as JSON bytes (the hits' services are the store's JSON, not
 * serialized again). The typed reply accepts only the schema's value; Fastify sends a buffer
 * as it is.
 */
async function sendJson (reply: FastifyReply, write: (serializerOf: SerializerOf) => Buffer): Promise<FastifyReply> {
  const json = write((schema) => reply.compileSerializationSchema(schema))
  return await reply.type('application/json; charset=utf-8').send(json)
}

const searchRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/api/catalog/search', {
    // The search page asks as the user types: a per-IP budget of its own, not the reads'.
    config: { cache: 'search', rateLimit: app.rateLimits.search },
    schema: {
      tags: ['search'],
      summary: 'Full-text search across the catalog (keywords split on whitespace; typo-tolerant; last word as prefix), with filters and facet counts; q= (empty) lists the catalog, most trusted first',
      querystring: CatalogSearchQuerySchema,
      response: { 200: CatalogSearchResponse, 400: ErrorSchema }
    }
  }, async (request, reply) => {
    const { q: text, facets: facetsText, parse, ...list } = request.query
    // An empty q lists the catalog (the search page before anything is typed).
    const q = text.trim() === '' ? '' : text
    const { filter, sort, page } = toStoreQuery(list)
    const found = await app.searchServiceJson({ text: q, style: 'keywords', filter, sort, page, facets: parseFacets(facetsText), parseConstraints: parse === true })
    return await sendJson(reply as FastifyReply, (serializerOf) => writeCatalogSearch({
      query: q,
      total: found.total,
      totalExact: found.totalExact,
      results: found.hits.map((hit) => ({
        service: hit.serviceJson,
        score: hit.score,
        matchedTokens: wordsOf(hit),
        matches: hit.matchedTokens.map(toMatchView),
        uptimeScore: hit.uptimeScore
      })),
      ...(found.facetDistribution === undefined ? {} : { facetDistribution: found.facetDistribution }),
      ...(found.understood === undefined ? {} : found.understood)
    }, serializerOf))
  })

  app.get('/api/services/search/intent', {
    // Morphological analysis per request: a stricter per-IP limit than other reads.
    config: { cache: 'search', rateLimit: app.rateLimits.costly },
    schema: {
      tags: ['search'],
      summary: 'Search by what you want, in Japanese or English ("東京の天気を知りたい", "cheap OCR on solana under $0.01"): constraints in the text become filters',
      querystring: IntentSearchQuerySchema,
      response: { 200: IntentSearchResponse, 400: ErrorSchema }
    }
  }, async (request, reply) => {
    const { q: text, ...list } = request.query
    const q = requireText('q', text)
    const { filter, sort, page } = toStoreQuery(list)
    const found = await app.searchServiceJson({ text: q, style: 'intent', filter, sort, page, parseConstraints: true })
    return await sendJson(reply as FastifyReply, (serializerOf) => writeIntentSearch({
      query: q,
      tokens: found.words,
      total: found.total,
      filters: found.understood?.filters ?? {},
      removed: found.understood?.removed ?? [],
      results: found.hits.map((hit) => ({
        service: hit.serviceJson,
        score: hit.score,
        matchedTokens: wordsOf(hit),
        reason: hit.reason
      }))
    }, serializerOf))
  })
}

export default searchRoutes
