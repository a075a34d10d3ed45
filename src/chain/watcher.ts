/**
 * The chain watcher: one loop per configured network (one watcher per network family: EVM
 * today; Solana settlements plug in here later), all under the store's `chain-watcher` lease
 * so exactly one process writes payments to a store. A second watcher (the CLI next to an
 * embedded one) waits and takes over when the holder stops or dies.
 *
 * Faults never stop it: a failed step (RPC away, timeouts after retries, a reorg mid-scan)
 * is logged, shown in /health as the network's last error, and retried with growing pauses;
 * stored figures stay as they were meanwhile. Usage figures of the (network, payTo)s whose
 * payments changed are recomputed after each step, and every watched payTo's hourly, so
 * 30-day windows roll even without new payments.
 */
import type { FastifyBaseLogger } from 'fastify'
import type { CatalogStore } from '../store/catalog-store.js'
import type { ChainConfig } from './config.js'
import { EvmNetworkWatcher } from './evm-watcher.js'
import { describeRpcError } from './rpc-errors.js'
import { ViemChainRpc, type ChainRpc } from './rpc.js'
import { refreshUsage } from '../application/usage.js'
import { leaseHolder } from '../lib/lease-holder.js'

export const LEASE_NAME = 'chain-watcher'
const HOUR_MS = 3600 * 1000

/** What /health shows per watched network. */
export interface NetworkStatus {
  network: string
  /** The forward scan's tip: payments up to this block are counted. null before the first scan. */
  scannedBlock: number | null
  /** The chain's head as last read; null before the first answer. */
  head: number | null
  /** head − scannedBlock (confirmations included); null until both are known. */
  lag: number | null
  /** PayTos still being backfilled from startBlock. */
  backfilling: number
  /** The last step's failure, without the RPC URL; null once a step succeeds. */
  lastError: string | null
  /** ISO time of that failure. */
  lastErrorAt: string | null
}

export interface WatcherOptions {
  store: CatalogStore
  chains: readonly ChainConfig[]
  logger: FastifyBaseLogger
  /** Pause between steps once a network has caught up. */
  pollMs: number
  /** Lease lifetime; a crashed holder's lease frees after this. */
  leaseTtlMs?: number
  holder?: string
  /** The standalone watcher has nothing else keeping its process alive; in the API the server does. */
  keepProcessAlive?: boolean
  /** How a network's RPC is reached (tests and benchmarks count or disturb it). */
  rpcFor?: (chain: ChainConfig, signal: AbortSignal) => ChainRpc
  /** Cap of the pause after repeated failures. */
  maxBackoffMs?: number
}

interface NetworkLoop {
  watcher: EvmNetworkWatcher
  status: NetworkStatus
  failures: number
  lastRefreshAll: number
  timer: NodeJS.Timeout | undefined
  running: Promise<void> | undefined
}

export class ChainWatcher {
  readonly holder: string
  readonly #options: Required<Omit<WatcherOptions, 'holder' | 'rpcFor'>> & Pick<WatcherOptions, 'rpcFor'>
  readonly #abort = new AbortController()
  readonly #loops: NetworkLoop[]
  #leaseTimer: NodeJS.Timeout | undefined
  #hasLease = false
  #started = false

  constructor (options: WatcherOptions) {
    this.holder = options.holder ?? leaseHolder()
    this.#options = { leaseTtlMs: 30_000, keepProcessAlive: false, maxBackoffMs: 60_000, ...options }
    const rpcFor = options.rpcFor ?? ((chain, signal) => new ViemChainRpc(chain.rpcUrl, { signal }))
    this.#loops = options.chains.map((chain) => ({
      watcher: new EvmNetworkWatcher(chain, rpcFor(chain, this.#abort.signal), options.store, options.logger),
      status: { network: chain.network, scannedBlock: null, head: null, lag: null, backfilling: 0, lastError: null, lastErrorAt: null },
      failures: 0,
      lastRefreshAll: 0,
      timer: undefined,
      running: undefined
    }))
  }

  /** Per network: scanned block, head, lag, last error. */
  statuses (): NetworkStatus[] {
    return this.#loops.map((loop) => ({ ...loop.status }))
  }

  /** HTTP requests sent to each network's RPC so far. */
  rpcRequests (): Record<string, number> {
    return Object.fromEntries(this.#loops.map((loop) => [loop.status.network, loop.watcher.rpc.requests]))
  }

  start (): void {
    if (this.#started || this.#loops.length === 0) return
    this.#started = true
    void this.#renewLease()
  }

  async #renewLease (): Promise<void> {
    if (this.#abort.signal.aborted) return
    const { store, leaseTtlMs, logger } = this.#options
    try {
      const had = this.#hasLease
      this.#hasLease = await store.acquireLease(LEASE_NAME, this.holder, leaseTtlMs, Date.now())
      if (this.#hasLease && !had) {
        logger.info({ holder: this.holder, networks: this.#loops.map((l) => l.status.network) }, 'chain watcher holds the lease: watching')
        for (const loop of this.#loops) this.#schedule(loop, 0)
      }
    } catch (err) {
      this.#hasLease = false
      logger.error({ err }, 'chain watcher could not renew its lease')
    }
    if (this.#abort.signal.aborted) return
    // Renewed well before it expires; without it, checked as often so a dead holder is replaced soon.
    this.#leaseTimer = setTimeout(() => { void this.#renewLease() }, Math.max(50, Math.floor(leaseTtlMs / 3)))
    if (!this.#options.keepProcessAlive) this.#leaseTimer.unref()
  }

  #schedule (loop: NetworkLoop, delayMs: number): void {
    if (this.#abort.signal.aborted || loop.running !== undefined) return
    clearTimeout(loop.timer)
    loop.timer = setTimeout(() => {
      loop.timer = undefined
      loop.running = this.#run(loop).finally(() => { loop.running = undefined })
    }, delayMs)
    if (!this.#options.keepProcessAlive) loop.timer.unref()
  }

  async #run (loop: NetworkLoop): Promise<void> {
    const { logger, pollMs, maxBackoffMs, store } = this.#options
    const network = loop.status.network
    // Without the lease another watcher works; the lease renewal starts this loop again when it is ours.
    if (!this.#hasLease || this.#abort.signal.aborted) return
    let next = pollMs
    try {
      const result = await loop.watcher.step()
      const now = new Date()
      const refreshAll = Date.now() - loop.lastRefreshAll >= HOUR_MS
      const payTos = refreshAll ? new Set([...result.watched, ...result.changed]) : result.changed
      for (const payTo of payTos) await refreshUsage(store, network, payTo, now)
      if (refreshAll) loop.lastRefreshAll = Date.now()
      loop.failures = 0
      loop.status.lastError = null
      loop.status.lastErrorAt = null
      if (result.more) next = 0
    } catch (err) {
      if (this.#abort.signal.aborted) return
      loop.failures++
      loop.status.lastError = describeRpcError(err, [loop.watcher.chain.rpcUrl])
      loop.status.lastErrorAt = new Date().toISOString()
      next = Math.min(maxBackoffMs, pollMs * 2 ** Math.min(loop.failures, 10))
      logger.warn({ network, failures: loop.failures, error: loop.status.lastError, retryInMs: next }, 'chain watcher step failed; figures stay as they are')
    } finally {
      const { head, scannedBlock, backfilling } = loop.watcher.progress
      Object.assign(loop.status, { head, scannedBlock, backfilling, lag: head !== null && scannedBlock !== null ? Math.max(0, head - scannedBlock) : null })
    }
    loop.running = undefined
    this.#schedule(loop, next)
  }

  /** Stops after the steps in flight, and gives the lease up. */
  async stop (): Promise<void> {
    this.#abort.abort(new Error('chain watcher stopped'))
    clearTimeout(this.#leaseTimer)
    for (const loop of this.#loops) clearTimeout(loop.timer)
    await Promise.all(this.#loops.map(async (loop) => { await loop.running?.catch(() => {}) }))
    if (this.#hasLease) await this.#options.store.releaseLease(LEASE_NAME, this.holder)
    this.#hasLease = false
  }
}
