/**
 * A Bazaar discovery item (one entry of a facilitator's `GET /discovery/resources`, x402 v1 or
 * v2) read as a listing, the way registration from the endpoint reads a 402 answer
 * (src/domain/prefill.ts): the first `exact` USDC payment with a positive amount on a network
 * the catalog knows gives price, network and payTo; without one, the first USDC payment on a
 * known network gives network and payTo, and the price is dynamic (null: an empty or zero
 * amount, another scheme); `serviceName` (else a catalog export's `metadata.name`),
 * `description` and `tags` give the text (a v1 item has no name: it is derived as registration
 * does); the method is the one the item's call schema
 * declares, else GET. Upstream text is cleaned rather than refused: control and bidi-override
 * characters become spaces, unpaired surrogates U+FFFD, over-long text is cut. An item is refused
 * alone, with its reason, when it names no HTTP resource, asks no USDC on a known network, or is over
 * MAX_ITEM_BYTES. Nothing an item says about its own status or usage (`quality`, the rest of `metadata`) is read.
 */
import { ValidationError } from '../errors.js'
import { HTTP_METHODS, type HttpMethod } from './http-method.js'
import { MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, type AnswerText } from './listing-text.js'
import { fixedAmount } from './live-terms.js'
import { choosePayment, chooseRequirement, listingText } from './prefill.js'
import type { PaymentRequirement } from './probe.js'
import { cleanText, normalizeEndpoint, type ListingBody } from './registration.js'

/** An item's JSON above this is refused (real items are 1–5 KB; a call schema may add some). */
export const MAX_ITEM_BYTES = 64 * 1024
/** Characters of an item's resource kept to name it in a report. */
const ITEM_NAME_LENGTH = 200

export type ItemRead =
  | { ok: true, body: ListingBody & { method: HttpMethod, category: '' } }
  | { ok: false, item: string, reason: string }

type Json = Record<string, unknown>

/** Helpers the readers of upstream items share (this file, src/domain/catalog-item.ts, src/application/follow-catalog.ts). */
export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
export const text = (value: unknown): string | undefined => typeof value === 'string' ? value : undefined

/** Upstream text cleaned (cleanText) and cut to `max` characters. */
export function cut (value: string, max: number, multiline: boolean): string
export function cut (value: string | undefined, max: number, multiline: boolean): string | undefined
export function cut (value: string | undefined, max: number, multiline: boolean): string | undefined {
  if (value === undefined) return undefined
  return [...cleanText(value, multiline)].slice(0, max).join('')
}

/** An item's tags, each cleaned (the Bazaar's rules then keep or drop them); undefined when it has no list. */
export function cleanTags (value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.flatMap((tag) => typeof tag === 'string' ? [cleanText(tag, false)] : []) : undefined
}

/** An upstream item's address (resource, endpoint) as a report names it, cleaned and cut. */
export function itemName (value: string): string {
  return cut(value, ITEM_NAME_LENGTH, false)
}

/** Why an item is refused for its size (`noun`: how the report calls it), or null when it is within MAX_ITEM_BYTES. */
export function oversized (value: unknown, noun: string): string | null {
  const size = Buffer.byteLength(JSON.stringify(value) ?? '')
  return size > MAX_ITEM_BYTES ? `${noun} is ${Math.ceil(size / 1024)} KiB, over ${MAX_ITEM_BYTES / 1024} KiB` : null
}

/** The payment entries of an item as the prober normalises a 402 answer's (v1 maxAmountRequired is v2 amount); malformed entries are skipped. */
function requirementsOf (accepts: unknown): Array<{ requirement: PaymentRequirement, raw: Json }> {
  if (!Array.isArray(accepts)) return []
  return accepts.flatMap((raw) => {
    if (!isObject(raw)) return []
    const [scheme, network, asset, payTo] = [raw.scheme, raw.network, raw.asset, raw.payTo].map(text)
    const amount = text(raw.amount) ?? text(raw.maxAmountRequired) ?? ''
    if (scheme === undefined || network === undefined || asset === undefined || payTo === undefined) return []
    return [{ requirement: { scheme, network, amount, asset, payTo, maxTimeoutSeconds: typeof raw.maxTimeoutSeconds === 'number' ? raw.maxTimeoutSeconds : 60 }, raw }]
  })
}

/** The HTTP method an item's call schema declares (v2: extensions.bazaar.info.input; v1: the entry's outputSchema.input). */
function methodOf (item: Json, entry: Json | undefined): HttpMethod {
  const v2 = isObject(item.extensions) && isObject(item.extensions.bazaar) && isObject(item.extensions.bazaar.info) && isObject(item.extensions.bazaar.info.input) ? item.extensions.bazaar.info.input.method : undefined
  const v1 = entry !== undefined && isObject(entry.outputSchema) && isObject(entry.outputSchema.input) ? entry.outputSchema.input.method : undefined
  const method = text(v2 ?? v1)?.toUpperCase()
  return (HTTP_METHODS as readonly string[]).includes(method ?? '') ? method as HttpMethod : 'GET'
}

/** A payment entry with a fixed price (fixedAmount: `exact`, a positive whole amount the catalog can list). */
function fixedPrice (requirement: PaymentRequirement): boolean {
  return fixedAmount(requirement.scheme, requirement.amount) !== null
}

/** The terms a listing is made from: a fixed price when an entry offers one, else a payable entry with its price dynamic (null). */
function chooseTerms (requirements: readonly PaymentRequirement[]): { requirement: PaymentRequirement, currency: string, price: string | null } {
  const priced = requirements.filter(fixedPrice)
  if (priced.length > 0) return chooseRequirement(priced, undefined)
  const { requirement, currency } = choosePayment(requirements, undefined)
  return { requirement, currency: currency.code, price: null }
}

/**
 * A resource an origin's document lists, read from its own 402 answer (an `origin` source) by
 * the rules an item is read by: its terms and the text the answer offers.
 */
export function readAnswerItem (endpoint: string, method: HttpMethod, accepts: readonly PaymentRequirement[], answer: AnswerText | undefined): ItemRead {
  if (accepts.length === 0) return { ok: false, item: endpoint, reason: 'accepts lists no payment entry' }
  try {
    return { ok: true, body: listedBody(endpoint, method, chooseTerms(accepts), answer) }
  } catch (err) {
    if (err instanceof ValidationError) return { ok: false, item: endpoint, reason: err.message }
    throw err
  }
}

/** The listing an item or answer makes from its chosen payment entry and its text. */
function listedBody (endpoint: string, method: HttpMethod, chosen: ReturnType<typeof chooseTerms>, answer: AnswerText | undefined): Extract<ItemRead, { ok: true }>['body'] {
  const listed = listingText(answer, endpoint, method)
  return {
    endpoint,
    method,
    name: listed.name,
    description: listed.description,
    tags: listed.tags,
    category: '',
    pricing: { currency: chosen.currency, pricePerRequest: chosen.price },
    x402Config: { paymentAddress: chosen.requirement.payTo, network: chosen.requirement.network }
  }
}

/** Reads one item; `position` (1-based) names it in a report when it has no resource. */
export function readBazaarItem (item: unknown, position: number): ItemRead {
  const name = isObject(item) && typeof item.resource === 'string' ? itemName(item.resource) : `item ${position}`
  const tooLarge = oversized(item, 'the item')
  if (tooLarge !== null) return { ok: false, item: name, reason: tooLarge }
  if (!isObject(item)) return { ok: false, item: name, reason: 'not an object' }
  if (item.type !== undefined && item.type !== 'http') return { ok: false, item: name, reason: `type ${JSON.stringify(item.type)} is not an HTTP resource` }
  if (typeof item.resource !== 'string') return { ok: false, item: name, reason: 'no resource URL' }
  try {
    const endpoint = normalizeEndpoint(item.resource)
    const entries = requirementsOf(item.accepts)
    if (entries.length === 0) return { ok: false, item: name, reason: 'accepts lists no payment entry' }
    const chosen = chooseTerms(entries.map(({ requirement }) => requirement))
    const entry = entries.find(({ requirement }) => requirement === chosen.requirement)?.raw
    const method = methodOf(item, entry)
    const answer: AnswerText = {}
    const description = cut(text(item.description) ?? text(entry?.description), MAX_DESCRIPTION_LENGTH, true)
    if (description !== undefined) answer.description = description
    // A catalog's export keeps a name the Bazaar's serviceName rules refuse (non-ASCII, long) in metadata.name.
    const metadataName = isObject(item.metadata) ? text(item.metadata.name) : undefined
    const serviceName = cut(text(item.serviceName) ?? metadataName, MAX_NAME_LENGTH, false)
    if (serviceName !== undefined) answer.serviceName = serviceName
    const tags = cleanTags(item.tags)
    if (tags !== undefined) answer.tags = tags
    return { ok: true, body: listedBody(endpoint, method, chosen, answer) }
  } catch (err) {
    if (err instanceof ValidationError) return { ok: false, item: name, reason: err.message.replace(/the endpoint's 402 answer/g, 'the item') }
    throw err
  }
}
