/**
 * Status lifecycle driven by probes (rules in docs/api.md, "Status, trust score and usage"):
 *   - a matching probe makes a service `verified`;
 *   - a valid 402 that does not match makes it `unverified` (the reason says why);
 *   - a probe without a valid 402 answer (refused, timeout, 200, garbage) is a failure:
 *     the status stays until FAILURES_FOR_INACTIVE consecutive failures spanning at least
 *     the failure period, then `inactive`;
 *   - the next valid 402 brings it back (`verified` or `unverified` by the match).
 * uptimeScore = percentage of probes with a valid 402 answer among the probes of the
 * last UPTIME_WINDOW_MS (at most PROBE_HISTORY_LIMIT of them).
 */
import type { PaymentRequirement, ProbeOutcome } from './probe.js'
import type { ServiceRecord } from './service.js'
import type { ServiceUsage } from './payment.js'
import type { PrefillInfo } from './listing-text.js'
import { computeTrustScore, type ServiceStatus } from './trust.js'

export const FAILURES_FOR_INACTIVE = 3
export const UPTIME_WINDOW_MS = 7 * 24 * 3600 * 1000
/** Probes kept per service (older ones are pruned); also bounds the uptime window. */
export const PROBE_HISTORY_LIMIT = 200
/** Longest failure period asked for: three failures over 30 minutes is a real outage at any interval. */
export const MAX_FAILURE_PERIOD_MS = 30 * 60 * 1000

/** The part of a service the lifecycle changes. */
export interface MonitoringUpdate {
  status: ServiceStatus
  uptimeScore: number | null
  lastChecked: string
  trustScore: number
  paymentRequirements: PaymentRequirement[] | null
}

export interface LifecyclePolicy {
  /** How long the consecutive failures must span before `inactive` (ms). */
  failurePeriodMs: number
}

/** The failure period for a probe interval: two intervals (three probes), capped at MAX_FAILURE_PERIOD_MS; 0 when probing is on demand only. */
export function failurePeriodFor (intervalMs: number): number {
  return Math.min(2 * Math.max(0, intervalMs), MAX_FAILURE_PERIOD_MS)
}

/** What the lifecycle needs of past probes. */
export type ProbeSummary = Pick<ProbeOutcome, 'checkedAt' | 'answered402' | 'matched'>

/** Percentage (two decimals) of probes in the window that got a valid 402; null without any. */
export function uptimeOf (history: readonly ProbeSummary[], now: number): number | null {
  const recent = history.slice(0, PROBE_HISTORY_LIMIT).filter((probe) => now - Date.parse(probe.checkedAt) <= UPTIME_WINDOW_MS)
  if (recent.length === 0) return null
  const answered = recent.filter((probe) => probe.answered402).length
  return Math.round((answered / recent.length) * 10_000) / 100
}

/**
 * The service's monitoring state after the probe `latest`. `history` holds its recent
 * probes, newest first, `latest` included.
 */
export function applyProbe (
  service: Pick<ServiceRecord, 'status' | 'usage' | 'paymentRequirements'> & { prefill?: PrefillInfo | null },
  latest: ProbeOutcome,
  history: readonly ProbeSummary[],
  policy: LifecyclePolicy
): MonitoringUpdate {
  let status = service.status
  let paymentRequirements = service.paymentRequirements
  if (latest.matched) {
    status = 'verified'
    paymentRequirements = latest.accepts
  } else if (latest.answered402) {
    status = 'unverified'
  } else {
    const failures = history.slice(0, FAILURES_FOR_INACTIVE)
    const oldest = failures[failures.length - 1] as ProbeSummary
    if (failures.length === FAILURES_FOR_INACTIVE && failures.every((probe) => !probe.answered402) &&
      Date.parse(latest.checkedAt) - Date.parse(oldest.checkedAt) >= policy.failurePeriodMs) {
      status = 'inactive'
    }
  }
  // A listing its origin's /.well-known/x402 no longer lists stays inactive until a re-import lists it again.
  if (service.prefill?.removed !== undefined) status = 'inactive'
  const uptimeScore = uptimeOf(history, Date.parse(latest.checkedAt))
  return {
    status,
    uptimeScore,
    lastChecked: latest.checkedAt,
    trustScore: computeTrustScore({ status, uptimeScore, usage: service.usage }),
    paymentRequirements
  }
}

/**
 * Whether a probe's update changes what search and export show of the service: its status,
 * trust score or payment requirements. Only such a probe is a change-feed event (a new
 * sequence number); one that moves only uptime or lastChecked leaves the indexer idle and
 * export ETags valid.
 */
export function changesListing (before: Pick<ServiceRecord, 'status' | 'trustScore' | 'paymentRequirements'>, update: MonitoringUpdate): boolean {
  return update.status !== before.status || update.trustScore !== before.trustScore ||
    JSON.stringify(update.paymentRequirements) !== JSON.stringify(before.paymentRequirements)
}

/** The part of a service new usage figures change: the figures and the trust score they feed. */
export interface UsageUpdate {
  usage: ServiceUsage
  trustScore: number
}

export function applyUsage (service: Pick<ServiceRecord, 'status' | 'uptimeScore'>, usage: ServiceUsage): UsageUpdate {
  return { usage, trustScore: computeTrustScore({ status: service.status, uptimeScore: service.uptimeScore, usage }) }
}

/**
 * Whether new usage figures change what search and export show: the trust score, or the
 * figures the export carries (30-day calls and payers, the newest payment). Only then is
 * the update a change-feed event; one that moves only all-time totals or computedAt is not.
 */
export function usageChangesListing (before: Pick<ServiceRecord, 'trustScore' | 'usage'>, update: UsageUpdate): boolean {
  const was = before.usage
  const now = update.usage
  return update.trustScore !== before.trustScore || was === null || was.txCount30d !== now.txCount30d ||
    was.uniquePayers30d !== now.uniquePayers30d || was.lastPaymentAt !== now.lastPaymentAt || was.scope !== now.scope
}

/**
 * A listing retired with `reason` (its origin's document or its last source no longer lists it):
 * `inactive`, and kept so by probes, until it is listed again; kept, never deleted.
 */
export function retiredListing (record: ServiceRecord, reason: string, at: string): ServiceRecord {
  const status = 'inactive'
  return {
    ...record,
    status,
    trustScore: computeTrustScore({ status, uptimeScore: record.uptimeScore, usage: record.usage }),
    prefill: { fields: record.prefill?.fields ?? [], ...record.prefill, removed: { reason, at } },
    updatedAt: at
  }
}
