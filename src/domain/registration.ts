/**
 * Registration rules: the request schema (shape, lengths) and the domain checks a
 * schema cannot express (decimal places per currency, address per network family,
 * known category). One place, used by the API and by the demo seed.
 */
import { Type, type Static } from '@sinclair/typebox'
import { ValidationError } from '../errors.js'
import { requireCategory } from './categories.js'
import { HttpMethodEnum } from './http-method.js'
import { CURRENCIES, findCurrency, formatAtomic, parseDecimal } from './money.js'
import { isValidPaymentAddress, resolveNetwork } from './networks.js'
import type { ServiceUsage } from './payment.js'
import type { ServiceRecord } from './service.js'
import { computeTrustScore } from './trust.js'
import { canonicalEndpoint, MAX_ENDPOINT_LENGTH } from './endpoint-url.js'
import { MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, reinferredCategory, TagsSchema, type CategoryInferrer, type PrefillInfo } from './listing-text.js'

export { MAX_ENDPOINT_LENGTH }
/**
 * Raw endpoint input bound: the 2048-character limit applies to the canonical form, which
 * can be shorter (%7E → ~) or longer (non-ASCII is percent-encoded) than what was sent.
 */
export const MAX_ENDPOINT_INPUT_LENGTH = 4 * MAX_ENDPOINT_LENGTH
export const MAX_EXTRA_CHAINS = 16

const NameSchema = Type.String({ minLength: 1, maxLength: MAX_NAME_LENGTH, description: 'Counted in characters, not bytes' })
const DescriptionSchema = Type.String({ minLength: 1, maxLength: MAX_DESCRIPTION_LENGTH })
const EndpointSchema = Type.String({ minLength: 1, maxLength: MAX_ENDPOINT_INPUT_LENGTH, description: `Absolute http(s) URL of the paid endpoint; at most ${MAX_ENDPOINT_LENGTH} characters in canonical form` })
const CategorySchema = Type.String({ minLength: 1, maxLength: 64, description: 'An id from GET /api/categories' })
const NetworkSchema = Type.String({ minLength: 1, maxLength: 64, description: 'x402 v1 name (base, solana, …) or CAIP-2 id (eip155:8453, …)' })
const PricingSchema = Type.Object({
  currency: Type.String({ minLength: 1, maxLength: 16, description: `One of: ${Object.keys(CURRENCIES).join(', ')}` }),
  pricePerRequest: Type.String({ minLength: 1, maxLength: 32, description: 'Decimal string, > 0, at most the currency\'s decimals (USDC: 6)', examples: ['0.001'] }),
  freeQuota: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000 }))
}, { additionalProperties: false })
const X402ConfigSchema = Type.Object({
  paymentAddress: Type.String({ minLength: 1, maxLength: 128 }),
  network: NetworkSchema
}, { additionalProperties: false })
const SupportedChainsSchema = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: MAX_EXTRA_CHAINS, description: 'Extra networks the service also accepts' })

/** A complete registration: every field given (the seed, `catalog import`, and a full POST /api/services). */
export const RegistrationBodySchema = Type.Object({
  name: NameSchema,
  description: DescriptionSchema,
  endpoint: EndpointSchema,
  method: Type.Optional(HttpMethodEnum),
  category: CategorySchema,
  pricing: PricingSchema,
  x402Config: X402ConfigSchema,
  supportedChains: Type.Optional(SupportedChainsSchema),
  tags: Type.Optional(TagsSchema)
}, { additionalProperties: false })
export type RegistrationBody = Static<typeof RegistrationBodySchema>
/** A listing's fields as a record is built from them: a registration, or a source's item, whose price may be dynamic (null). */
export type ListingBody = Omit<RegistrationBody, 'pricing'> & { pricing: Omit<RegistrationBody['pricing'], 'pricePerRequest'> & { pricePerRequest: string | null } }

/**
 * POST /api/services: a complete registration, or the endpoint alone with whatever the
 * registrant wants to say itself; the rest is prefilled from the endpoint's 402 answer
 * (src/domain/prefill.ts) and the category inferred from the text.
 */
export const RegistrationRequestSchema = Type.Object({
  endpoint: EndpointSchema,
  method: Type.Optional(HttpMethodEnum),
  name: Type.Optional(NameSchema),
  description: Type.Optional(DescriptionSchema),
  category: Type.Optional(CategorySchema),
  network: Type.Optional({ ...NetworkSchema, description: 'The network to list, when the 402 answer offers several (the same as x402Config.network)' }),
  tags: Type.Optional(TagsSchema),
  pricing: Type.Optional(PricingSchema),
  x402Config: Type.Optional(X402ConfigSchema),
  supportedChains: Type.Optional(SupportedChainsSchema)
}, { additionalProperties: false, description: 'Send `endpoint` alone (and any field you want to set yourself): the catalog fills the rest from the endpoint\'s 402 answer. Explicit values win.' })
export type RegistrationRequest = Static<typeof RegistrationRequestSchema>

/** Signals the seed may set; a registration always starts from the defaults. */
export interface MonitoringState {
  status: ServiceRecord['status']
  uptimeScore: number | null
  lastChecked: string | null
}

export const INITIAL_MONITORING: MonitoringState = {
  status: 'unverified',
  uptimeScore: null,
  lastChecked: null
}

// C0 controls other than tab and newline have no business in names or descriptions.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARS = /[\u0000-\u0008\u000b-\u001f\u007f]/
// Bidi embeddings, overrides and isolates reorder what a reader sees (a name can be made
// to read as another); the implicit marks (U+200E, U+200F, U+061C) are left to RTL text.
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/
// What renders as nothing: format characters (zero-width space/joiners, soft hyphen,
// BOM), default-ignorables (Hangul fillers U+115F/U+1160/U+3164/U+FFA0, variation
// selectors, CGJ), white space, and the blank Braille pattern.
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{White_Space}\u2800]/gu

/**
 * Text a person reads (names, descriptions): not blank once invisible characters are
 * removed, no control characters (newlines and tabs only where multiline), no bidi
 * overrides. Returns the value trimmed of surrounding white space.
 */
export function checkText (field: string, value: string, multiline: boolean): string {
  checkWellFormed(field, value)
  if (value.replace(INVISIBLE, '') === '') throw new ValidationError(field, 'must not be blank (it has no visible characters)')
  if (CONTROL_CHARS.test(value) || (!multiline && /[\n\t]/.test(value))) {
    throw new ValidationError(field, 'must not contain control characters')
  }
  if (BIDI_CONTROLS.test(value)) throw new ValidationError(field, 'must not contain bidirectional override or isolate characters (U+202A–U+202E, U+2066–U+2069)')
  return value.trim()
}

/**
 * A lone UTF-16 surrogate (JSON "\ud800") cannot be stored as UTF-8: it would be echoed
 * in the answer yet saved as U+FFFD. Refused in every text field.
 */
// With the u flag a paired surrogate is one code point, so only unpaired halves match.
const LONE_SURROGATE = /\p{Cs}/u

// What checkText refuses, for cleanText to replace: the same character classes, every match.
const REFUSED_IN_TEXT = new RegExp(`${CONTROL_CHARS.source}|${BIDI_CONTROLS.source}`, 'g')
const REFUSED_IN_LINE = new RegExp(`${CONTROL_CHARS.source}|${BIDI_CONTROLS.source}|[\\n\\t]`, 'g')
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'gu')

/**
 * Text from an upstream list made to pass checkText's character rules instead of being refused:
 * control characters (tab and newline too where not multiline) and bidi controls become spaces,
 * unpaired surrogates U+FFFD.
 */
export function cleanText (value: string, multiline: boolean): string {
  return value.replace(LONE_SURROGATES, '\uFFFD').replace(multiline ? REFUSED_IN_TEXT : REFUSED_IN_LINE, ' ')
}

function checkWellFormed (field: string, value: string): void {
  if (LONE_SURROGATE.test(value)) throw new ValidationError(field, 'must not contain unpaired UTF-16 surrogates (invalid Unicode)')
}

/** Checks every string in the body, naming the first bad one by its dotted path. */
function checkAllWellFormed (value: unknown, path: string): void {
  if (typeof value === 'string') checkWellFormed(path, value)
  else if (Array.isArray(value)) value.forEach((item, index) => { checkAllWellFormed(item, `${path}.${index}`) })
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) checkAllWellFormed(item, path === '' ? key : `${path}.${key}`)
  }
}

/** Tags as stored: each checked like a name, duplicates (ignoring case) dropped. */
export function checkTags (field: string, tags: readonly string[]): string[] {
  const seen = new Set<string>()
  const kept: string[] = []
  for (const [index, tag] of tags.entries()) {
    const value = checkText(`${field}.${index}`, tag, false)
    if (seen.has(value.toLowerCase())) continue
    seen.add(value.toLowerCase())
    kept.push(value)
  }
  return kept
}

/** Canonical endpoint URL (see src/domain/endpoint-url.ts), or a ValidationError naming `endpoint`. */
export function normalizeEndpoint (value: string): string {
  return canonicalEndpoint(value)
}

/** Canonical CAIP-2 id for a network name or id, or a ValidationError naming `field`. */
export function canonicalNetwork (field: string, value: string): { id: string, family: 'evm' | 'svm' } {
  const network = resolveNetwork(value)
  if (network === undefined) throw new ValidationError(field, `unknown network "${value}"; use an x402 network name (base, solana, …) or a CAIP-2 id (eip155:8453, …)`)
  return network
}

/**
 * Builds the stored record for a registration (or a seeded service), or throws a
 * ValidationError naming the first offending field. Nothing is stored here.
 */
export function buildServiceRecord (
  body: ListingBody,
  identity: { id: string, ownerId: string | null, now: string },
  monitoring: MonitoringState = INITIAL_MONITORING,
  createdAt: string = identity.now,
  usage: ServiceUsage | null = null
): ServiceRecord {
  checkAllWellFormed(body, '')
  const name = checkText('name', body.name, false)
  const description = checkText('description', body.description, true)
  const endpoint = normalizeEndpoint(body.endpoint)
  requireCategory('category', body.category)
  const tags = checkTags('tags', body.tags ?? [])

  const currency = findCurrency(body.pricing.currency)
  if (currency === undefined) throw new ValidationError('pricing.currency', `must be one of: ${Object.keys(CURRENCIES).join(', ')}`)
  const price = body.pricing.pricePerRequest === null ? null : parseDecimal(body.pricing.pricePerRequest, currency.decimals)
  if (price !== null && !price.ok) throw new ValidationError('pricing.pricePerRequest', price.reason)
  if (price?.atomic === 0) throw new ValidationError('pricing.pricePerRequest', 'must be greater than 0')

  const network = canonicalNetwork('x402Config.network', body.x402Config.network)
  if (!isValidPaymentAddress(network.family, body.x402Config.paymentAddress)) {
    const expected = network.family === 'evm' ? '0x followed by 40 hex digits' : 'a base58 Solana address (32 bytes)'
    throw new ValidationError('x402Config.paymentAddress', `must be ${expected} on ${network.id}`)
  }
  const supportedChains = [network.id]
  for (const [index, chain] of (body.supportedChains ?? []).entries()) {
    const extra = canonicalNetwork(`supportedChains.${index}`, chain)
    // One payment address serves every listed chain, so they must share its family.
    if (extra.family !== network.family) throw new ValidationError(`supportedChains.${index}`, `"${chain}" is not an ${network.family.toUpperCase()} network like ${network.id}`)
    if (!supportedChains.includes(extra.id)) supportedChains.push(extra.id)
  }

  return {
    id: identity.id,
    name,
    description,
    endpoint,
    // The registration route replaces it with what the endpoint's 402 answer declares.
    resource: endpoint,
    method: body.method ?? 'GET',
    category: body.category,
    currency: currency.code,
    priceAtomic: price === null ? null : price.atomic,
    freeQuota: body.pricing.freeQuota ?? 0,
    paymentAddress: body.x402Config.paymentAddress,
    network: network.id,
    supportedChains,
    ...monitoring,
    usage,
    trustScore: computeTrustScore({ ...monitoring, usage }),
    paymentRequirements: null,
    ownerId: identity.ownerId,
    // Set by the registration route when the key proved control of the origin.
    claimed: false,
    tags,
    prefill: null,
    createdAt,
    updatedAt: identity.now
  }
}

/**
 * PATCH /api/services/:id: what an owner may change. The name and the endpoint stay (a new
 * endpoint is a new registration: delete and register, so ownership is decided again).
 * `pricing` and `x402Config` merge field by field; `supportedChains` replaces the extra chains.
 * A field changed here is the owner's from then on: probes no longer refresh it.
 */
export const ServicePatchSchema = Type.Object({
  description: Type.Optional(DescriptionSchema),
  method: Type.Optional(HttpMethodEnum),
  category: Type.Optional(CategorySchema),
  tags: Type.Optional(TagsSchema),
  pricing: Type.Optional(Type.Partial(PricingSchema, { additionalProperties: false, minProperties: 1 })),
  x402Config: Type.Optional(Type.Partial(X402ConfigSchema, { additionalProperties: false, minProperties: 1 })),
  supportedChains: Type.Optional(SupportedChainsSchema)
}, { additionalProperties: false, minProperties: 1 })
export type ServicePatch = Static<typeof ServicePatchSchema>

/** The fields a stored record was built from (its extra chains, its price as a decimal string, null when dynamic). */
export function registrationBodyOf (record: ServiceRecord): ListingBody {
  return {
    name: record.name,
    description: record.description,
    endpoint: record.endpoint,
    method: record.method,
    category: record.category,
    pricing: { currency: record.currency, pricePerRequest: record.priceAtomic === null ? null : formatAtomic(record.priceAtomic, findCurrency(record.currency)?.decimals ?? 6), freeQuota: record.freeQuota },
    x402Config: { paymentAddress: record.paymentAddress, network: record.network },
    supportedChains: record.supportedChains.slice(1),
    tags: record.tags
  }
}

/**
 * Applies an owner's change with the registration's own rules (buildServiceRecord), keeping
 * identity, creation time and monitoring figures. When something the probe checks changed
 * (method, network, chains, payment address, price), `reprobe` is true, and a verified service
 * is unverified again and forgets its probed requirements until a probe matches the new terms.
 * With `inferCategory`, a category that was inferred (not given, not patched) is inferred again
 * when the patch changes the description or the tags.
 */
export function applyServicePatch (record: ServiceRecord, patch: ServicePatch, now: string, inferCategory?: CategoryInferrer): { record: ServiceRecord, reprobe: boolean } {
  const current = registrationBodyOf(record)
  const body: ListingBody = {
    ...current,
    description: patch.description ?? current.description,
    method: patch.method ?? current.method,
    category: patch.category ?? current.category,
    tags: patch.tags ?? current.tags,
    pricing: { ...current.pricing, ...patch.pricing },
    x402Config: { ...current.x402Config, ...patch.x402Config },
    supportedChains: patch.supportedChains ?? current.supportedChains
  }
  const monitoring: MonitoringState = {
    status: record.status,
    uptimeScore: record.uptimeScore,
    lastChecked: record.lastChecked
  }
  // The identity stays: the endpoint does not change, and a method change is checked by the store's (resource, method) key.
  const next = { ...buildServiceRecord(body, { id: record.id, ownerId: record.ownerId, now }, monitoring, record.createdAt, record.usage), resource: record.resource }
  const reprobe = next.method !== record.method || next.network !== record.network || next.priceAtomic !== record.priceAtomic ||
    next.paymentAddress !== record.paymentAddress || next.supportedChains.join() !== record.supportedChains.join()
  next.claimed = record.claimed
  next.prefill = withoutPatched(record.prefill, patch)
  const textChanged = next.description !== record.description || next.tags.join('\u0000') !== record.tags.join('\u0000')
  if (textChanged && inferCategory !== undefined) next.category = reinferredCategory(next, inferCategory) ?? next.category
  if (!reprobe) return { record: { ...next, paymentRequirements: record.paymentRequirements }, reprobe }
  const status = record.status === 'verified' ? 'unverified' : record.status
  return { record: { ...next, status, trustScore: computeTrustScore({ ...monitoring, status, usage: record.usage }), paymentRequirements: null }, reprobe }
}

/** The prefilled fields a patch sets are the owner's from then on. */
function withoutPatched (prefill: PrefillInfo | null, patch: ServicePatch): PrefillInfo | null {
  if (prefill === null) return null
  const set = new Set<string>()
  if (patch.description !== undefined) set.add('description')
  if (patch.category !== undefined) set.add('category')
  if (patch.tags !== undefined) set.add('tags')
  if (patch.pricing?.pricePerRequest !== undefined) set.add('price')
  if (patch.x402Config?.paymentAddress !== undefined) set.add('paymentAddress')
  if (patch.x402Config?.network !== undefined) set.add('network')
  return { ...prefill, fields: prefill.fields.filter((field) => !set.has(field)) }
}
