/**
 * Which Transfers are x402 payments, and to which service they go (pure).
 * - The `exact` scheme's EIP-3009 path settles with transferWithAuthorization: the same
 *   transaction has the token's AuthorizationUsed by the payer (the Transfer's `from`).
 * - Its Permit2 path has no such event: the transaction was sent by a known facilitator.
 * A wallet's plain transfer() has neither and is not counted.
 */
import type { PaymentRecord } from '../domain/payment.js'
import type { AuthorizationLog, TransferLog } from './rpc.js'

export function authorizedKeys (authorizations: readonly AuthorizationLog[]): Set<string> {
  return new Set(authorizations.map((a) => `${a.txHash}:${a.authorizer}`))
}

/** Transfers with an AuthorizationUsed of their payer in the same transaction. */
export function isAuthorized (transfer: TransferLog, authorized: ReadonlySet<string>): boolean {
  return authorized.has(`${transfer.txHash}:${transfer.from}`)
}

/** Transactions whose sender must be read: Transfers without an authorization, when facilitators are configured. */
export function sendersToRead (transfers: readonly TransferLog[], authorized: ReadonlySet<string>, facilitators: readonly string[]): string[] {
  if (facilitators.length === 0) return []
  return [...new Set(transfers.filter((t) => !isAuthorized(t, authorized)).map((t) => t.txHash))]
}

export function x402Transfers (
  transfers: readonly TransferLog[], authorized: ReadonlySet<string>, senders: ReadonlyMap<string, string | null>, facilitators: readonly string[]
): TransferLog[] {
  const known = new Set(facilitators)
  return transfers.filter((t) => isAuthorized(t, authorized) || known.has(senders.get(t.txHash) ?? ''))
}

/** A listed service's price and id, as attribution needs them. */
export interface PricedService {
  id: string
  /** Null: a dynamic price, which may be any amount. */
  priceAtomic: number | null
}

/**
 * The service a payment to a payTo belongs to: the only one listed with it; when several
 * share it, the one whose price equals the amount when exactly one does (a dynamic price may
 * be any amount: beside one, no amount is one sharer's); otherwise null (each sharer then
 * reports the payTo's figures, scope "shared").
 */
export function attribute (services: readonly PricedService[], amount: bigint): string | null {
  if (services.length === 1) return (services[0] as PricedService).id
  if (services.some((s) => s.priceAtomic === null)) return null
  const priced = services.filter((s) => BigInt(s.priceAtomic as number) === amount)
  return priced.length === 1 ? (priced[0] as PricedService).id : null
}

export function toPaymentRecord (network: string, transfer: TransferLog, timestamp: number, serviceId: string | null): PaymentRecord {
  return {
    network,
    txHash: transfer.txHash,
    logIndex: transfer.logIndex,
    blockNumber: transfer.blockNumber,
    blockHash: transfer.blockHash,
    at: new Date(timestamp * 1000).toISOString(),
    payer: transfer.from,
    payTo: transfer.to,
    amount: transfer.value.toString(),
    serviceId
  }
}
