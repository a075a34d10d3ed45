/**
 * Passes over every source on a schedule (CATALOG_SOURCE_SYNC_INTERVAL_S), one source at a time,
 * under the `source-sync` lease so that one process per store runs them however many API
 * processes share it. A source is due when its last pass started an interval ago or more (or it
 * never had one); the pass itself is src/application/sync-source.ts.
 */
import type { FastifyBaseLogger } from 'fastify'
import type { SourceRecord, SyncReport } from '../domain/sources.js'
import type { CatalogStore } from '../store/catalog-store.js'
import { leaseHolder } from '../lib/lease-holder.js'

export const LEASE_NAME = 'source-sync'

export interface SourceSchedulerOptions {
  store: CatalogStore
  /** One pass over a source; the signal aborts when the scheduler stops. */
  sync: (source: SourceRecord, signal: AbortSignal) => Promise<SyncReport>
  /** A source is passed over again this long after its last pass started. */
  intervalMs: number
  logger: FastifyBaseLogger
  /** How often due sources are looked for (and the lease renewed); default the interval, at most a minute. */
  pollMs?: number
  /** A crashed holder's lease frees after this; renewed before each source. */
  leaseTtlMs?: number
}

export class SourceScheduler {
  readonly holder = leaseHolder()
  readonly #options: Required<SourceSchedulerOptions>
  readonly #abort = new AbortController()
  #timer: NodeJS.Timeout | undefined
  #ticking: Promise<void> | undefined
  #hasLease = false

  constructor (options: SourceSchedulerOptions) {
    this.#options = { pollMs: Math.min(options.intervalMs, 60_000), leaseTtlMs: 15 * 60_000, ...options }
  }

  start (): void {
    if (this.#ticking !== undefined || this.#abort.signal.aborted) return
    this.#ticking = this.#tick()
      .catch((err: unknown) => { this.#options.logger.error({ err }, 'source sync failed') })
      .finally(() => {
        this.#ticking = undefined
        if (this.#abort.signal.aborted) return
        this.#timer = setTimeout(() => { this.start() }, this.#options.pollMs)
        this.#timer.unref()
      })
  }

  async #tick (): Promise<void> {
    const { store, intervalMs, leaseTtlMs, logger } = this.#options
    for (const source of await store.listSources()) {
      if (this.#abort.signal.aborted) return
      const last = source.lastSync === null ? 0 : Date.parse(source.lastSync.startedAt)
      if (Date.now() - last < intervalMs) continue
      this.#hasLease = await store.acquireLease(LEASE_NAME, this.holder, leaseTtlMs, Date.now())
      if (!this.#hasLease) return
      const report = await this.#options.sync(source, this.#abort.signal)
      const counts = { seen: report.seen, added: report.added, updated: report.updated, unchanged: report.unchanged, retired: report.retired, refused: report.refusedCount }
      if (report.complete) logger.info({ source: source.id, url: source.url, ...counts }, 'source synced')
      else logger.warn({ source: source.id, url: source.url, ...counts, error: report.error }, 'source pass incomplete')
    }
  }

  /** Stops after the current page of a pass in progress (which then retires nothing) and gives the lease up. */
  async stop (): Promise<void> {
    this.#abort.abort()
    clearTimeout(this.#timer)
    await this.#ticking
    if (this.#hasLease) await this.#options.store.releaseLease(LEASE_NAME, this.holder)
    this.#hasLease = false
  }
}
