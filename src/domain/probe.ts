/**
 * What a probe of a service's endpoint learns: the x402 payment requirements it advertises
 * (normalised to the v2 shape, CAIP-2 networks, atomic amounts) and whether they match the
 * registration. The prober (src/prober/) produces these; ownership, status and export read them.
 */
import type { DiscoveryOutcome } from './call-schema.js'
import type { HttpMethod } from './http-method.js'
import type { AnswerText } from './listing-text.js'

/** One `accepts` entry, v2 shape; v1 answers are converted (maxAmountRequired → amount, network → CAIP-2). */
export interface PaymentRequirement {
  scheme: string
  /** CAIP-2 id. */
  network: string
  /** Atomic units, decimal digits. */
  amount: string
  asset: string
  payTo: string
  maxTimeoutSeconds: number
  extra?: Record<string, unknown>
}

/** What the prober needs to know about a listing to check it. */
export interface ProbeTarget {
  endpoint: string
  method: HttpMethod
  /** CAIP-2 id of the registered network. */
  network: string
  paymentAddress: string
  /** Null: a dynamic price, which any amount matches. */
  priceAtomic: number | null
}

/** Only the target's fields of a listing (a ServiceRecord is one), so a probe carries no more of it. */
export function probeTargetOf (service: ProbeTarget): ProbeTarget {
  return { endpoint: service.endpoint, method: service.method, network: service.network, paymentAddress: service.paymentAddress, priceAtomic: service.priceAtomic }
}

export interface ProbeOutcome {
  /** ISO time the probe started. */
  checkedAt: string
  /** HTTP status of the final answer; null when none arrived (refused, timeout, blocked). */
  httpStatus: number | null
  /** x402 version of a parsed 402 answer, else null. */
  x402Version: number | null
  latencyMs: number | null
  /** The endpoint answered 402 with parseable x402 payment requirements. */
  answered402: boolean
  /** One accepts entry has the registered network, payTo and price. */
  matched: boolean
  /** Human reason: "matches", "payTo 0xab… differs from registered 0xcd…", "answered 200, not 402", … */
  reason: string
  /** The parsed accepts (all of them), or null when there was no valid 402 answer. */
  accepts: PaymentRequirement[] | null
  /**
   * The resource URL the 402 answer declares (v2 `resource.url`, v1 `accepts[].resource`) as
   * written; null or absent without one. A listing's identity (src/domain/endpoint-url.ts); not stored with probes.
   */
  resource?: string | null
  /** The v2 answer's `extensions`, when it has any (claims read theirs); not stored with probes. */
  extensions?: Record<string, unknown>
  /** The endpoint's discovery declaration (call schema), read from a valid 402 answer; absent otherwise. Kept on the service, not with probes. */
  discovery?: DiscoveryOutcome
  /** What the answer says about its resource (description, Bazaar serviceName and tags); refreshes prefilled text; not stored with probes. */
  text?: AnswerText
}

/** Probes one target now, without paying and without storing anything. */
export interface EndpointProber {
  probe (target: ProbeTarget, signal?: AbortSignal): Promise<ProbeOutcome>
}
