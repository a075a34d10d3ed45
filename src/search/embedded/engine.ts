/**
 * Embedded SearchEngine: SQLite holds the index durably (`search.sqlite` in DATA_DIR,
 * shared by the API and a standalone indexer); searches run on an in-memory copy (posting
 * lists per term, filter columns per document) that follows SQLite, ranked like
 * Meilisearch with a bucket sort that stops at the requested page.
 *
 * With `threads > 0` the in-memory index lives in search threads and ranking never blocks
 * this thread; with 0 (CLIs, tests) it lives in this thread.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { IndexStats, SearchDocument, SearchEngine, SearchQuery, SearchResult } from '../search-engine.js'
import { SearchPool } from './thread/pool.js'
import { Searcher, type SearcherStats } from './thread/searcher.js'
import {
  createGeneration, createMeta, dropGeneration, LAYOUT, readMeta, removeDocuments, Statements, writeDocuments, writeMeta
} from './persistence/schema.js'

export const SEARCH_FILE = 'search.sqlite'

export interface EmbeddedSearchEngineOptions {
  /** Search threads, each holding a copy of the in-memory index; 0 searches on the calling thread. */
  threads?: number
}

export class EmbeddedSearchEngine implements SearchEngine {
  readonly #db: Database.Database
  readonly #statements: Statements
  readonly #searcher: Searcher | undefined
  readonly #pool: SearchPool | undefined

  constructor (dataDir: string, options: EmbeddedSearchEngineOptions = {}) {
    mkdirSync(dataDir, { recursive: true })
    const file = join(dataDir, SEARCH_FILE)
    this.#db = new Database(file)
    this.#db.pragma('journal_mode = WAL')
    this.#db.pragma('synchronous = NORMAL')
    this.#db.pragma('busy_timeout = 5000')
    this.#statements = new Statements(this.#db)
    createMeta(this.#db)
    this.#db.transaction(() => {
      const current = readMeta(this.#statements, 'generation')
      if (current !== undefined && readMeta(this.#statements, 'layout') === LAYOUT) return
      // New, or written in another layout: start an empty index; the indexer refills it
      // from the store (the index is a mirror, the store is the truth).
      if (current !== undefined) this.#dropAll()
      const g = (current ?? 0) + 1
      createGeneration(this.#db, g)
      writeMeta(this.#statements, 'generation', g)
      writeMeta(this.#statements, 'checkpoint', 0)
      writeMeta(this.#statements, 'version', (readMeta(this.#statements, 'version') ?? 0) + 1)
      writeMeta(this.#statements, 'layout', LAYOUT)
    }).immediate()
    const threads = options.threads ?? 0
    if (threads > 0) this.#pool = new SearchPool(file, threads)
    else this.#searcher = new Searcher(this.#db)
  }

  /** Drops every table an older layout may have left (their names carry a generation suffix). */
  #dropAll (): void {
    const tables = (): Array<{ name: string }> => this.#db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB '*_[0-9]*' AND name NOT LIKE 'sqlite_%' ORDER BY sql LIKE 'CREATE VIRTUAL%' DESC").all() as Array<{ name: string }>
    // Virtual tables first: FTS5 shadow tables go with them.
    for (let left = tables(); left.length > 0; left = tables()) {
      this.#db.exec(`DROP TABLE IF EXISTS "${(left[0] as { name: string }).name.replaceAll('"', '""')}"`)
    }
    this.#statements.clear()
  }

  #generation (): number {
    return readMeta(this.#statements, 'generation') as number
  }

  #nextVersion (): number {
    const version = (readMeta(this.#statements, 'version') ?? 0) + 1
    writeMeta(this.#statements, 'version', version)
    return version
  }

  async apply (documents: readonly SearchDocument[], checkpoint: number, removedIds: readonly string[] = []): Promise<void> {
    this.#db.transaction(() => {
      const g = this.#generation()
      const version = this.#nextVersion()
      writeDocuments(this.#statements, g, documents, version)
      removeDocuments(this.#statements, g, removedIds, version)
      writeMeta(this.#statements, 'checkpoint', Math.max(readMeta(this.#statements, 'checkpoint') ?? 0, checkpoint))
    }).immediate()
  }

  async rebuild (batches: AsyncIterable<readonly SearchDocument[]>, checkpoint: number): Promise<void> {
    const next = (this.#db.prepare("SELECT MAX(value) AS g FROM meta WHERE key IN ('generation', 'building')").get() as { g: number }).g + 1
    this.#db.transaction(() => {
      // A rebuild that crashed may have left a partial generation behind.
      dropGeneration(this.#db, next)
      createGeneration(this.#db, next)
      writeMeta(this.#statements, 'building', next)
    }).immediate()
    try {
      for await (const batch of batches) {
        this.#db.transaction(() => { writeDocuments(this.#statements, next, batch, 0) }).immediate()
      }
      this.#db.transaction(() => {
        const old = this.#generation()
        writeMeta(this.#statements, 'generation', next)
        writeMeta(this.#statements, 'checkpoint', checkpoint)
        this.#nextVersion()
        this.#statements.get("DELETE FROM meta WHERE key = 'building'").run()
        dropGeneration(this.#db, old)
      }).immediate()
    } catch (err) {
      this.#db.transaction(() => {
        dropGeneration(this.#db, next)
        this.#statements.get("DELETE FROM meta WHERE key = 'building'").run()
      }).immediate()
      throw err
    } finally {
      this.#statements.clear()
    }
  }

  async search (query: SearchQuery): Promise<SearchResult> {
    return this.#pool !== undefined ? await this.#pool.search(query) : await (this.#searcher as Searcher).search(query)
  }

  async version (): Promise<string> {
    return this.#db.transaction(() => `${this.#generation()}.${readMeta(this.#statements, 'version') as number}`)()
  }

  async checkpoint (): Promise<number> {
    return readMeta(this.#statements, 'checkpoint') ?? 0
  }

  async stats (): Promise<IndexStats> {
    return this.#db.transaction(() => {
      const g = this.#generation()
      const documents = (this.#statements.get(`SELECT COUNT(*) AS n FROM docs_${g}`).get() as { n: number }).n
      return { documents, checkpoint: readMeta(this.#statements, 'checkpoint') ?? 0 }
    })()
  }

  /** The in-memory index of the (first) searcher: size, documents, dead slots. */
  async memory (): Promise<SearcherStats> {
    return this.#pool !== undefined ? await this.#pool.stats() : await (this.#searcher as Searcher).stats()
  }

  /** Ids of every indexed document (operators' consistency checks and tests). */
  async indexedIds (): Promise<string[]> {
    return (this.#db.prepare(`SELECT id FROM docs_${this.#generation()} ORDER BY id`).all() as Array<{ id: string }>).map((r) => r.id)
  }

  async close (): Promise<void> {
    await this.#pool?.close()
    if (this.#db.open) this.#db.close()
  }
}
