/** /api/services: list, detail, status, registration (with endpoint ownership), owner changes and re-probes. */
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { newServiceId, SERVICE_ID_PATTERN } from '../domain/ids.js'
import { decideOwnership } from '../domain/ownership.js'
import { probeTargetOf } from '../domain/probe.js'
import { applyServicePatch, buildServiceRecord, RegistrationBodySchema, ServicePatchSchema } from '../domain/registration.js'
import { ServiceSchema, ServiceStatusSchema, toService, toServiceStatus, type ServiceRecord } from '../domain/service.js'
import { DEFAULT_PAGE_SIZE, DEFAULT_SORT, ListQueryProperties, ListQuerySchema, NoQuerySchema, toStoreQuery } from '../domain/service-query.js'
import { ProbeSchema, toProbeView } from '../domain/probe-view.js'
import { DuplicateEndpointError, EndpointTakenError, ForbiddenError, NotFoundError, ServiceDisplacedError } from '../errors.js'
import { ErrorSchema } from '../plugins/errors.js'

// No pattern: an id of any shape that no service has is a 404, not a 400.
const IdParams = Type.Object({ id: Type.String({ description: `Service id (${SERVICE_ID_PATTERN})` }) })

const ProbesQuerySchema = Type.Object({ limit: ListQueryProperties.limit, offset: ListQueryProperties.offset }, { additionalProperties: false })

declare module 'fastify' {
  interface FastifyRequest {
    /** The service an owner-only route acts on, loaded and checked by ownedService. */
    ownedService: ServiceRecord | null
  }
}

const servicesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  async function findService (id: string): Promise<ServiceRecord> {
    const record = await app.store.getService(id)
    if (record !== null) return record
    // A displaced service's owner learns why it is gone, not just that it is.
    const displaced = await app.store.getDisplacement(id)
    if (displaced !== null) {
      throw new ServiceDisplacedError(`service ${id} was removed on ${displaced.at}: ${displaced.displacedBy} took over ${displaced.endpoint} because ${displaced.reason}`)
    }
    throw new NotFoundError(`service ${id} not found`)
  }

  app.decorateRequest('ownedService', null)

  /**
   * Owner-only routes: after authentication, before the body is validated, so other keys get
   * 403 and unknown ids 404 whatever they send. Any id no service has is a 404, whatever its shape.
   */
  async function ownedService (request: FastifyRequest): Promise<void> {
    const { id } = request.params as { id: string }
    const record = await findService(id)
    if (record.ownerId === null || record.ownerId !== request.ownerId) {
      throw new ForbiddenError(`service ${id} belongs to another API key`)
    }
    request.ownedService = record
  }

  /** Stores a registration whose endpoint is taken, when the endpoint's live answer says it owns it. */
  async function takeOver (record: ServiceRecord): Promise<void> {
    const holder = await app.store.findServiceByEndpoint(record.endpoint)
    // The holder went away between the insert and this read: try again as a plain registration.
    if (holder === null) return await app.store.insertService(record)
    const decision = decideOwnership(record, holder, await app.prober.probe(probeTargetOf(record)))
    if (decision.kind === 'refuse') throw new EndpointTakenError(decision.reason)
    const displaced = await app.store.displaceService(holder, record, {
      id: holder.id, displacedBy: record.id, endpoint: holder.endpoint, ownerId: holder.ownerId, reason: decision.reason, at: record.createdAt
    })
    if (!displaced) throw new EndpointTakenError(`${holder.endpoint} is listed by ${holder.id}, which changed while ownership was being decided; try again`)
    app.log.info({ serviceId: record.id, displaced: holder.id }, 'endpoint taken over')
  }

  app.get('/api/services', {
    // With ?query= the answer also follows the search index; without, only the catalog.
    config: { cache: (request) => ((request.query as { query?: string }).query === undefined ? 'store' : 'search') },
    schema: {
      tags: ['services'],
      summary: 'List services with filters, sorting and paging',
      querystring: ListQuerySchema,
      response: {
        200: Type.Array(ServiceSchema, { description: 'A page of services; X-Total-Count holds the number of matches (an offset at or past it answers an empty page): exact for a listing; with query, X-Total-Exact says whether it is exact or the search engine\'s estimate' }),
        400: ErrorSchema
      }
    }
  }, async (request, reply) => {
    const { text, filter, sort, page } = toStoreQuery(request.query)
    if (text !== undefined) {
      const found = await app.searchServices({ text, style: 'keywords', filter, sort, page })
      void reply.header('x-total-count', found.total).header('x-total-exact', String(found.totalExact))
      return found.hits.map((hit) => hit.service)
    }
    // Each service's JSON as the store keeps it, joined: the bytes the serializer would write.
    const { json, total } = await app.store.listServiceJson(filter, sort ?? DEFAULT_SORT, page)
    // The typed reply accepts only the schema's value (this is that value, already bytes);
    // Fastify sends bytes as they are.
    return await (reply as FastifyReply).header('x-total-count', total).type('application/json; charset=utf-8')
      .send(Buffer.from(json.buffer, json.byteOffset, json.byteLength))
  })

  app.get('/api/services/:id', {
    config: { cache: 'service' },
    schema: {
      querystring: NoQuerySchema,
      tags: ['services'],
      summary: 'One service',
      params: IdParams,
      response: { 200: ServiceSchema, 404: ErrorSchema }
    }
  }, async (request) => toService(await findService(request.params.id)))

  // Not cached (nor are probes): a probe moves uptime and lastChecked without a change-feed event.
  app.get('/api/services/:id/status', {
    schema: {
      querystring: NoQuerySchema,
      tags: ['services'],
      summary: 'Trust and monitoring signals of one service, and why (the last probe)',
      params: IdParams,
      response: { 200: ServiceStatusSchema, 404: ErrorSchema }
    }
  }, async (request) => {
    const record = await findService(request.params.id)
    return toServiceStatus(record, await app.store.lastProbe(record.id))
  })

  app.get('/api/services/:id/probes', {
    schema: {
      tags: ['services'],
      summary: 'Recent probes of one service, newest first',
      params: IdParams,
      querystring: ProbesQuerySchema,
      response: {
        200: Type.Array(ProbeSchema, { description: 'A page of probes; X-Total-Count holds how many are kept' }),
        400: ErrorSchema,
        404: ErrorSchema
      }
    }
  }, async (request, reply) => {
    const record = await findService(request.params.id)
    const result = await app.store.listProbes(record.id, { limit: request.query.limit ?? DEFAULT_PAGE_SIZE, offset: request.query.offset ?? 0 })
    void reply.header('x-total-count', result.total)
    return result.items.map(toProbeView)
  })

  app.post('/api/services', {
    // Authenticate before the body is parsed or validated: strangers learn nothing about the rules.
    onRequest: app.authenticate,
    config: { writesCatalog: true },
    schema: {
      querystring: NoQuerySchema,
      tags: ['services'],
      summary: 'Register a paid endpoint (Bearer API key)',
      security: [{ bearerAuth: [] }],
      body: RegistrationBodySchema,
      description: 'An endpoint another listing holds is probed: a registration matching its live 402 answer (payTo, price, network) takes it over from one that does not; otherwise 409.',
      response: { 201: ServiceSchema, 400: ErrorSchema, 401: ErrorSchema, 409: ErrorSchema, 413: ErrorSchema }
    }
  }, async (request, reply) => {
    const record = buildServiceRecord(request.body, { id: newServiceId(), ownerId: request.ownerId, now: new Date().toISOString() })
    try {
      await app.store.insertService(record)
    } catch (err) {
      if (!(err instanceof DuplicateEndpointError)) throw err
      await takeOver(record)
    }
    app.searchIndex.indexer.notify()
    app.prober.enqueue(record.id)
    void reply.code(201).header('location', `/api/services/${record.id}`)
    return toService(record)
  })

  const ownerOnly = {
    // Authenticate before the body is parsed; check ownership before it is validated.
    onRequest: app.authenticate,
    preValidation: ownedService,
    config: { writesCatalog: true }
  }

  app.patch('/api/services/:id', {
    ...ownerOnly,
    schema: {
      querystring: NoQuerySchema,
      tags: ['services'],
      summary: 'Change description, category, method, pricing or payment config (owner\'s key)',
      description: 'Validated by the registration rules. A change to what the probe checks (method, network, chains, payTo, price) makes a verified service unverified until a probe matches again, and queues that probe.',
      security: [{ bearerAuth: [] }],
      params: IdParams,
      body: ServicePatchSchema,
      response: { 200: ServiceSchema, 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema }
    }
  }, async (request) => {
    const { record, reprobe } = applyServicePatch(request.ownedService as ServiceRecord, request.body, new Date().toISOString())
    if (!await app.store.updateService(record)) throw new NotFoundError(`service ${record.id} not found`)
    app.searchIndex.indexer.notify()
    if (reprobe) app.prober.enqueue(record.id)
    return toService(record)
  })

  app.delete('/api/services/:id', {
    ...ownerOnly,
    schema: {
      querystring: NoQuerySchema,
      tags: ['services'],
      summary: 'Remove a service (owner\'s key)',
      security: [{ bearerAuth: [] }],
      params: IdParams,
      response: { 204: Type.Null(), 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema }
    }
  }, async (request, reply) => {
    const { id } = request.ownedService as ServiceRecord
    if (!await app.store.deleteService(id)) throw new NotFoundError(`service ${id} not found`)
    app.searchIndex.indexer.notify()
    return await reply.code(204).send(null)
  })

  app.post('/api/services/:id/probe', {
    ...ownerOnly,
    schema: {
      querystring: NoQuerySchema,
      tags: ['services'],
      summary: 'Probe the endpoint now, record the probe and apply the status rules (owner\'s key)',
      security: [{ bearerAuth: [] }],
      params: IdParams,
      response: { 200: ProbeSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema }
    }
  }, async (request) => {
    const { id } = request.ownedService as ServiceRecord
    const outcome = await app.prober.probeService(id)
    if (outcome === null) throw new NotFoundError(`service ${id} not found`)
    app.searchIndex.indexer.notify()
    return toProbeView(outcome)
  })
}

export default servicesRoutes
