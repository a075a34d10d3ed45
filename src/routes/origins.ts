/** /api/origins/import: register every paid resource an origin lists at /.well-known/x402 (src/registration/origin-import.ts). */
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { HttpMethodEnum } from '../domain/http-method.js'
import { MAX_ORIGIN_DOCUMENT_BYTES, MAX_ORIGIN_RESOURCES, ORIGIN_DOCUMENT_PATH, REMOVED_FROM_DOCUMENT } from '../domain/origin-import.js'
import { NoQuerySchema } from '../domain/service-query.js'
import { ServiceStatusEnum } from '../domain/service.js'
import { StringEnum } from '../domain/string-enum.js'
import { importOrigin } from '../registration/origin-import.js'
import { ErrorSchema } from '../plugins/errors.js'

const ImportBody = Type.Object({
  origin: Type.String({ minLength: 1, maxLength: 2048, description: 'The origin whose /.well-known/x402 to import, e.g. https://api.example.com (any URL of it is read as its origin)' })
}, { additionalProperties: false })

const ImportRowSchema = Type.Object({
  resource: Type.String({ description: 'The document\'s entry as written' }),
  result: StringEnum(['registered', 'updated', 'unchanged', 'refused'], { description: 'registered: a new listing of this key; updated/unchanged: this key\'s listing, re-read; refused: not listed (reason says why)' }),
  method: Type.Optional(HttpMethodEnum),
  endpoint: Type.Optional(Type.String()),
  serviceId: Type.Optional(Type.String()),
  status: Type.Optional(ServiceStatusEnum),
  reason: Type.String({ description: 'Why it was refused ("answered 200, not 402", "timeout after 8 s", …), or the probe\'s reason' })
}, { additionalProperties: false })

const ImportAnswer = Type.Object({
  origin: Type.String(),
  document: Type.String({ description: 'The URL read' }),
  rows: Type.Array(ImportRowSchema, { description: 'One per entry of the document, in its order' }),
  inactive: Type.Array(Type.Object({
    serviceId: Type.String(),
    endpoint: Type.String(),
    method: HttpMethodEnum,
    reason: Type.String({ examples: [REMOVED_FROM_DOCUMENT] })
  }, { additionalProperties: false }), { description: 'This key\'s listings an earlier import of the document made that it no longer lists: now inactive' })
}, { additionalProperties: false })

const originsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/api/origins/import', {
    onRequest: app.authenticate,
    config: { writesCatalog: true },
    schema: {
      querystring: NoQuerySchema,
      tags: ['services'],
      summary: `Register every paid resource an origin lists at ${ORIGIN_DOCUMENT_PATH} (Bearer API key)`,
      description: `Reads {origin}${ORIGIN_DOCUMENT_PATH} in x402scan's format ({"version": 1, "resources": ["GET /path", "POST /other", "https://host/full/url"], "instructions": "…"}; an entry without a method is GET), at most ${MAX_ORIGIN_RESOURCES} resources and ${MAX_ORIGIN_DOCUMENT_BYTES / 1024} KiB, through the prober's guarded client. Each resource on the origin that answers a valid x402 402 is registered under this key as POST /api/services with the endpoint alone would; a re-import updates this key's listings from the document (fields their owner set stay) and makes the ones it no longer lists inactive ("${REMOVED_FROM_DOCUMENT}"). A document that cannot be read, is not JSON, is too large or has the wrong shape is a 422 and changes nothing.`,
      security: [{ bearerAuth: [] }],
      body: ImportBody,
      response: { 200: ImportAnswer, 400: ErrorSchema, 401: ErrorSchema, 422: ErrorSchema }
    }
  }, async (request) => await importOrigin(app, request.log, request.ownerId, request.body.origin))
}

export default originsRoutes
