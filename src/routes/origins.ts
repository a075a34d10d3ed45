/** /api/origins/import: register every paid resource an origin lists in its OpenAPI document or /.well-known/x402 (src/application/import-origin.ts). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { MAX_ORIGIN_DOCUMENT_BYTES, MAX_ORIGIN_RESOURCES } from '../domain/origin-document.js'
import { NoQuerySchema } from '../domain/service-query.js'
import { ORIGIN_DOCUMENT_PATHS, importResources, readOrigin } from '../application/import-origin.js'
import { ErrorSchema } from '../plugins/errors.js'
import { JobSchema } from './schemas/jobs.js'
import { ImportAnswer, ImportBody } from './schemas/origins.js'

const originsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/api/origins/import', {
    onRequest: app.authenticate,
    config: { writesCatalog: true },
    schema: {
      querystring: NoQuerySchema,
      tags: ['services'],
      summary: 'Register every paid resource an origin lists in its OpenAPI document or /.well-known/x402 (Bearer API key)',
      description: `Reads the origin's documents, ${ORIGIN_DOCUMENT_PATHS.join(', ')}, and takes the first that lists a paid resource: an OpenAPI document's operations with x-payment-info (parsed by @agentcash/discovery, as x402scan does; a path with {parameters} is refused), or /.well-known/x402 in x402scan's format ({"version": 1, "resources": ["GET /path", "POST /other", "https://host/full/url"], "instructions": "…"}; an entry without a method is GET). At most ${MAX_ORIGIN_RESOURCES} resources and ${MAX_ORIGIN_DOCUMENT_BYTES / 1024} KiB per document, read through the prober's guarded client and only as the origin itself serves it (a redirect to another origin is refused); the answer's document names the one used. Each resource on the origin that answers a valid x402 402 is registered under this key as POST /api/services with the endpoint alone would; a re-import updates this key's listings from the document (fields their owner set stay) and makes the ones it no longer lists inactive ("removed from /openapi.json"). When no document lists a paid resource (none readable, not JSON, too large, the wrong shape), a 422 says what each answered and nothing changes. The answer comes within CATALOG_ANSWER_WITHIN_MS (25 s by default, at most 30 s): the rows when every resource has been probed by then, else 202 with the job (Location: /api/jobs/{id}) to follow until it is done; its result is the same answer.`,
      security: [{ bearerAuth: [] }],
      body: ImportBody,
      response: { 200: ImportAnswer, 202: JobSchema, 400: ErrorSchema, 401: ErrorSchema, 422: ErrorSchema, 429: ErrorSchema }
    }
  }, async (request, reply) => {
    const read = await readOrigin(app, request.body.origin)
    const { ownerId, log } = request
    const job = app.jobs.board.start(ownerId, 'origin-import', read.resources.length, async (context) => await importResources(app, log, ownerId, read, context))
    return await app.jobs.answerWithin(reply, job)
  })
}

export default originsRoutes
