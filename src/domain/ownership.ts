/**
 * Who owns a listing: the endpoint's own 402 answer decides, because only its provider
 * controls the payTo it advertises. When a registration has the identity (resource and
 * method) another listing holds, each is judged against the live answer to its own request,
 * by the prober's match rule (src/domain/probe-match.ts): the holder with its own endpoint
 * and method, never with the newcomer's (a POST answer says nothing about a GET listing).
 */
import { matchRequirements, shortAddress } from './probe-match.js'
import { probeTargetOf, type PaymentRequirement, type ProbeOutcome, type ProbeTarget } from './probe.js'
import type { ServiceRecord } from './service.js'

export type OwnershipDecision =
  /** The newcomer matches the live answer and the holder does not: the holder is displaced. */
  | { kind: 'takeover', reason: string }
  /** The holder keeps the endpoint; `reason` says why (for the 409). */
  | { kind: 'refuse', reason: string }

function describe (requirement: PaymentRequirement): string {
  return `payTo ${shortAddress(requirement.payTo)}, amount ${requirement.amount} on ${requirement.network}`
}

/** Whether two listings are checked by the same request (then one probe answers for both). */
export function sameRequest (a: ProbeTarget, b: ProbeTarget): boolean {
  return a.endpoint === b.endpoint && a.method === b.method
}

/**
 * Decides between the holder of a listing and a newcomer, from the live answer to the
 * newcomer's request and the one to the holder's own (the same outcome when sameRequest).
 * Unreachable or non-x402 answers decide nothing: the holder stays.
 */
export function decideOwnership (newcomer: ServiceRecord, holder: ServiceRecord, outcome: ProbeOutcome, holderOutcome: ProbeOutcome = outcome): OwnershipDecision {
  if (holder.method !== newcomer.method) {
    // Listings of different methods are different resources: never judged against each other.
    return { kind: 'refuse', reason: `${holder.endpoint} (${holder.method}) is listed by ${holder.id}, and a ${newcomer.method} answer cannot decide a ${holder.method} listing` }
  }
  const taken = `${holder.endpoint} is listed by ${holder.id}`
  if (outcome.accepts === null || outcome.accepts.length === 0) {
    return { kind: 'refuse', reason: `${taken}, and its live answer cannot decide ownership (${outcome.reason})` }
  }
  const mine = matchRequirements(probeTargetOf(newcomer), outcome.accepts)
  if (!mine.matched) {
    const verified = holder.status === 'verified' ? ', a verified listing,' : ''
    return { kind: 'refuse', reason: `${taken}${verified} and this registration does not match the endpoint's live 402 answer: ${mine.reason}` }
  }
  if (holderOutcome.accepts === null || holderOutcome.accepts.length === 0) {
    return { kind: 'refuse', reason: `${taken}, and the live answer to its own request cannot decide ownership (${holderOutcome.reason})` }
  }
  const theirs = matchRequirements(probeTargetOf(holder), holderOutcome.accepts)
  if (theirs.matched) {
    return { kind: 'refuse', reason: `${taken}, which already matches the endpoint's live 402 answer` }
  }
  return {
    kind: 'takeover',
    reason: `the endpoint's live 402 answer (${outcome.checkedAt}) asks for ${describe(mine.requirement)}, ` +
      `which matches the new registration and not this one (${theirs.reason})`
  }
}
