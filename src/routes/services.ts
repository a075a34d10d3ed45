/** /api/services: list, detail, status and registration. */
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { newServiceId, SERVICE_ID_PATTERN } from '../domain/ids.js'
import { buildServiceRecord, RegistrationBodySchema } from '../domain/registration.js'
import { ServiceSchema, ServiceStatusSchema, toService, toServiceStatus, type ServiceRecord } from '../domain/service.js'
import { DEFAULT_SORT, ListQuerySchema, toStoreQuery } from '../domain/service-query.js'
import { NotFoundError } from '../errors.js'
import { ErrorSchema } from '../plugins/errors.js'
import { splitQueryWords } from '../search/analysis/analyzer.js'
import { searchServices } from '../search/service-search.js'

const IdParams = Type.Object({ id: Type.String({ pattern: SERVICE_ID_PATTERN, description: 'Service id (svc_…)' }) })

const servicesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  async function findService (id: string): Promise<ServiceRecord> {
    const record = await app.store.getService(id)
    if (record === null) throw new NotFoundError(`service ${id} not found`)
    return record
  }

  app.get('/api/services', {
    // With ?query= the answer also follows the search index.
    config: { cache: 'search' },
    schema: {
      tags: ['services'],
      summary: 'List services with filters, sorting and paging',
      querystring: ListQuerySchema,
      response: {
        200: Type.Array(ServiceSchema, { description: 'A page of services; X-Total-Count holds the number of matches' }),
        400: ErrorSchema
      }
    }
  }, async (request, reply) => {
    const { text, filter, sort, page } = toStoreQuery(request.query)
    if (text !== undefined) {
      const found = await searchServices(app.searchIndex.engine, app.store, { words: splitQueryWords(text), filter, sort, page, prefixLastWord: true })
      void reply.header('x-total-count', found.total)
      return found.hits.map((hit) => hit.service)
    }
    const result = await app.store.listServices(filter, sort ?? DEFAULT_SORT, page)
    void reply.header('x-total-count', result.total)
    return result.items.map(toService)
  })

  app.get('/api/services/:id', {
    config: { cache: 'store' },
    schema: {
      tags: ['services'],
      summary: 'One service',
      params: IdParams,
      response: { 200: ServiceSchema, 400: ErrorSchema, 404: ErrorSchema }
    }
  }, async (request) => toService(await findService(request.params.id)))

  app.get('/api/services/:id/status', {
    config: { cache: 'store' },
    schema: {
      tags: ['services'],
      summary: 'Trust and monitoring signals of one service',
      params: IdParams,
      response: { 200: ServiceStatusSchema, 400: ErrorSchema, 404: ErrorSchema }
    }
  }, async (request) => toServiceStatus(await findService(request.params.id)))

  app.post('/api/services', {
    // Authenticate before the body is parsed or validated: strangers learn nothing about the rules.
    onRequest: app.authenticate,
    schema: {
      tags: ['services'],
      summary: 'Register a paid endpoint (Bearer API key)',
      security: [{ bearerAuth: [] }],
      body: RegistrationBodySchema,
      response: { 201: ServiceSchema, 400: ErrorSchema, 401: ErrorSchema, 409: ErrorSchema, 413: ErrorSchema }
    }
  }, async (request, reply) => {
    const record = buildServiceRecord(request.body, { id: newServiceId(), ownerId: request.ownerId, now: new Date().toISOString() })
    await app.store.insertService(record)
    app.searchIndex.indexer.notify()
    app.prober.enqueue(record.id)
    void reply.code(201).header('location', `/api/services/${record.id}`)
    return toService(record)
  })
}

export default servicesRoutes
