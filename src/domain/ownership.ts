/**
 * Who owns a listing: the endpoint's own 402 answer decides, because only its provider
 * controls the payTo it advertises. When a registration names an endpoint another listing
 * holds, the live answer is probed once and both registrations are judged against the same
 * accepts, by the prober's match rule (src/domain/probe-match.ts).
 */
import { matchRequirements, shortAddress } from './probe-match.js'
import { probeTargetOf, type PaymentRequirement, type ProbeOutcome } from './probe.js'
import type { ServiceRecord } from './service.js'

export type OwnershipDecision =
  /** The newcomer matches the live answer and the holder does not: the holder is displaced. */
  | { kind: 'takeover', reason: string }
  /** The holder keeps the endpoint; `reason` says why (for the 409). */
  | { kind: 'refuse', reason: string }

function describe (requirement: PaymentRequirement): string {
  return `payTo ${shortAddress(requirement.payTo)}, amount ${requirement.amount} on ${requirement.network}`
}

/**
 * Decides between the holder of an endpoint and a newcomer, from one live probe made with
 * the newcomer's target. Unreachable or non-x402 answers decide nothing: the holder stays.
 */
export function decideOwnership (newcomer: ServiceRecord, holder: ServiceRecord, outcome: ProbeOutcome): OwnershipDecision {
  const taken = `${holder.endpoint} is listed by ${holder.id}`
  if (outcome.accepts === null || outcome.accepts.length === 0) {
    return { kind: 'refuse', reason: `${taken}, and its live answer cannot decide ownership (${outcome.reason})` }
  }
  const mine = matchRequirements(probeTargetOf(newcomer), outcome.accepts)
  if (!mine.matched) {
    const verified = holder.status === 'verified' ? ', a verified listing,' : ''
    return { kind: 'refuse', reason: `${taken}${verified} and this registration does not match the endpoint's live 402 answer: ${mine.reason}` }
  }
  const theirs = matchRequirements(probeTargetOf(holder), outcome.accepts)
  if (theirs.matched) {
    return { kind: 'refuse', reason: `${taken}, which already matches the endpoint's live 402 answer` }
  }
  return {
    kind: 'takeover',
    reason: `the endpoint's live 402 answer (${outcome.checkedAt}) asks for ${describe(mine.requirement)}, ` +
      `which matches the new registration and not this one (${theirs.reason})`
  }
}
