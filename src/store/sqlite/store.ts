/**
 * Embedded CatalogStore on SQLite (better-sqlite3, WAL). The file lives in DATA_DIR so
 * the API and a standalone indexer process can share it. synchronous=FULL: a 201 has
 * reached the disk, not just the OS cache.
 *
 * One section of the port per file, as the port is laid out (src/store/catalog-store.ts):
 * services.ts, feed.ts, claims.ts, api-keys.ts, probes.ts, leases.ts, payments.ts, sources.ts,
 * origin-proofs.ts, each
 * on the connection they share (connection.ts). This class opens the file; SectionedStore
 * (src/store/sectioned-store.ts) hands each method to its section.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { StoreUnavailableError } from '../../errors.js'
import { SectionedStore } from '../sectioned-store.js'
import { SqliteApiKeys } from './api-keys.js'
import { SqliteClaims } from './claims.js'
import { SqliteConnection } from './connection.js'
import { SqliteFeed } from './feed.js'
import { SqliteLeases } from './leases.js'
import { SqliteOriginProofs } from './origin-proofs.js'
import { ListThread } from './list-thread.js'
import { SqlitePayments } from './payments.js'
import { SqliteProbes } from './probes.js'
import { checkLayout, setUpLayout, StoreLayoutError } from './schema.js'
import { SqliteServices } from './services.js'
import { SqliteSources } from './sources.js'

export const STORE_FILE = 'catalog.sqlite'

export interface SqliteStoreOptions {
  /** Answer lists on a thread of their own (src/store/sqlite/list-thread.ts), as the API does; else on the caller's. */
  listThread?: boolean
  /**
   * The file's layout is known to be set up (the list thread's connection, opened after the
   * API thread's store): skip checking and setting it up.
   */
  layoutReady?: boolean
  /** This connection's SQLite page cache, in KiB; SQLite's default (16 MB in better-sqlite3) when absent. */
  pageCacheKib?: number
  /**
   * Pages the write-ahead log may hold before a commit on this connection checkpoints it
   * (SQLite's default, 1000, when absent). The API's connection sets it high: its list thread
   * checkpoints instead (CHECKPOINT_EVERY_MS).
   */
  autocheckpointPages?: number
}

/**
 * The API thread's commits leave checkpoints to the list thread: a source pass's inserts
 * touched some 15 B-trees per row (10 since layout 4), and copying their pages back into the
 * file at every 1000 pages of log took about a quarter of the commits' time on the API
 * thread. The list thread checkpoints what it can every CHECKPOINT_EVERY_MS (PASSIVE: it
 * waits for no reader or writer); should it not (a thread restarting), the API's commits
 * checkpoint once the log holds BACKSTOP_CHECKPOINT_PAGES (64 MiB of 4 KiB pages), which
 * bounds the log.
 */
export const CHECKPOINT_EVERY_MS = 250
export const BACKSTOP_CHECKPOINT_PAGES = 16_384

/** Opens the store file in `dataDir`, creating its layout in a new one; throws StoreLayoutError for a file of another layout. */
function openFile (dataDir: string, options: SqliteStoreOptions): Database.Database {
  let db: Database.Database | undefined
  try {
    db = new Database(join(dataDir, STORE_FILE))
    db.pragma('busy_timeout = 5000')
    // Before the pragmas below: setting WAL writes to the file, and a refused file is left as it was.
    if (options.layoutReady !== true) checkLayout(db, dataDir, STORE_FILE)
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = FULL')
    db.pragma('foreign_keys = ON')
    if (options.pageCacheKib !== undefined) db.pragma(`cache_size = -${Math.floor(options.pageCacheKib)}`)
    if (options.autocheckpointPages !== undefined) db.pragma(`wal_autocheckpoint = ${Math.floor(options.autocheckpointPages)}`)
    if (options.layoutReady !== true) setUpLayout(db, dataDir, STORE_FILE)
    return db
  } catch (err) {
    db?.close()
    if (err instanceof StoreLayoutError) throw err
    throw new StoreUnavailableError(`cannot open the catalog store in ${dataDir}: ${(err as Error).message}`, { cause: err })
  }
}

export class SqliteCatalogStore extends SectionedStore {
  readonly #connection: SqliteConnection
  readonly #listThread: ListThread | undefined

  constructor (dataDir: string, options: SqliteStoreOptions = {}) {
    mkdirSync(dataDir, { recursive: true })
    const threaded = options.listThread === true
    const connection = new SqliteConnection(openFile(dataDir, threaded ? { ...options, autocheckpointPages: BACKSTOP_CHECKPOINT_PAGES } : options))
    const listThread = threaded ? new ListThread(dataDir) : undefined
    // At once, not at the first list: it checkpoints the API's writes.
    listThread?.start()
    const services = new SqliteServices(connection, listThread)
    super({
      services,
      feed: new SqliteFeed(connection),
      claims: new SqliteClaims(connection, services.rewrite),
      apiKeys: new SqliteApiKeys(connection),
      probes: new SqliteProbes(connection),
      leases: new SqliteLeases(connection),
      payments: new SqlitePayments(connection),
      sources: new SqliteSources(connection),
      originProofs: new SqliteOriginProofs(connection)
    })
    this.#connection = connection
    this.#listThread = listThread
  }

  async ping (): Promise<void> {
    try {
      this.#connection.statement('SELECT COUNT(*) FROM services WHERE rowid = 0').get()
    } catch (err) {
      throw new StoreUnavailableError(`catalog store unusable: ${(err as Error).message}`, { cause: err })
    }
  }

  /** Copies what the write-ahead log holds back into the file, as far as readers allow (PASSIVE). */
  checkpoint (): void {
    this.#connection.db.pragma('wal_checkpoint(PASSIVE)')
  }

  async close (): Promise<void> {
    await this.#listThread?.close()
    if (this.#connection.db.open) this.#connection.db.close()
  }
}
