/** /api/services: list, detail, status, registration (with endpoint ownership), owner changes and re-probes. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { payToKey } from '../domain/pay-to.js'
import { applyServicePatch, RegistrationRequestSchema, ServicePatchSchema } from '../domain/registration.js'
import { pairOf, prepareListing, refreshUsage as refreshListingUsage, storeListing } from '../application/register-listing.js'
import { ServiceDetailSchema, ServiceSchema, ServiceStatusSchema, toService, toServiceDetail, toServiceStatus, type ServiceRecord } from '../domain/service.js'
import { DEFAULT_PAGE_SIZE, DEFAULT_SORT, ListQuerySchema, NoQuerySchema, toStoreQuery } from '../domain/service-query.js'
import { ProbeSchema, toProbeView } from '../domain/probe-view.js'
import { toPaymentView } from '../domain/payment-view.js'
import { revenueSourceOf } from '../domain/usage.js'
import { attributedPayments, currentUsage, type PayToPair } from '../application/usage.js'
import { listingProof } from '../application/origin-proofs.js'
import { listingProvenance } from '../application/sync-source.js'
import { ForbiddenError, NotFoundError, ServiceDisplacedError } from '../errors.js'
import { ErrorSchema } from '../plugins/errors.js'
import { NoBody, PageQuerySchema } from './schemas/common.js'
import { PaymentsAnswer, ProbesAnswer, RegisteredServiceSchema, ServiceIdParams, ServiceListAnswer } from './schemas/services.js'

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
    if (record.ownerId !== request.ownerId) {
      // A registrant whose listing moved to the origin's proven owner learns why.
      const transfer = await app.store.getTransfer(id)
      if (transfer !== null && transfer.fromOwnerId === request.ownerId) throw new ForbiddenError(`service ${id} moved to another key on ${transfer.at}: ${transfer.reason}`)
    }
    // Seeded and synced services have no owner: saying "another key" would send people hunting for it.
    if (record.ownerId === null) {
      const sources = await listingProvenance(app.store, record.id)
      throw new ForbiddenError(sources.length > 0
        ? `service ${id} is listed by ${sources.map((source) => source.url).join(', ')} and has no owner: prove control of its origin (POST /api/claims) to own it`
        : `service ${id} was loaded from the seed (CATALOG_SEED) and has no owner: no API key can change it`)
    }
    if (record.ownerId !== request.ownerId) throw new ForbiddenError(`service ${id} belongs to another API key`)
    request.ownedService = record
  }

  const refreshUsage = async (request: FastifyRequest, record: ServiceRecord, pairs: PayToPair[]): Promise<ServiceRecord> =>
    await refreshListingUsage(app, request.log, record, pairs)

  app.get('/api/services', {
    // With ?query= the answer also follows the search index; without, only the catalog.
    config: { cache: (request) => ((request.query as { query?: string }).query === undefined ? 'store' : 'search') },
    schema: {
      tags: ['services'],
      summary: 'List services with filters, sorting and paging',
      querystring: ListQuerySchema,
      response: {
        200: ServiceListAnswer,
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
      summary: 'One service, with how to call it (callSchema) when its endpoint declares it',
      params: ServiceIdParams,
      response: { 200: ServiceDetailSchema, 404: ErrorSchema }
    }
  }, async (request) => {
    const record = await findService(request.params.id)
    return toServiceDetail(record, await listingProvenance(app.store, record.id), await listingProof(app.store, record))
  })

  // Not cached (nor are probes): a probe moves uptime and lastChecked without a change-feed event.
  app.get('/api/services/:id/status', {
    schema: {
      querystring: NoQuerySchema,
      tags: ['services'],
      summary: 'Trust and monitoring signals of one service, and why (the last probe)',
      params: ServiceIdParams,
      response: { 200: ServiceStatusSchema, 404: ErrorSchema }
    }
  }, async (request) => {
    const record = await findService(request.params.id)
    // Fresh from the payments: the figures kept on the record wait for the watcher's next refresh.
    const [lastProbe, usage] = await Promise.all([app.store.lastProbe(record.id), currentUsage(app.store, record, new Date())])
    return toServiceStatus(record, lastProbe, usage, revenueSourceOf(record.network, app.chainNetworks))
  })

  // Not cached: the chain watcher stores payments without a change-feed event.
  app.get('/api/services/:id/payments', {
    schema: {
      tags: ['services'],
      summary: 'x402 payments settled on-chain to this service, newest first (each checkable on a block explorer)',
      description: 'The payments its figures count: with a payTo other services share, those of its price, or all of the payTo\'s when some cannot be told apart (revenueScope "shared" in /status).',
      params: ServiceIdParams,
      querystring: PageQuerySchema,
      response: {
        200: PaymentsAnswer,
        400: ErrorSchema,
        404: ErrorSchema
      }
    }
  }, async (request, reply) => {
    const record = await findService(request.params.id)
    const result = await attributedPayments(app.store, record, { limit: request.query.limit ?? DEFAULT_PAGE_SIZE, offset: request.query.offset ?? 0 })
    void reply.header('x-total-count', result.total)
    return result.items.map(toPaymentView)
  })

  app.get('/api/services/:id/probes', {
    schema: {
      tags: ['services'],
      summary: 'Recent probes of one service, newest first',
      params: ServiceIdParams,
      querystring: PageQuerySchema,
      response: {
        200: ProbesAnswer,
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
      body: RegistrationRequestSchema,
      description: 'Send the endpoint alone (optionally method, network, name, description, category, tags): the catalog reads its 402 answer and fills in the rest (network, payTo, price, description, Bazaar serviceName and tags), records that answer as the first probe and answers the listing already verified; an endpoint without a valid x402 402 answer is a 422 and nothing is stored. A complete body is stored as given and probed once. Explicit values always win. Without a category, one is inferred from the text (categorySource). The 402 answer\'s declared resource URL (path and query, on the endpoint\'s origin) with the method is the listing\'s identity. An identity another listing holds is decided by the live answers: a registration matching (payTo, price, network) takes it over from one that does not; otherwise 409.',
      response: { 201: RegisteredServiceSchema, 400: ErrorSchema, 401: ErrorSchema, 409: ErrorSchema, 413: ErrorSchema, 422: ErrorSchema }
    }
  }, async (request, reply) => {
    const prepared = await prepareListing(app, request.ownerId, request.body)
    const stored = await storeListing(app, request.log, prepared)
    void reply.code(201).header('location', `/api/services/${stored.id}`)
    return { ...toService(stored), categorySource: prepared.categorySource, prefilled: stored.prefill?.fields ?? [] }
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
      description: 'Validated by the registration rules. A change to what the probe checks (method, network, chains, payTo, price) makes a verified service unverified until a probe matches again, and queues that probe. A category the catalog inferred (none was sent at registration) is inferred again when the description or tags change; a category sent here is the owner\'s from then on.',
      security: [{ bearerAuth: [] }],
      params: ServiceIdParams,
      body: ServicePatchSchema,
      response: { 200: ServiceSchema, 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema }
    }
  }, async (request) => {
    const { record, reprobe } = applyServicePatch(request.ownedService as ServiceRecord, request.body, new Date().toISOString(), app.inferCategory)
    if (!await app.store.updateService(record)) throw new NotFoundError(`service ${record.id} not found`)
    const before = request.ownedService as ServiceRecord
    // Price, network and payTo changes all re-probe: exactly the changes that move attribution.
    // A service that moved to another payTo must not keep the figures of the one it left.
    const moved = before.network !== record.network || payToKey(before.paymentAddress) !== payToKey(record.paymentAddress)
    const stored = reprobe ? await refreshUsage(request, record, [pairOf(before), { ...pairOf(record), always: moved && before.usage !== null }]) : record
    app.searchIndex.indexer.notify()
    if (reprobe) app.prober.enqueue(record.id)
    return toService(stored)
  })

  app.delete('/api/services/:id', {
    ...ownerOnly,
    schema: {
      querystring: NoQuerySchema,
      tags: ['services'],
      summary: 'Remove a service (owner\'s key)',
      security: [{ bearerAuth: [] }],
      params: ServiceIdParams,
      response: { 204: NoBody, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema }
    }
  }, async (request, reply) => {
    const deleted = request.ownedService as ServiceRecord
    if (!await app.store.deleteService(deleted.id)) throw new NotFoundError(`service ${deleted.id} not found`)
    await refreshUsage(request, deleted, [pairOf(deleted)])
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
      params: ServiceIdParams,
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
