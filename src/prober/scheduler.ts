/**
 * Probes every due service with bounded concurrency (overall and per host name; the hard cap
 * per resolved address, shared with ownership and on-demand probes, is the HTTP client's, so a
 * probe of an alias waits there while this cap keeps such waits from filling the slots). Exactly one
 * scheduler works on a store: each tick first takes or renews the store's `prober`
 * lease; a second scheduler (another process on the same DATA_DIR) waits until the
 * lease expires. Due services come from the store (never probed, asked for, or past
 * their jittered next-probe time), so a probe asked for in one process is run by
 * whichever process holds the lease.
 */
import type { FastifyBaseLogger } from 'fastify'
import type { CatalogStore, ProbeCandidate } from '../store/catalog-store.js'
import type { ServiceMonitor } from './monitor.js'
import { leaseHolder } from '../lib/lease-holder.js'

export const LEASE_NAME = 'prober'

export interface SchedulerOptions {
  store: CatalogStore
  monitor: ServiceMonitor
  logger: FastifyBaseLogger
  concurrency: number
  perHost: number
  includeSeeded: boolean
  /** How often the store is asked for due services (and the lease renewed). */
  pollMs?: number
  /** Lease lifetime; a crashed holder's lease frees after this. */
  leaseTtlMs?: number
  holder?: string
  /** The standalone prober has nothing else keeping its process alive; in the API the server does. */
  keepProcessAlive?: boolean
}

function hostOf (endpoint: string): string {
  try {
    return new URL(endpoint).host
  } catch {
    return endpoint
  }
}

export class ProbeScheduler {
  readonly holder: string
  readonly #options: Required<Omit<SchedulerOptions, 'holder'>>
  readonly #inFlight = new Map<string, string>()
  readonly #perHost = new Map<string, number>()
  readonly #abort = new AbortController()
  #timer: NodeJS.Timeout | undefined
  #ticking: Promise<void> | undefined
  #again = false
  #running = false
  #hasLease = false
  readonly #settled = new Set<Promise<void>>()

  constructor (options: SchedulerOptions) {
    this.holder = options.holder ?? leaseHolder()
    this.#options = { pollMs: 2_000, leaseTtlMs: 30_000, keepProcessAlive: false, ...options }
  }

  start (): void {
    if (this.#running) return
    this.#running = true
    this.wake()
  }

  /** Looks for due services now instead of at the next poll. */
  wake (): void {
    if (!this.#running) return
    if (this.#ticking !== undefined) { this.#again = true; return }
    clearTimeout(this.#timer)
    this.#ticking = this.#tick()
      .catch((err: unknown) => { this.#options.logger.error({ err }, 'probe scheduling failed') })
      .finally(() => {
        this.#ticking = undefined
        if (!this.#running) return
        if (this.#again) { this.#again = false; this.wake(); return }
        this.#timer = setTimeout(() => { this.wake() }, this.#options.pollMs)
        if (!this.#options.keepProcessAlive) this.#timer.unref()
      })
  }

  async #tick (): Promise<void> {
    const { store, concurrency, perHost, includeSeeded, leaseTtlMs } = this.#options
    this.#hasLease = await store.acquireLease(LEASE_NAME, this.holder, leaseTtlMs, Date.now())
    if (!this.#hasLease) return
    const free = concurrency - this.#inFlight.size
    if (free <= 0) return
    // Ask for more than the free slots: some due services are in flight or wait on a busy host.
    const due = await store.dueForProbe(new Date().toISOString(), free + this.#inFlight.size + concurrency * 4, includeSeeded)
    let started = 0
    for (const candidate of due) {
      if (started >= free) break
      if (this.#inFlight.has(candidate.id)) continue
      const host = hostOf(candidate.endpoint)
      if ((this.#perHost.get(host) ?? 0) >= perHost) continue
      this.#run(candidate, host)
      started++
    }
  }

  #run (candidate: ProbeCandidate, host: string): void {
    this.#inFlight.set(candidate.id, host)
    this.#perHost.set(host, (this.#perHost.get(host) ?? 0) + 1)
    const done: Promise<void> = this.#options.monitor.probeAndRecord(candidate.id, candidate, this.#abort.signal)
      .then(() => undefined, (err: unknown) => { this.#options.logger.error({ err, serviceId: candidate.id }, 'probe failed to record') })
      .finally(() => {
        this.#inFlight.delete(candidate.id)
        const left = (this.#perHost.get(host) ?? 1) - 1
        if (left === 0) this.#perHost.delete(host)
        else this.#perHost.set(host, left)
        this.#settled.delete(done)
        // A freed slot can take the next due service at once.
        this.wake()
      })
    this.#settled.add(done)
  }

  /** Stops scheduling, cancels probes in flight and gives the lease up. */
  async stop (): Promise<void> {
    this.#running = false
    clearTimeout(this.#timer)
    this.#abort.abort()
    await this.#ticking
    await Promise.all([...this.#settled])
    if (this.#hasLease) await this.#options.store.releaseLease(LEASE_NAME, this.holder)
    this.#hasLease = false
  }
}
