/**
 * A listing nobody owns took its terms (price, payTo) from a source's word. When its endpoint's
 * live 402 answer asks for other terms on the listing's network, the answer is the word: the
 * probe that read it sets them, and the listing is judged by them (docs/sources.md). A listing a
 * key registered or an origin's owner claimed keeps its terms: its owner changes them.
 */
import { MAX_PRICE_UNITS } from './money.js'
import { isValidPaymentAddress, resolveNetwork } from './networks.js'
import { choosePayment } from './prefill.js'
import { matchRequirements } from './probe-match.js'
import type { ProbeOutcome } from './probe.js'
import type { ServiceRecord } from './service.js'

export type LiveTerms = Pick<ServiceRecord, 'priceAtomic' | 'currency' | 'paymentAddress'>

/** An `exact` entry's positive whole amount, at most the highest price the catalog lists; else null (not a fixed price). */
export function fixedAmount (scheme: string, amount: string): number | null {
  if (scheme !== 'exact' || !/^\d{1,18}$/.test(amount) || /^0+$/.test(amount)) return null
  const atomic = Number(amount)
  return atomic <= MAX_PRICE_UNITS * 1e6 ? atomic : null
}

/**
 * The terms a probe's answer gives an unowned, source-listed listing whose terms it does not
 * match, and the outcome judged by them; null when the answer leaves the terms as they are (it
 * matched, it is no valid 402, nothing in it pays USDC on the listing's network, or the listing
 * has an owner or terms someone gave). A dynamic price stays dynamic: one answer does not fix it.
 */
export function liveTerms (
  listing: Pick<ServiceRecord, 'ownerId' | 'claimed' | 'prefill' | 'priceAtomic' | 'currency' | 'paymentAddress' | 'network' | 'endpoint' | 'method'>,
  outcome: ProbeOutcome
): { terms: LiveTerms, outcome: ProbeOutcome } | null {
  if (!outcome.answered402 || outcome.matched || outcome.accepts === null || outcome.accepts.length === 0) return null
  const fields = listing.prefill?.fields ?? []
  if (listing.ownerId !== null || listing.claimed || !fields.includes('price') || !fields.includes('paymentAddress')) return null
  let chosen: ReturnType<typeof choosePayment>
  try {
    chosen = choosePayment(outcome.accepts, listing.network)
  } catch {
    return null
  }
  const { requirement, currency } = chosen
  const family = resolveNetwork(listing.network)?.family
  if (family === undefined || !isValidPaymentAddress(family, requirement.payTo)) return null
  const terms: LiveTerms = {
    priceAtomic: listing.priceAtomic === null ? null : fixedAmount(requirement.scheme, requirement.amount),
    currency: currency.code,
    paymentAddress: requirement.payTo
  }
  const judged = matchRequirements({ ...listing, ...terms }, outcome.accepts)
  if (!judged.matched) return null
  return {
    terms,
    outcome: { ...outcome, matched: true, reason: `the live answer's terms replace the source's (${outcome.reason})` }
  }
}
