/**
 * Registering a listing: the one path POST /api/services and the origin import share. A
 * complete body is stored as given (probed once for its identity, verified by the scheduler
 * later); a body that leaves fields out is filled from the endpoint's 402 answer
 * (src/domain/prefill.ts), stored with that answer recorded as its first probe, so it is
 * `verified` at once when the prefilled terms are its own. Ownership rules apply either way:
 * a proven origin claim, and the takeover rules for an identity another listing holds.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { DuplicateEndpointError, EndpointNotPayableError, EndpointTakenError, ValidationError } from '../errors.js'
import { applyOriginClaim, assertMayList } from '../domain/claims.js'
import { listingResource, originOf } from '../domain/endpoint-url.js'
import { newServiceId } from '../domain/ids.js'
import { resolveNetwork } from '../domain/networks.js'
import { inferenceText, type PrefillInfo, type PrefilledField } from '../domain/listing-text.js'
import { decideOwnership, sameRequest } from '../domain/ownership.js'
import { chooseRequirement, listingText } from '../domain/prefill.js'
import { probeTargetOf, type ProbeOutcome } from '../domain/probe.js'
import { buildServiceRecord, normalizeEndpoint, type RegistrationBody, type RegistrationRequest } from '../domain/registration.js'
import type { ServiceRecord } from '../domain/service.js'
import { judgeAnswer, type EndpointAnswer } from '../prober/endpoint-prober.js'
import { refreshUsageOfPairs, type PayToPair } from './usage.js'

export const pairOf = (record: ServiceRecord): PayToPair => ({ network: record.network, payTo: record.paymentAddress })

/** A listing ready to store, and the probe that goes with it. */
export interface PreparedListing {
  record: ServiceRecord
  /** The answer to the listing's own request (identity, takeover decisions). */
  outcome: ProbeOutcome
  /** Whether `outcome` is recorded as the listing's first probe (prefilled listings). */
  recordOutcome: boolean
  categorySource: 'given' | 'inferred'
  /** The endpoint's parsed answer, when the listing was filled from it (a re-import judges it against the listing it updates). */
  answer?: Extract<EndpointAnswer, { ok: true }>
}

/**
 * Builds the listing a request describes, probing its endpoint; stores nothing. Throws a
 * ValidationError for a bad field, EndpointNotPayableError when fields are missing and the
 * endpoint gives no valid x402 402 answer to fill them from, OriginClaimedError when the
 * origin's proven owner is another key.
 */
export async function prepareListing (app: FastifyInstance, ownerId: string | null, body: RegistrationRequest, importedFrom?: string): Promise<PreparedListing> {
  const endpoint = normalizeEndpoint(body.endpoint)
  const method = body.method ?? 'GET'
  const origin = originOf(endpoint)
  // Refused before probing; the store checks again as it writes (a proof may land in between).
  const proven = await app.store.provenClaim(origin)
  assertMayList(ownerId, proven)
  if (body.network !== undefined && body.x402Config !== undefined && (resolveNetwork(body.network)?.id ?? body.network) !== (resolveNetwork(body.x402Config.network)?.id ?? body.x402Config.network)) {
    throw new ValidationError('network', `"${body.network}" differs from x402Config.network "${body.x402Config.network}"; send one of them`)
  }
  const identity = { id: newServiceId(), ownerId, now: new Date().toISOString() }
  const { name, description, pricing, x402Config } = body
  if (name !== undefined && description !== undefined && pricing !== undefined && x402Config !== undefined && importedFrom === undefined) {
    const category = body.category ?? app.inferCategory(inferenceText({ name, description, tags: body.tags }))
    const built = applyOriginClaim(buildServiceRecord({ ...body, name, description, pricing, x402Config, category, method }, identity), proven)
    if (body.category === undefined) built.prefill = { fields: ['category'] }
    // The listing's identity is the resource its 402 answer declares (so `/paid/` answering as
    // `/paid` is `/paid`); one probe, not recorded, that also decides a takeover.
    const outcome = await app.prober.probe(probeTargetOf(built))
    return { record: { ...built, resource: listingResource(built.endpoint, outcome.resource) }, outcome, recordOutcome: false, categorySource: body.category === undefined ? 'inferred' : 'given' }
  }

  const read = await app.prober.read(endpoint, method)
  if (!read.ok) throw new EndpointNotPayableError(read.outcome.reason)
  const fields: PrefilledField[] = []
  const chosen = pricing === undefined || x402Config === undefined ? chooseRequirement(read.payment.accepts, x402Config?.network ?? body.network, x402Config === undefined ? 'network' : 'x402Config.network') : null
  const text = listingText(read.payment.text, endpoint, method, { description })
  const full: RegistrationBody = {
    endpoint,
    method,
    name: name ?? text.name,
    description: description ?? text.description,
    tags: body.tags ?? text.tags,
    category: body.category ?? '',
    pricing: pricing ?? { currency: (chosen as NonNullable<typeof chosen>).currency, pricePerRequest: (chosen as NonNullable<typeof chosen>).price },
    x402Config: x402Config ?? { paymentAddress: (chosen as NonNullable<typeof chosen>).requirement.payTo, network: (chosen as NonNullable<typeof chosen>).requirement.network },
    ...(body.supportedChains === undefined ? {} : { supportedChains: body.supportedChains })
  }
  if (name === undefined) fields.push('name')
  if (description === undefined) fields.push('description')
  if (body.tags === undefined) fields.push('tags')
  if (pricing === undefined) fields.push('price')
  if (x402Config === undefined) {
    fields.push('paymentAddress')
    if (body.network === undefined) fields.push('network')
  }
  if (body.category === undefined) {
    full.category = app.inferCategory(inferenceText(full))
    fields.push('category')
  }
  const built = applyOriginClaim(buildServiceRecord(full, identity), proven)
  const prefill: PrefillInfo = { fields }
  if (importedFrom !== undefined) prefill.importedFrom = importedFrom
  built.prefill = prefill
  // The probe is this answer judged against the listing it filled: matched by construction
  // unless an explicit price or payTo says otherwise.
  const outcome = judgeAnswer(read, probeTargetOf(built))
  return { record: { ...built, resource: listingResource(built.endpoint, outcome.resource) }, outcome, recordOutcome: true, categorySource: body.category === undefined ? 'inferred' : 'given', answer: read }
}

/**
 * Stores a registration whose identity (resource, method) another listing holds, when the
 * live answers say it owns it; answers the displaced holder. `outcome` is the answer to the
 * registration's own request; the holder is judged by the answer to its own.
 */
async function takeOver (app: FastifyInstance, record: ServiceRecord, outcome: ProbeOutcome): Promise<ServiceRecord | null> {
  const holder = await app.store.findServiceByResource(record.resource, record.method)
  // The holder went away between the insert and this read: try again as a plain registration.
  if (holder === null) {
    await app.store.insertService(record)
    return null
  }
  const holderOutcome = sameRequest(record, holder) ? outcome : await app.prober.probe(probeTargetOf(holder))
  const decision = decideOwnership(record, holder, outcome, holderOutcome)
  if (decision.kind === 'refuse') throw new EndpointTakenError(decision.reason)
  const displaced = await app.store.displaceService(holder, record, {
    id: holder.id, displacedBy: record.id, endpoint: holder.endpoint, ownerId: holder.ownerId, reason: decision.reason, at: record.createdAt
  })
  if (!displaced) throw new EndpointTakenError(`${holder.endpoint} is listed by ${holder.id}, which changed while ownership was being decided; try again`)
  app.log.info({ serviceId: record.id, displaced: holder.id }, 'endpoint taken over')
  return holder
}

/**
 * Who lists a payTo, and at what price, decides whose its payments are: after a write that
 * may change that, the sharers' stored figures (and trust scores) follow. The write stands
 * whatever happens here; the chain watcher's next refresh mends a failure.
 */
export async function refreshUsage (app: FastifyInstance, log: FastifyBaseLogger, record: ServiceRecord, pairs: PayToPair[]): Promise<ServiceRecord> {
  try {
    const stored = await refreshUsageOfPairs(app.store, pairs, new Date())
    return stored.find((s) => s.id === record.id) ?? record
  } catch (err) {
    log.error({ err }, 'could not refresh usage figures after a write')
    return record
  }
}

/** Stores a prepared listing (taking its identity over when the rules allow) and records or queues its probe; the listing as stored. */
export async function storeListing (app: FastifyInstance, log: FastifyBaseLogger, prepared: PreparedListing): Promise<ServiceRecord> {
  const { record, outcome } = prepared
  let displaced: ServiceRecord | null = null
  try {
    await app.store.insertService(record)
  } catch (err) {
    if (!(err instanceof DuplicateEndpointError)) throw err
    displaced = await takeOver(app, record, outcome)
  }
  let stored = record
  if (prepared.recordOutcome) stored = await app.prober.record(record.id, outcome) ?? record
  stored = await refreshUsage(app, log, stored, displaced === null ? [pairOf(record)] : [pairOf(record), pairOf(displaced)])
  app.searchIndex.indexer.notify()
  if (!prepared.recordOutcome) app.prober.enqueue(record.id)
  return stored
}
