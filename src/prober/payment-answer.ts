/**
 * Reads a 402 answer the way x402 clients do, with the official @x402/core: the v2
 * PAYMENT-REQUIRED header first, else a v1 JSON body, validated with
 * parsePaymentRequired (which, unlike x402/types, accepts real v1 bodies). Accepts are
 * normalised to the catalog's PaymentRequirement (CAIP-2 network, atomic `amount`).
 */
import { decodePaymentRequiredHeader } from '@x402/core/http'
import { parsePaymentRequired } from '@x402/core/schemas'
import { resolveNetwork } from '../domain/networks.js'
import type { PaymentRequirement } from '../domain/probe.js'
import type { AnswerText } from '../domain/listing-text.js'
import { answerTextOf } from './answer-text.js'
import type { DeclaringAnswer } from './discovery-info.js'

export type PaymentAnswer =
  | {
    ok: true
    x402Version: number
    accepts: PaymentRequirement[]
    resource: string | null
    extensions?: Record<string, unknown>
    /** What the answer says about its resource (description, Bazaar serviceName and tags). */
    text?: AnswerText
    /** The validated answer as sent, for readDiscovery (src/prober/discovery-info.ts). */
    declaring: DeclaringAnswer
  }
  | { ok: false, reason: string }

interface ZodIssueLike { path: Array<string | number>, message: string }

function firstIssue (error: { issues: ZodIssueLike[] }): string {
  const issue = error.issues[0]
  if (issue === undefined) return 'invalid'
  return issue.path.length === 0 ? issue.message : `${issue.path.join('.')}: ${issue.message}`
}

/** One accepts entry of either version, as the schemas let it through. */
interface RawRequirement {
  scheme: string
  network: string
  amount?: string
  maxAmountRequired?: string
  asset: string
  payTo: string
  maxTimeoutSeconds: number
  extra?: Record<string, unknown>
  /** v1 only: the resource URL. */
  resource?: string
}

export function normaliseRequirement (raw: RawRequirement): PaymentRequirement {
  const requirement: PaymentRequirement = {
    scheme: raw.scheme,
    // Unknown networks are kept as written: the match then names them.
    network: resolveNetwork(raw.network)?.id ?? raw.network,
    amount: raw.amount ?? raw.maxAmountRequired ?? '',
    asset: raw.asset,
    payTo: raw.payTo,
    maxTimeoutSeconds: raw.maxTimeoutSeconds
  }
  if (raw.extra !== undefined && raw.extra !== null) requirement.extra = raw.extra
  return requirement
}

function withinFieldLimits (raw: RawRequirement): boolean {
  return [raw.scheme, raw.network, raw.amount, raw.maxAmountRequired, raw.asset, raw.payTo]
    .every((field) => typeof field !== 'string' || field.length <= MAX_REQUIREMENT_FIELD)
}

function validate (value: unknown, source: string): PaymentAnswer {
  const parsed = parsePaymentRequired(value)
  if (!parsed.success) return { ok: false, reason: `${source}: ${firstIssue(parsed.error as unknown as { issues: ZodIssueLike[] })}` }
  const answer = parsed.data as { x402Version: number, accepts: Array<RawRequirement & { outputSchema?: unknown }>, resource?: { url?: unknown }, extensions?: unknown }
  if (answer.accepts.length === 0) return { ok: false, reason: `${source}: accepts is empty` }
  const usable = answer.accepts.filter(withinFieldLimits)
  if (usable.length === 0) return { ok: false, reason: `${source}: every accepts entry has a field over ${MAX_REQUIREMENT_FIELD} characters` }
  // v2 declares the resource once; v1 in every entry (the first one's is taken).
  const declared = answer.resource?.url ?? answer.accepts[0]?.resource
  const result: PaymentAnswer & { ok: true } = { ok: true, x402Version: answer.x402Version, accepts: usable.map(normaliseRequirement), resource: typeof declared === 'string' ? declared : null, declaring: answer }
  if (typeof answer.extensions === 'object' && answer.extensions !== null && !Array.isArray(answer.extensions)) result.extensions = answer.extensions as Record<string, unknown>
  const text = answerTextOf(answer as Parameters<typeof answerTextOf>[0])
  if (Object.keys(text).length > 0) result.text = text
  return result
}

/**
 * Parses the payment requirements of a 402 answer. `header` is the PAYMENT-REQUIRED
 * header (v2), `body` the response body as text (v1), null when not read.
 */
export function parsePaymentAnswer (header: string | undefined, body: string | null): PaymentAnswer {
  if (header !== undefined) {
    let decoded: unknown
    try {
      decoded = decodePaymentRequiredHeader(header.trim())
    } catch {
      return { ok: false, reason: 'invalid PAYMENT-REQUIRED header: not base64-encoded JSON' }
    }
    return validate(decoded, 'invalid PAYMENT-REQUIRED header')
  }
  if (body === null || body.trim() === '') return { ok: false, reason: 'answered 402 without payment requirements (no PAYMENT-REQUIRED header, empty body)' }
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    return { ok: false, reason: 'answered 402 without payment requirements (no PAYMENT-REQUIRED header, body is not JSON)' }
  }
  return validate(json, 'invalid x402 body')
}

/** Longest string field of an accepts entry worth keeping: addresses, amounts, ids are far shorter. */
export const MAX_REQUIREMENT_FIELD = 256
/** Bytes of an entry's `extra` kept (as JSON): EIP-712 name and version and their like fit many times. */
export const MAX_EXTRA_BYTES = 1024
/** Entries kept of an answer that matched nothing (the provider reads them in its probes). */
export const MAX_KEPT_ACCEPTS = 4

/**
 * `extra` as kept: its scalar fields (strings up to MAX_REQUIREMENT_FIELD characters,
 * numbers, booleans) in their order while the JSON stays within MAX_EXTRA_BYTES; objects,
 * arrays and long strings are left out. undefined when nothing is left.
 */
export function boundExtra (extra: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (extra === undefined) return undefined
  if (Buffer.byteLength(JSON.stringify(extra)) <= MAX_EXTRA_BYTES) return extra
  const kept: Record<string, unknown> = {}
  let bytes = 2
  for (const [key, value] of Object.entries(extra)) {
    const scalar = typeof value === 'number' || typeof value === 'boolean' || (typeof value === 'string' && value.length <= MAX_REQUIREMENT_FIELD)
    if (!scalar || key.length > MAX_REQUIREMENT_FIELD) continue
    const size = Buffer.byteLength(JSON.stringify({ [key]: value })) - 1
    if (bytes + size > MAX_EXTRA_BYTES) break
    kept[key] = value
    bytes += size
  }
  return Object.keys(kept).length === 0 ? undefined : kept
}

function bounded (entry: PaymentRequirement): PaymentRequirement {
  const { extra, ...fields } = entry
  const kept = boundExtra(extra)
  return kept === undefined ? fields : { ...fields, extra: kept }
}

/**
 * What a probe keeps of an answer's accepts: the provider writes them, and probes, listings,
 * the export and discovery serve them, so they are bounded. A match keeps the one matching
 * entry; otherwise at most MAX_KEPT_ACCEPTS entries. Each entry's `extra` is bounded
 * (boundExtra); an entry with a string field over MAX_REQUIREMENT_FIELD characters was never
 * usable and is dropped (parsePaymentAnswer leaves such entries out).
 */
export function keptAccepts (accepts: readonly PaymentRequirement[], matched: PaymentRequirement | null): PaymentRequirement[] {
  return (matched === null ? accepts.slice(0, MAX_KEPT_ACCEPTS) : [matched]).map(bounded)
}
