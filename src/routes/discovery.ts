/**
 * Discovery in the formats the x402 ecosystem reads: the Bazaar facilitator API
 * (`withBazaar(new HTTPFacilitatorClient({url}))` lists and searches the catalog) and the
 * `/.well-known/x402` list of verified resources that scanners such as x402scan import.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  BAZAAR_X402_VERSION, BazaarListResponseSchema, BazaarSearchResponseSchema, toBazaarItem, toCatalogFilter
} from '../domain/bazaar.js'
import { MAX_OFFSET, DEFAULT_PAGE_SIZE, NoQuerySchema } from '../domain/service-query.js'
import type { ServiceRecord } from '../domain/service.js'
import { ValidationError } from '../errors.js'
import { etagOf, jsonArrayChunks, notModified } from '../json-stream.js'
import { ErrorSchema } from '../plugins/errors.js'
import { NoBody } from './schemas/common.js'
import { DiscoverySearchQuerySchema, ResourcesQuerySchema, WellKnownSchema } from './schemas/discovery.js'

/** Bump when what the list holds changes (2: test-network listings left out), so an old ETag or kept file is not reused. */
const WELL_KNOWN_FORMAT = 2

/** Discovery lists the most trusted first (verified before unverified), newest within a score. */
const DISCOVERY_SORT = { field: 'trustScore', order: 'desc' } as const

function cursorOffset (cursor: string | undefined): number {
  if (cursor === undefined) return 0
  const offset = /^\d+$/.test(cursor) ? Number(cursor) : NaN
  if (!(offset <= MAX_OFFSET)) throw new ValidationError('cursor', 'must be a pagination.cursor from a previous answer')
  return offset
}

async function * endpoints (records: AsyncIterable<ServiceRecord>): AsyncGenerator<string> {
  for await (const record of records) yield JSON.stringify(record.endpoint)
}

const discoveryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/discovery/resources', {
    config: { cache: 'store' },
    schema: {
      tags: ['discovery'],
      summary: 'x402 Bazaar: list resources (what withBazaar(client).extensions.bazaar.listResources() calls)',
      querystring: ResourcesQuerySchema,
      response: { 200: BazaarListResponseSchema, 400: ErrorSchema }
    }
  }, async (request) => {
    const limit = request.query.limit ?? DEFAULT_PAGE_SIZE
    const offset = request.query.offset ?? 0
    const filter = toCatalogFilter(request.query)
    if (filter === null) return { x402Version: BAZAAR_X402_VERSION, items: [], pagination: { limit, offset, total: 0 } }
    const page = await app.store.listServices(filter, DISCOVERY_SORT, { limit, offset })
    return { x402Version: BAZAAR_X402_VERSION, items: page.items.map(toBazaarItem), pagination: { limit, offset, total: page.total } }
  })

  app.get('/discovery/search', {
    config: { cache: 'search' },
    schema: {
      tags: ['discovery'],
      summary: 'x402 Bazaar: search resources with the catalog\'s typo-tolerant search (bazaar.search({query}))',
      querystring: DiscoverySearchQuerySchema,
      response: { 200: BazaarSearchResponseSchema, 400: ErrorSchema }
    }
  }, async (request) => {
    const { query, limit = DEFAULT_PAGE_SIZE, cursor } = request.query
    if (query.trim() === '') throw new ValidationError('query', 'must not be blank')
    const offset = cursorOffset(cursor)
    const filter = toCatalogFilter(request.query)
    if (filter === null) return { x402Version: BAZAAR_X402_VERSION, resources: [], partialResults: false, pagination: { limit, cursor: null } }
    const { total, hits } = await app.searchServices({ text: query, style: 'keywords', filter, page: { limit, offset } })
    const next = offset + hits.length
    const nextCursor = hits.length > 0 && next < total ? String(next) : null
    return {
      x402Version: BAZAAR_X402_VERSION,
      resources: hits.map((hit) => toBazaarItem(hit.record)),
      partialResults: nextCursor !== null,
      pagination: { limit, cursor: nextCursor }
    }
  })

  app.get('/.well-known/x402', {
    schema: {
      querystring: NoQuerySchema,
      tags: ['discovery'],
      summary: 'Endpoints of verified services, for scanners such as x402scan (ETag; gzip and br); test-network listings left out',
      response: { 200: WellKnownSchema, 304: NoBody }
    }
  }, async (request, reply) => {
    const etag = etagOf('well-known', WELL_KNOWN_FORMAT, await app.store.latestSeq())
    if (notModified(request, reply, etag)) return reply
    // Test-network listings are left out, as from every list by default (testnetFilter).
    const filter = { status: 'verified', testnet: false } as const
    return await reply.sendSnapshot('well-known', etag, () => jsonArrayChunks('{"version":1,"resources":[', endpoints(app.store.streamServices(filter)), () => ']}'))
  })
}

export default discoveryRoutes
