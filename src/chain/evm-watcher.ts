/**
 * Follows one EVM network's USDC settlements to the listed payTos (see plan.ts for what a
 * step scans). Each step:
 * 1. reads the head; the target is `head − confirmations`;
 * 2. checks the newest checkpoint's hash against the chain; on a mismatch finds the newest
 *    checkpoint the chain still has (binary search: an older block is on the chain when a
 *    newer one is), rewinds the store to it (its payments above go) and rescans from there;
 * 3. scans the forward range and one backfill range: Transfer logs to the payTos, then the
 *    AuthorizationUsed logs of their payers (and senders, for the Permit2 path), and commits
 *    the payments with the range's progress in one atomic write. The range's last block is
 *    read before the logs and again after when payments were found: a reorg in between
 *    discards the step instead of mixing two forks.
 * Commits are idempotent on (network, txHash, logIndex), so a step repeated after a crash or
 * a lost lease counts nothing twice.
 */
import type { FastifyBaseLogger } from 'fastify'
import type { ChainCheckpoint, PaymentRecord } from '../domain/payment.js'
import type { CatalogStore } from '../store/catalog-store.js'
import type { ChainConfig } from './config.js'
import { RangeSize, planScan, type BlockSpan } from './plan.js'
import { attribute, authorizedKeys, sendersToRead, toPaymentRecord, x402Transfers, type PricedService } from './payments.js'
import { classifyRpcError } from './rpc-errors.js'
import type { ChainRpc } from './rpc.js'

const EVM_ADDRESS = /^0x[0-9a-f]{40}$/

/** A step found the chain changed under it: nothing was stored; the next step starts over. */
export class ChainMovedError extends Error {}

export interface StepResult {
  /** More to scan right away (behind the target, or payTos still backfilling). */
  more: boolean
  /** PayTos whose payments changed (new ones stored, or deleted by a rewind). */
  changed: Set<string>
  /** The payTos being watched (for the hourly usage refresh). */
  watched: string[]
}

export interface NetworkProgress {
  head: number | null
  /** The forward scan's tip (newest checkpoint); null before the first scan. */
  scannedBlock: number | null
  /** PayTos still being backfilled. */
  backfilling: number
}

export class EvmNetworkWatcher {
  readonly chain: ChainConfig
  readonly #rpc: ChainRpc
  readonly #store: CatalogStore
  readonly #log: FastifyBaseLogger
  readonly #range = new RangeSize()
  readonly progress: NetworkProgress = { head: null, scannedBlock: null, backfilling: 0 }

  constructor (chain: ChainConfig, rpc: ChainRpc, store: CatalogStore, log: FastifyBaseLogger) {
    this.chain = chain
    this.#rpc = rpc
    this.#store = store
    this.#log = log
  }

  get rpc (): ChainRpc {
    return this.#rpc
  }

  async step (): Promise<StepResult> {
    const { network, confirmations, startBlock } = this.chain
    const changed = new Set<string>()
    const head = await this.#rpc.head()
    this.progress.head = head
    const target = head - confirmations

    let state = await this.#store.getChainScanState(network)
    if (state !== null && state.checkpoints.length > 0) {
      const keep = await this.#commonCheckpoint(state.checkpoints)
      if (keep !== (state.checkpoints[0] as ChainCheckpoint).blockNumber) {
        const deleted = await this.#store.rewindChain(network, keep)
        this.#log.warn({ network, from: state.checkpoints[0]?.blockNumber, to: keep, payTos: deleted.length }, 'chain reorganised: rewound to the newest block it still has')
        for (const payTo of deleted) changed.add(payTo)
        state = await this.#store.getChainScanState(network)
      }
    }
    const tip = state?.checkpoints[0]?.blockNumber ?? startBlock - 1
    this.progress.scannedBlock = state?.checkpoints[0]?.blockNumber ?? null
    // Solana-style or malformed addresses cannot be an EVM Transfer's topic.
    const watched = (await this.#store.payTosOn(network)).filter((payTo) => EVM_ADDRESS.test(payTo))
    const plan = planScan({ tip, target, startBlock, watched, scanned: state?.payTos ?? {}, span: this.#range.size })
    this.progress.backfilling = plan.backfill === null ? 0 : watched.filter((p) => (state?.payTos[p] ?? startBlock - 1) < tip).length

    let more = false
    if (plan.forward !== null) {
      const done = await this.#scan(plan.forward, true, changed)
      if (done) this.progress.scannedBlock = plan.forward.to
      more ||= !done || plan.forward.to < target
    }
    if (plan.backfill !== null) {
      await this.#scan(plan.backfill, false, changed)
      // Scanning it again shows whether others are still behind.
      more = true
    }
    return { more, changed, watched }
  }

  /** The newest checkpoint whose block the chain still has (startBlock − 1 when none). */
  async #commonCheckpoint (checkpoints: readonly ChainCheckpoint[]): Promise<number> {
    const matches = async (i: number): Promise<boolean> => {
      const checkpoint = checkpoints[i] as ChainCheckpoint
      return (await this.#rpc.block(checkpoint.blockNumber))?.hash === checkpoint.blockHash
    }
    if (await matches(0)) return (checkpoints[0] as ChainCheckpoint).blockNumber
    // checkpoints are newest first; matches is false up to some index, true from there on.
    let lo = 1
    let hi = checkpoints.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (await matches(mid)) hi = mid
      else lo = mid + 1
    }
    return lo < checkpoints.length ? (checkpoints[lo] as ChainCheckpoint).blockNumber : this.chain.startBlock - 1
  }

  /** Scans one span and commits it; false when the provider refused the range (it is smaller next time). */
  async #scan (span: BlockSpan, forward: boolean, changed: Set<string>): Promise<boolean> {
    const { network, facilitators } = this.chain
    const anchor = await this.#rpc.block(span.to)
    if (anchor === null) throw new ChainMovedError(`block ${span.to} is not on the chain any more`)
    let payments: PaymentRecord[] = []
    if (span.payTos.length > 0) {
      try {
        payments = await this.#payments(span)
      } catch (err) {
        if (classifyRpcError(err) !== 'range') throw err
        if (!this.#range.shrink()) throw err
        this.#log.debug({ network, blocks: span.to - span.from + 1, next: this.#range.size }, 'range refused: scanning fewer blocks')
        return false
      }
      this.#range.grow()
      if (payments.length > 0 && (await this.#rpc.block(span.to))?.hash !== anchor.hash) {
        throw new ChainMovedError(`block ${span.to} changed during the scan`)
      }
    }
    const checkpoint = forward ? { blockNumber: anchor.number, blockHash: anchor.hash } : undefined
    await this.#store.commitChainScan(network, { payments, checkpoint, scanned: { payTos: span.payTos, block: span.to } })
    for (const payment of payments) changed.add(payment.payTo)
    if (facilitators.length > 0 || payments.length > 0) this.#log.debug({ network, from: span.from, to: span.to, payments: payments.length, forward }, 'scanned')
    return true
  }

  async #payments (span: BlockSpan): Promise<PaymentRecord[]> {
    const { network, usdc, facilitators } = this.chain
    const transfers = await this.#rpc.transfers(usdc, span.from, span.to, span.payTos)
    if (transfers.length === 0) return []
    const blocks = transfers.map((t) => t.blockNumber)
    const payers = [...new Set(transfers.map((t) => t.from))]
    const authorized = authorizedKeys(await this.#rpc.authorizations(usdc, Math.min(...blocks), Math.max(...blocks), payers))
    const senders = new Map<string, string | null>()
    for (const txHash of sendersToRead(transfers, authorized, facilitators)) senders.set(txHash, await this.#rpc.sender(txHash))
    const counted = x402Transfers(transfers, authorized, senders, facilitators)

    const times = new Map<number, number>()
    const services = new Map<string, PricedService[]>()
    const out: PaymentRecord[] = []
    for (const transfer of counted) {
      let time = transfer.blockTimestamp ?? times.get(transfer.blockNumber)
      if (time === undefined) {
        const block = await this.#rpc.block(transfer.blockNumber)
        if (block === null || block.hash !== transfer.blockHash) throw new ChainMovedError(`block ${transfer.blockNumber} changed during the scan`)
        time = block.timestamp
        times.set(transfer.blockNumber, time)
      }
      let sharers = services.get(transfer.to)
      if (sharers === undefined) {
        sharers = (await this.#store.servicesByPayTo(network, transfer.to)).map((s) => ({ id: s.id, priceAtomic: s.priceAtomic }))
        services.set(transfer.to, sharers)
      }
      out.push(toPaymentRecord(network, transfer, time, attribute(sharers, transfer.value)))
    }
    return out
  }
}
