/**
 * GET /api/export: the whole catalog in the x402 Bazaar discovery format. Each version (the
 * change-feed seq and the filter) is built once into a file with gzip and brotli copies
 * (src/plugins/snapshots.ts) and sent with its Content-Length: concurrent exports share one
 * build instead of each walking the store on the event loop.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { listingsProvenance } from '../application/sync-source.js'
import { BAZAAR_X402_VERSION, BazaarListResponseSchema, toBazaarItem, toCatalogFilter, withProvenance } from '../domain/bazaar.js'
import type { ServiceRecord } from '../domain/service.js'
import type { CatalogStore } from '../store/catalog-store.js'
import { etagOf, jsonArrayChunks, notModified } from '../json-stream.js'
import { ErrorSchema } from '../plugins/errors.js'
import { ExportQuerySchema, NotModified } from './schemas/export.js'

/** Bump when the item format changes, so clients holding an old ETag get the new shape. */
const EXPORT_FORMAT = 4
/** Listings whose provenance is read at once. */
const PROVENANCE_BATCH = 500

/** Each listing as a Bazaar item with its provenance (metadata.sources), read a batch at a time. */
async function * items (store: CatalogStore, records: AsyncIterable<ServiceRecord>): AsyncGenerator<string> {
  let batch: ServiceRecord[] = []
  const flush = async function * (): AsyncGenerator<string> {
    const provenance = await listingsProvenance(store, batch.map((record) => record.id))
    for (const record of batch) yield JSON.stringify(withProvenance(toBazaarItem(record), provenance.get(record.id) ?? []))
    batch = []
  }
  for await (const record of records) {
    batch.push(record)
    if (batch.length === PROVENANCE_BATCH) yield * flush()
  }
  yield * flush()
}

/** What the export shows of the sources that changes no listing: when each last completed a pass (its entries' lastSeenAt). */
async function sourcesStamp (store: CatalogStore): Promise<string> {
  return (await store.listSources()).map((source) => `${source.id}@${source.lastCompleteAt ?? ''}`).join(',')
}

const exportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/api/export', {
    schema: {
      tags: ['export'],
      summary: 'The full catalog in the x402 Bazaar discovery format (ETag / If-None-Match; gzip and br)',
      querystring: ExportQuerySchema,
      response: { 200: BazaarListResponseSchema, 304: NotModified, 400: ErrorSchema }
    }
  }, async (request, reply) => {
    const filter = toCatalogFilter(request.query) ?? {}
    const etag = etagOf('export', EXPORT_FORMAT, await app.store.latestSeq(), filter, await sourcesStamp(app.store))
    if (notModified(request, reply, etag)) return reply
    return await reply.sendSnapshot(`export ${JSON.stringify(filter)}`, etag, () => jsonArrayChunks(
      `{"x402Version":${BAZAAR_X402_VERSION},"items":[`,
      items(app.store, app.store.streamServices(filter)),
      (count) => `],"pagination":${JSON.stringify({ limit: count, offset: 0, total: count })}}`
    ))
  })
}

export default exportRoutes
