/**
 * Whether an endpoint's advertised payment requirements are the ones it was registered
 * with: one accepts entry on the registered network (CAIP-2) paying the registered
 * address (EVM case-insensitive, Solana exact) the registered price in atomic units (any
 * amount for a listing whose price is dynamic), in the network's USDC when the catalog knows
 * that token. The reason names the first difference, for the provider to fix.
 */
import { findCurrency, formatAtomic } from './money.js'
import { resolveNetwork } from './networks.js'
import type { PaymentRequirement, ProbeTarget } from './probe.js'

export type MatchResult = { matched: true, reason: string, requirement: PaymentRequirement } | { matched: false, reason: string }

/** 0x6a8607afb7ac96d2c8a3e1b44560ff101b34550b → 0x6a86…550b */
export function shortAddress (address: string): string {
  return address.length <= 14 ? address : `${address.slice(0, 6)}…${address.slice(-4)}`
}

function sameAddress (family: 'evm' | 'svm', a: string, b: string): boolean {
  return family === 'evm' ? a.toLowerCase() === b.toLowerCase() : a === b
}

const USDC_DECIMALS = (findCurrency('USDC') as { decimals: number }).decimals

/** An atomic amount as a provider reads its price: `1000` is `0.001 USDC`; anything else as it came. */
function usdcOf (amount: string): string {
  return /^\d{1,30}$/.test(amount) ? `${formatAtomic(BigInt(amount), USDC_DECIMALS)} USDC` : JSON.stringify(amount.slice(0, 40))
}

function listOf (values: string[]): string {
  const distinct = [...new Set(values)]
  const shown = distinct.slice(0, 3).join(', ')
  return distinct.length > 3 ? `${shown} and ${distinct.length - 3} more` : shown
}

export function matchRequirements (target: ProbeTarget, accepts: readonly PaymentRequirement[]): MatchResult {
  const network = resolveNetwork(target.network)
  const family = network?.family ?? 'evm'
  const onNetwork = accepts.filter((entry) => entry.network === target.network)
  if (onNetwork.length === 0) {
    return { matched: false, reason: `network ${listOf(accepts.map((entry) => entry.network))} differs from registered ${target.network}` }
  }
  const toPayee = onNetwork.filter((entry) => sameAddress(family, entry.payTo, target.paymentAddress))
  if (toPayee.length === 0) {
    return { matched: false, reason: `payTo ${listOf(onNetwork.map((entry) => shortAddress(entry.payTo)))} differs from registered ${shortAddress(target.paymentAddress)}` }
  }
  const price = target.priceAtomic === null ? null : String(target.priceAtomic)
  const atPrice = price === null ? toPayee : toPayee.filter((entry) => entry.amount === price)
  if (price !== null && atPrice.length === 0) {
    return { matched: false, reason: `price ${listOf(toPayee.map((entry) => usdcOf(entry.amount)))} differs from registered ${usdcOf(price)}` }
  }
  const usdc = network?.usdc ?? null
  const inUsdc = usdc === null ? atPrice : atPrice.filter((entry) => sameAddress(family, entry.asset, usdc))
  const chosen = inUsdc[0]
  if (chosen === undefined) {
    return { matched: false, reason: `asset ${listOf(atPrice.map((entry) => shortAddress(entry.asset)))} is not USDC on ${target.network} (${shortAddress(usdc as string)})` }
  }
  return { matched: true, reason: 'matches the registration', requirement: chosen }
}
