/**
 * Probe a stored service and record the result: the one path the scheduler, the CLI and
 * on-demand probes (app.prober.probeService) share, so the lifecycle is applied once.
 */
import { failurePeriodFor } from '../domain/lifecycle.js'
import { liveTerms } from '../domain/live-terms.js'
import type { CategoryInferrer } from '../domain/listing-text.js'
import { probeTargetOf, type EndpointProber, type ProbeOutcome, type ProbeTarget } from '../domain/probe.js'
import type { CatalogStore } from '../store/catalog-store.js'
import type { ServiceRecord } from '../domain/service.js'

/** Share of the interval a scheduled probe moves by at random, so services registered together spread out. */
export const JITTER = 0.1

/** When to probe again: `interval` after this probe, ± JITTER; null when scheduled probing is off. */
export function nextProbeTime (checkedAtMs: number, intervalMs: number, random: () => number = Math.random): string | null {
  if (intervalMs <= 0) return null
  return new Date(checkedAtMs + intervalMs * (1 + JITTER * (2 * random() - 1))).toISOString()
}

export class ServiceMonitor {
  /** `inferCategory`: a listing whose category was inferred gets it inferred again when a probe changes its text. */
  constructor (
    private readonly store: CatalogStore, private readonly prober: EndpointProber, private readonly intervalMs: number,
    private readonly inferCategory?: CategoryInferrer
  ) {}

  /** Probes `target` (the stored service `id`) and records it; null when the service is gone by then. */
  async probeAndRecord (id: string, target: ProbeTarget, signal?: AbortSignal): Promise<ProbeOutcome | null> {
    const outcome = await this.prober.probe(target, signal)
    // A probe cut short by shutdown says nothing about the endpoint.
    if (signal?.aborted === true) return null
    const recorded = await this.#record(id, outcome)
    return recorded === null ? null : recorded.outcome
  }

  /** Records a probe made elsewhere (registration from the endpoint) with the lifecycle's rules; the service as stored, or null when it is gone. */
  async record (id: string, outcome: ProbeOutcome): Promise<ServiceRecord | null> {
    return (await this.#record(id, outcome))?.stored ?? null
  }

  /** Records the probe; an unowned listing whose terms a source gave first takes the live answer's (src/domain/live-terms.ts), and the probe is judged by them. */
  async #record (id: string, outcome: ProbeOutcome): Promise<{ stored: ServiceRecord, outcome: ProbeOutcome } | null> {
    let judged = outcome
    if (outcome.answered402 && !outcome.matched) {
      const service = await this.store.getService(id)
      const live = service === null ? null : liveTerms(service, outcome)
      if (service !== null && live !== null && await this.store.updateService({ ...service, ...live.terms, updatedAt: new Date().toISOString() })) judged = live.outcome
    }
    const policy = { failurePeriodMs: failurePeriodFor(this.intervalMs) }
    const next = nextProbeTime(Date.parse(judged.checkedAt), this.intervalMs)
    const stored = await this.store.recordProbe(id, judged, policy, next, this.inferCategory)
    return stored === null ? null : { stored, outcome: judged }
  }

  /** Probes a stored service now; null when no service has that id. */
  async probeService (id: string): Promise<ProbeOutcome | null> {
    const service = await this.store.getService(id)
    if (service === null) return null
    return await this.probeAndRecord(id, probeTargetOf(service))
  }
}
