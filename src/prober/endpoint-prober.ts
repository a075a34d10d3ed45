/** EndpointProber over HTTP: request like a paying client, read the 402, compare with the registration. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../paths.js'
import { matchRequirements } from '../domain/probe-match.js'
import type { EndpointProber, ProbeOutcome, ProbeTarget } from '../domain/probe.js'
import { ProbeHttpClient, type HttpClientOptions } from './http-client.js'
import { keptAccepts, parsePaymentAnswer, type PaymentAnswer } from './payment-answer.js'
import { readDiscovery } from './discovery-info.js'
import { discoveryNote } from '../domain/call-schema.js'

/** An endpoint's answer as read: a valid x402 402 (parsed, `url` the one that answered it), or the failed probe saying why not. */
export type EndpointAnswer =
  | { ok: true, checkedAt: string, latencyMs: number, url: string, payment: Extract<PaymentAnswer, { ok: true }> }
  | { ok: false, outcome: ProbeOutcome }

/** The probe of `target` an answer makes: whether it matches the registration, what is kept of it, its call schema. */
export function judgeAnswer (read: Extract<EndpointAnswer, { ok: true }>, target: ProbeTarget): ProbeOutcome {
  const { payment } = read
  const match = matchRequirements(target, payment.accepts)
  const discovery = readDiscovery(payment.declaring, target.method)
  return {
    checkedAt: read.checkedAt,
    httpStatus: 402,
    x402Version: payment.x402Version,
    latencyMs: read.latencyMs,
    answered402: true,
    matched: match.matched,
    reason: match.reason + discoveryNote(discovery),
    accepts: keptAccepts(payment.accepts, match.matched ? match.requirement : null),
    resource: payment.resource,
    ...(payment.extensions === undefined ? {} : { extensions: payment.extensions }),
    ...(payment.text === undefined ? {} : { text: payment.text }),
    discovery
  }
}

/** A document read from an origin: parsed JSON and the URL that served it, or why it could not be read. */
/** `status`: the answer's, when it was not 200 (a feed's 410 says start again). */
export type OriginDocumentRead = { ok: true, url: string, document: unknown } | { ok: false, reason: string, status?: number }

export type HttpProberOptions = Omit<HttpClientOptions, 'userAgent'> & { userAgent?: string }

const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string, homepage?: string }

/** Says who is calling, so a provider reading its logs can find the catalog. */
export const PROBER_USER_AGENT = `x402-service-catalog-prober/${pkg.version} (+${pkg.homepage ?? 'x402-service-catalog'})`

export class HttpEndpointProber implements EndpointProber {
  readonly #client: ProbeHttpClient

  constructor (options: HttpProberOptions) {
    this.#client = new ProbeHttpClient({ userAgent: PROBER_USER_AGENT, ...options })
  }

  async probe (target: ProbeTarget, signal?: AbortSignal): Promise<ProbeOutcome> {
    const read = await this.read(target.endpoint, target.method, { signal })
    return read.ok ? judgeAnswer(read, target) : read.outcome
  }

  /**
   * Requests an endpoint like a paying client and parses its 402 answer, judging nothing
   * (registration from the endpoint reads the terms before it has any to compare). With
   * `sameOrigin`, a redirect off the endpoint's origin fails the read (the answer is proof).
   */
  async read (endpoint: string, method: string, options: { signal?: AbortSignal, sameOrigin?: boolean } = {}): Promise<EndpointAnswer> {
    const checkedAt = new Date().toISOString()
    const answer = await this.#client.request(endpoint, method, options)
    const failed = (httpStatus: number | null, latencyMs: number | null, reason: string): EndpointAnswer =>
      ({ ok: false, outcome: { checkedAt, httpStatus, x402Version: null, latencyMs, answered402: false, matched: false, reason, accepts: null } })
    if (!answer.ok) return failed(null, answer.latencyMs, answer.reason)
    if (answer.status !== 402) return failed(answer.status, answer.latencyMs, `answered ${answer.status}, not 402`)
    const header = answer.headers['payment-required']
    const payment = parsePaymentAnswer(Array.isArray(header) ? header[0] : header, answer.body)
    if (!payment.ok) return failed(402, answer.latencyMs, payment.reason)
    return { ok: true, checkedAt, latencyMs: answer.latencyMs, url: answer.url, payment }
  }

  /**
   * GETs a small JSON document an origin publishes about itself (claim tokens, its resource
   * list) through the probe client: the same SSRF guard, per-address cap and time budget, the
   * body bounded to `maxBytes`, and redirects only within the URL's own origin (the document
   * is proof of what the origin says). `url` is the one that served it.
   */
  async fetchOriginDocument (url: string, maxBytes: number): Promise<OriginDocumentRead> {
    const answer = await this.#client.request(url, 'GET', { readBodyUpTo: maxBytes, sameOrigin: true })
    if (!answer.ok) return { ok: false, reason: answer.reason }
    if (answer.status !== 200) return { ok: false, reason: `answered ${answer.status}, not 200`, status: answer.status }
    try {
      return { ok: true, url: answer.url, document: JSON.parse(answer.body ?? '') as unknown }
    } catch {
      return { ok: false, reason: 'the body is not JSON' }
    }
  }

  async close (): Promise<void> {
    await this.#client.close()
  }
}
