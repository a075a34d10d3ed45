/**
 * Passes over every source on a schedule, one source at a time, under the `source-sync` lease so
 * that one process per store runs them however many API processes share it. A source is due when
 * its last pass started an interval ago or more (or it never had one): CATALOG_SOURCE_SYNC_INTERVAL_S,
 * or for a `catalog` source, which follows the other catalog's change feed, the shorter
 * CATALOG_SOURCE_FOLLOW_INTERVAL_S; such a source is read whole again every sync interval (that
 * read retires what it no longer lists). The pass itself is src/application/sync-source.ts.
 */
import type { FastifyBaseLogger } from 'fastify'
import type { SourceRecord, SyncReport } from '../domain/sources.js'
import type { SyncOptions } from '../application/sync-source.js'
import type { CatalogStore } from '../store/catalog-store.js'
import { leaseHolder } from '../lib/lease-holder.js'

export const LEASE_NAME = 'source-sync'

export interface SourceSchedulerOptions {
  store: CatalogStore
  /** One pass over a source; the signal aborts when the scheduler stops. */
  sync: (source: SourceRecord, signal: AbortSignal, options: SyncOptions) => Promise<SyncReport>
  /** A source is passed over again this long after its last pass started. */
  intervalMs: number
  /** A `catalog` source is followed this often (its whole feed is read again every intervalMs); default the interval. */
  followMs?: number
  logger: FastifyBaseLogger
  /** How often due sources are looked for (and the lease renewed); default the follow interval, at most a minute. */
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
    const followMs = Math.min(options.followMs ?? options.intervalMs, options.intervalMs)
    this.#options = { pollMs: Math.min(followMs, 60_000), leaseTtlMs: 15 * 60_000, ...options, followMs }
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
    const { store, leaseTtlMs, logger } = this.#options
    for (const source of await store.listSources()) {
      if (this.#abort.signal.aborted) return
      const due = this.#due(source, Date.now())
      if (due === null) continue
      this.#hasLease = await store.acquireLease(LEASE_NAME, this.holder, leaseTtlMs, Date.now())
      if (!this.#hasLease) return
      const report = await this.#options.sync(source, this.#abort.signal, due)
      const counts = { seen: report.seen, added: report.added, updated: report.updated, unchanged: report.unchanged, retired: report.retired, refused: report.refusedCount }
      // A follow that found nothing new is the common case every few seconds: not worth a line.
      if (report.complete && report.seen === 0 && due.whole !== true) continue
      if (report.complete) logger.info({ source: source.id, url: source.url, ...counts }, 'source synced')
      else logger.warn({ source: source.id, url: source.url, ...counts, error: report.error }, 'source pass incomplete')
    }
  }

  /** The pass a source is due for now, or null when none is. */
  #due (source: SourceRecord, now: number): SyncOptions | null {
    const { intervalMs, followMs } = this.#options
    const since = (at: string | null | undefined): number => at === null || at === undefined ? Infinity : now - Date.parse(at)
    if (source.kind !== 'catalog') return since(source.lastSync?.startedAt) >= intervalMs ? {} : null
    if (since(source.lastSync?.feed?.wholeAt) >= intervalMs && since(source.lastSync?.startedAt) >= followMs) return { whole: true }
    return since(source.lastSync?.startedAt) >= followMs ? {} : null
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
