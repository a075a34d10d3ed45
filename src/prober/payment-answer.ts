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

export type PaymentAnswer =
  | { ok: true, x402Version: number, accepts: PaymentRequirement[], resource: string | null, extensions?: Record<string, unknown> }
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

function validate (value: unknown, source: string): PaymentAnswer {
  const parsed = parsePaymentRequired(value)
  if (!parsed.success) return { ok: false, reason: `${source}: ${firstIssue(parsed.error as unknown as { issues: ZodIssueLike[] })}` }
  const answer = parsed.data as { x402Version: number, accepts: RawRequirement[], resource?: { url?: unknown }, extensions?: unknown }
  if (answer.accepts.length === 0) return { ok: false, reason: `${source}: accepts is empty` }
  // v2 declares the resource once; v1 in every entry (the first one's is taken).
  const declared = answer.resource?.url ?? answer.accepts[0]?.resource
  const result: PaymentAnswer = { ok: true, x402Version: answer.x402Version, accepts: answer.accepts.map(normaliseRequirement), resource: typeof declared === 'string' ? declared : null }
  if (typeof answer.extensions === 'object' && answer.extensions !== null && !Array.isArray(answer.extensions)) result.extensions = answer.extensions as Record<string, unknown>
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
