/**
 * Follows the store's change feed and the search engine's version in this process, so the
 * response cache can tell what changed (one service, the catalog, the index) without asking
 * the store on every request, and /health can report indexer lag from what is followed.
 *
 * Two modes (Config.changeFollowMs):
 * - 0: every cached request first reads the feed's head (and, for search answers, the
 *   engine's version) and follows the feed when it moved. For a local SQLite file and the
 *   embedded engine that is a microsecond read, and never stale, even for writes by other
 *   processes (the import CLI, a standalone prober).
 * - N ms: a timer follows the feed every N ms; requests read only memory. Writes through this
 *   process's routes are followed before their response is sent (immediate); another
 *   process's writes are seen within N ms plus one feed read (the staleness bound).
 *
 * Versions: the catalog version is the followed sequence (any change moves it: lists,
 * categories, searches); each service has its own version, the sequence of its last
 * followed change, so a registration leaves other services' detail pages valid. The
 * per-service table is bounded: past MAX_TRACKED_SERVICES changed services, or a backlog of
 * more than MAX_FOLLOWED_CHANGES (a bulk import), it is cleared and an epoch moves every
 * service's version at once.
 */
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

declare module 'fastify' {
  interface FastifyInstance {
    catalogChanges: CatalogChanges
  }
  interface FastifyContextConfig {
    /** A write route: in interval mode its changes are followed before the response is sent. */
    writesCatalog?: boolean
  }
}

/** Backlog above which the followed changes are not read one by one: every service's version moves. */
export const MAX_FOLLOWED_CHANGES = 1000
/** Changed services whose versions are remembered; past this the table restarts at a new epoch. */
export const MAX_TRACKED_SERVICES = 20_000
const FEED_BATCH = 500

export interface CatalogChanges {
  /** 0: the feed's head is read per request; otherwise the follow interval in ms. */
  readonly followMs: number
  /** Brings the followed state up to date when the mode asks for it (per-request mode); `search` also refreshes the engine version. */
  sync: (search: boolean) => Promise<void>
  /** Follows the feed now (after a write in this process). */
  follow: () => Promise<void>
  /** The followed head of the change feed. */
  readonly seq: number
  /** Token valid while nothing in the catalog changed. */
  catalogToken: () => string
  /** Token valid while the catalog and the search index are unchanged. */
  searchToken: () => string
  /** Token valid while this one service is unchanged. */
  serviceToken: (id: string) => string
}

export default fp(async function catalogChanges (app: FastifyInstance, opts: { followMs: number }) {
  const { store } = app
  const engine = app.searchIndex.engine
  let seq = await store.latestSeq()
  let engineVersion = await engine.version()
  let epoch = 0
  const services = new Map<string, number>()
  let following: Promise<void> | undefined

  function bumpAll (): void {
    services.clear()
    epoch++
  }

  async function followOnce (): Promise<void> {
    const head = await store.latestSeq()
    if (head - seq > MAX_FOLLOWED_CHANGES) {
      bumpAll()
      seq = head
    } else {
      let at = seq
      while (at < head) {
        const changes = await store.changesSince(at, FEED_BATCH)
        if (changes.length === 0) break
        for (const change of changes) {
          services.delete(change.id)
          services.set(change.id, change.seq)
        }
        at = (changes.at(-1) as { seq: number }).seq
        if (services.size > MAX_TRACKED_SERVICES) bumpAll()
      }
      seq = Math.max(at, head)
    }
    if (opts.followMs > 0) engineVersion = await engine.version()
  }

  /** One follow at a time; a caller arriving during one gets that one. */
  async function follow (): Promise<void> {
    following ??= followOnce().finally(() => { following = undefined })
    await following
  }

  async function sync (search: boolean): Promise<void> {
    if (opts.followMs > 0) return
    const [head, version] = await Promise.all([store.latestSeq(), search ? engine.version() : undefined])
    if (version !== undefined) engineVersion = version
    // A follow already under way may have started before `head` committed: follow again.
    // eslint-disable-next-line no-unmodified-loop-condition -- follow() advances seq
    while (seq < head) await follow()
  }

  const changes: CatalogChanges = {
    followMs: opts.followMs,
    sync,
    follow,
    get seq () { return seq },
    catalogToken: () => String(seq),
    searchToken: () => `${seq}/${engineVersion}`,
    serviceToken: (id) => `${epoch}.${services.get(id) ?? 0}`
  }
  app.decorate('catalogChanges', changes)

  if (opts.followMs > 0) {
    app.addHook('onSend', async (request, reply, payload) => {
      if (request.routeOptions.config.writesCatalog === true && reply.statusCode < 400) await follow()
      return payload
    })
    const timer = setInterval(() => {
      follow().catch((err: unknown) => { app.log.warn({ err }, 'following the change feed failed; retrying') })
    }, opts.followMs)
    timer.unref()
    app.addHook('onClose', async () => {
      clearInterval(timer)
      await following?.catch(() => {})
    })
  }
}, { name: 'catalog-changes', dependencies: ['store', 'search'] })
