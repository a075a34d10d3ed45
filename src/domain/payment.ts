/**
 * Payments: x402 settlements seen on-chain by the chain watcher (src/chain/). On EVM networks
 * the `exact` scheme settles as a USDC `Transfer(from, to = payTo, value)`; each one counted is
 * kept once, keyed by (network, txHash, logIndex), so anyone can check it on a block explorer.
 * Usage figures (txCount, revenue, unique payers) are computed from these records.
 */

/** One settlement: a USDC Transfer log to a listed payTo that the watcher judged an x402 payment. */
export interface PaymentRecord {
  /** CAIP-2 id, e.g. eip155:8453. */
  network: string
  /** 0x-prefixed, lower case. */
  txHash: string
  logIndex: number
  blockNumber: number
  /** 0x-prefixed, lower case: lets a reorg be detected and the payment checked. */
  blockHash: string
  /** ISO time of the block. */
  at: string
  /** The Transfer's `from`, as payToKey (src/domain/pay-to.ts). */
  payer: string
  /** The Transfer's `to`, as payToKey. */
  payTo: string
  /** Atomic units of the token (USDC: 6 decimals), a decimal integer string. */
  amount: string
  /** The service the payment was attributed to when it was stored; null when the payTo is shared ambiguously (figures re-attribute when read). */
  serviceId: string | null
}

/** A scanned block the watcher can rewind to: the chain still has this hash at this height, or a reorg happened. */
export interface ChainCheckpoint {
  blockNumber: number
  /** 0x-prefixed, lower case. */
  blockHash: string
}

/** What the watcher keeps per network between runs. */
export interface ChainScanState {
  network: string
  /** Newest first, at most CHAIN_CHECKPOINT_HISTORY: the tip of the forward scan, then older scanned blocks to rewind to. */
  checkpoints: ChainCheckpoint[]
  /**
   * Per watched payTo (payToKey): the block through which its Transfers have been scanned.
   * A payTo behind the tip (new registration, changed payTo) is being backfilled; one absent
   * has not been scanned at all.
   */
  payTos: Record<string, number>
}

/** Checkpoints kept per network: a reorg deeper than this many scan steps rewinds to the oldest one kept. */
export const CHAIN_CHECKPOINT_HISTORY = 128

/** One scanned range, stored atomically. */
export interface ChainScanCommit {
  /** New payments; any already stored (same network, txHash, logIndex) is left as it is. */
  payments: readonly PaymentRecord[]
  /** The forward scan reached this block: pushed as the newest checkpoint. */
  checkpoint?: ChainCheckpoint
  /** These payTos are now scanned through `block` (forward scan or backfill). */
  scanned?: { payTos: readonly string[], block: number }
}

/** Which payments of one (network, payTo) a summary or page covers. */
export interface PaymentFilter {
  network: string
  payTo: string
  /** Only payments at or after this ISO time. */
  since?: string
  /** Only payments of exactly this amount (atomic units). */
  amount?: string
  /** Leave out payments of any of these amounts. */
  excludeAmounts?: readonly string[]
}

/** Aggregate of the payments a PaymentFilter matches. */
export interface PaymentSummary {
  count: number
  /** Atomic units, a decimal integer string. */
  totalAtomic: string
  uniquePayers: number
  /** ISO time of the newest; null without any. */
  lastAt: string | null
}

export interface PaymentPage {
  /** Newest first (block number, then log index, descending). */
  items: PaymentRecord[]
  total: number
}

/**
 * A service's usage figures as last computed from its payments, kept on the service so lists,
 * sorting by trust, search ranking and the export see them without reading payments.
 */
export interface ServiceUsage {
  txCount: number
  /** Atomic units, a decimal integer string. */
  revenueAtomic: string
  uniquePayers: number
  /** ISO time of the newest payment; null without any. */
  lastPaymentAt: string | null
  txCount30d: number
  revenue30dAtomic: string
  uniquePayers30d: number
  /** 'shared': the payTo is shared by several services and these are the payTo's figures, not this service's alone. */
  scope: 'service' | 'shared'
  /** ISO time the figures were computed: the 30-day window ends here. */
  computedAt: string
}
