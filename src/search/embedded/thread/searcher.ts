/**
 * Answers searches from an in-memory index that follows the SQLite index: loaded whole at
 * first use and after a generation swap (a reindex), then caught up before each search
 * with the rows written since the version it holds — by this process or by a standalone
 * indexer — so a search always sees every change committed before it started.
 */
import { setImmediate as nextTurn } from 'node:timers/promises'
import type Database from 'better-sqlite3'
import { loadSynonyms } from '../../synonyms.js'
import { PlanCache, planQuery } from '../ranking/query-plan.js'
import type { SearchQuery, SearchResult } from '../../search-engine.js'
import { hitOf } from '../ranking/hits.js'
import { MemoryIndex } from '../index/memory-index.js'
import { rank, Scratch } from '../ranking/ranking.js'
import { categoriesSince, changesSince, countRows, readRows, Statements } from '../persistence/schema.js'
import { mapPacked } from '../index/packed.js'

/** Rows read per step of a bulk load; searches from the old index run between steps. */
const LOAD_CHUNK = 2000
/** A fresh index is loaded in the background once dead slots exceed this share of live ones. */
const COMPACT_RATIO = 0.25
const COMPACT_MIN_DEAD = 1000

export interface SearcherStats {
  generation: number
  version: number
  documents: number
  deadSlots: number
  terms: number
  /** Approximate bytes: postings, per-document columns, term keys, query scratch. */
  bytes: { postings: number, documents: number, terms: number, scratch: number }
  /** Word-set and filter-set lookups answered by a cached set (brought up to date) and by a new one, since start. */
  wordSets: { hits: number, misses: number }
}

export class Searcher {
  readonly #statements: Statements
  readonly #synonyms = loadSynonyms()
  readonly #scratch = new Scratch()
  readonly #plans = new PlanCache()
  #index: MemoryIndex | undefined
  #loading: Promise<MemoryIndex> | undefined
  #compacting: Promise<void> | undefined

  /** Called after a new copy of the index replaced the old one (the search thread collects garbage). */
  readonly #afterLoad: () => void

  constructor (db: Database.Database, options: { afterLoad?: () => void } = {}) {
    this.#statements = new Statements(db)
    this.#afterLoad = options.afterLoad ?? (() => {})
  }

  /** Both in one statement (one snapshot), no transaction: every search asks. */
  #meta (): { generation: number, version: number } {
    return this.#statements.get("SELECT (SELECT value FROM meta WHERE key = 'generation') AS generation, (SELECT value FROM meta WHERE key = 'version') AS version").get() as { generation: number, version: number }
  }

  /** Loads generation `g` whole, yielding between chunks; restarts if a swap drops it meanwhile. */
  async #load (g: number): Promise<MemoryIndex> {
    try {
      const index = new MemoryIndex(g, this.#meta().version)
      const { rows: count, maxRowid } = countRows(this.#statements, g)
      index.beginBulkLoad(count, maxRowid)
      for (const { category, terms } of categoriesSince(this.#statements, g, -1)) index.setCategoryTerms(category, terms)
      for (let after = 0; ;) {
        let read = 0
        for (const row of readRows(this.#statements, g, after, LOAD_CHUNK)) {
          index.add(row)
          after = row.rowid
          read++
        }
        if (read === 0) break
        await nextTurn()
      }
      index.endBulkLoad()
      // The orders ties are broken by, sorted once here rather than on a first search.
      index.trustOrder()
      return index
    } catch (err) {
      const { generation } = this.#meta()
      if (generation !== g) {
        this.#statements.clear()
        return await this.#load(generation)
      }
      throw err
    }
  }

  /** Applies what was written since the index's version; false when its generation is gone. */
  #catchUp (index: MemoryIndex): boolean {
    const now = this.#meta()
    if (now.generation !== index.generation) return false
    if (now.version === index.version) return true
    return this.#statements.db.transaction(() => {
      const { generation, version } = this.#meta()
      if (generation !== index.generation) return false
      if (version === index.version) return true
      const changes = changesSince(this.#statements, generation, index.version)
      for (const { category, terms } of changes.categories) index.setCategoryTerms(category, terms)
      for (const rowid of changes.removed) index.remove(rowid)
      for (const row of changes.rows) if (!index.has(row.rowid)) index.add(row)
      index.version = version
      return true
    })()
  }

  /** The current index, caught up; loads a new generation first when the index was swapped. */
  async #current (): Promise<MemoryIndex> {
    for (;;) {
      const index = this.#index
      if (index !== undefined && this.#catchUp(index)) {
        this.#maybeCompact(index)
        return index
      }
      // Searches wait for the new generation, so the old copy can go now: one copy in memory
      // at a time, not two, while a reindexed index loads (the word sets and plans refer to it too).
      this.#index = undefined
      this.#scratch.cache.clear()
      this.#plans.clear()
      this.#loading ??= this.#load(this.#meta().generation).finally(() => { this.#loading = undefined })
      const loaded = await this.#loading
      // Another search may have installed a copy meanwhile (the await lets it run).
      const installed = this.#index as MemoryIndex | undefined
      // Every search that waited gets here with the same copy: install (and release) once.
      if (installed !== loaded && (installed === undefined || loaded.generation >= installed.generation)) {
        this.#index = loaded
        this.#released()
      }
    }
  }

  /**
   * After a load is installed: once the searches that waited for it have resumed (they
   * hold the replaced copy until then), its garbage and the replaced copy can go.
   */
  #released (): void {
    setTimeout(this.#afterLoad, 0).unref()
  }

  /** Dead slots cost memory and scan time: load a fresh copy in the background and swap it in. */
  #maybeCompact (index: MemoryIndex): void {
    if (this.#compacting !== undefined || index.dead < Math.max(COMPACT_MIN_DEAD, index.live * COMPACT_RATIO)) return
    this.#compacting = this.#load(index.generation).then((fresh) => {
      if (this.#index === index && this.#catchUp(fresh)) this.#index = fresh
      this.#released()
    }).finally(() => { this.#compacting = undefined })
  }

  /** Starts loading now (a worker warms up before the first search arrives). */
  async warm (): Promise<void> {
    await this.#current()
  }

  async search (query: SearchQuery): Promise<SearchResult> {
    const index = await this.#current()
    const plan = planQuery(query.words, index.vocabulary, this.#synonyms, { prefixLastWord: query.prefixLastWord }, this.#plans)
    const ranked = rank(index, this.#scratch, { plan, filter: query.filter, sort: query.sort, page: query.page, facets: query.facets })
    const hits = mapPacked(ranked.docs, (doc) => hitOf(index, doc, plan))
    // Every match is counted in the pass that finds them: the total is exact.
    const result: SearchResult = { total: ranked.total, totalExact: true, hits }
    if (ranked.facetDistribution !== undefined) result.facetDistribution = ranked.facetDistribution
    return result
  }

  /**
   * What a query costs before ranking (the benchmark reports it per query shape): the
   * posting entries of its candidate terms, category lists included.
   */
  async postingEntries (query: SearchQuery): Promise<number> {
    const index = await this.#current()
    let entries = 0
    for (const word of planQuery(query.words, index.vocabulary, this.#synonyms, { prefixLastWord: query.prefixLastWord }, this.#plans)) {
      for (const { term } of word.candidates) {
        entries += index.postings.get(term)?.length ?? 0
        for (const [code] of index.categoryTerms.get(term) ?? []) entries += index.categoryDocs[code]?.length ?? 0
      }
    }
    return entries
  }

  async stats (): Promise<SearcherStats> {
    const index = await this.#current()
    return {
      generation: index.generation,
      version: index.version,
      documents: index.live,
      deadSlots: index.dead,
      terms: index.postings.size,
      bytes: { ...index.bytes(), scratch: this.#scratch.bytes + this.#plans.bytes },
      wordSets: { hits: this.#scratch.cache.hits, misses: this.#scratch.cache.misses }
    }
  }
}
