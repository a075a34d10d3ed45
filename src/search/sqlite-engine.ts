/**
 * Embedded SearchEngine on SQLite FTS5, ranking like Meilisearch: a bucket sort on
 * words matched → typos → proximity → attribute → exactness, then trust score and id.
 *
 * Layout: one FTS5 row per service; name and description each have four position-aligned
 * columns (the word, its base form, reading, …: column k holds the k-th form at every
 * position, padded with a filler) so FTS5 offsets are word positions for proximity, plus a
 * loose column for further forms and bigrams. Category text is kept once per category.
 * Tables carry a generation suffix: a rebuild fills the next generation while searches read
 * the current one, then swaps in one transaction. Filters, ranking and paging run in SQL;
 * JavaScript only plans the query terms.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { IndexedTerm } from './analysis/analyzer.js'
import { loadSynonyms } from './synonyms.js'
import { EXACTNESS, planQuery, type PlannedWord } from './query-plan.js'
import {
  SEARCH_ATTRIBUTES, type FacetDistribution, type FacetField, type IndexStats, type MatchKind, type MatchedToken, type SearchDocument, type SearchEngine,
  type SearchHit, type SearchQuery, type SearchResult
} from './search-engine.js'
import { Vocabulary } from './vocabulary.js'
import type { ServiceFilter, SortField } from '../store/catalog-store.js'

export const SEARCH_FILE = 'search.sqlite'

const ALIGNED_FORMS = 4
const FILLER = '\u2400'
/**
 * FTS5 holds the per-service text: name (n…) and description (d…). The category's text is
 * the same for every service in it, so its terms are kept once per category and matched
 * once per query, instead of once per service (they were most of the work for queries
 * naming a category: weather, 天気, …).
 */
const TEXT_ATTRIBUTES = { n: 'name', d: 'description' } as const
const COLUMNS = Object.keys(TEXT_ATTRIBUTES).flatMap((letter) => [...Array.from({ length: ALIGNED_FORMS }, (_, k) => `${letter}${k}`), `${letter}x`])
/** SQL for an FTS5 instance column's attribute rank (name 0, category 1, description 2). */
const ATTRIBUTE_OF_COLUMN = "CASE substr(i.col, 1, 1) WHEN 'n' THEN 0 ELSE 2 END"
const CATEGORY_ATTRIBUTE = SEARCH_ATTRIBUTES.indexOf('category')
/** Bumped when the index layout changes; an index in another layout is rebuilt from the store. */
const LAYOUT = 3
/** Word distance at and beyond which two words count as unrelated (Meilisearch caps proximity too). */
const MAX_DISTANCE = 8
/** The vocabulary is reloaded at most this often while the index keeps changing. */
const VOCABULARY_REFRESH_MS = 1000

const KINDS: readonly MatchKind[] = ['exact', 'reading', 'synonym', 'bigram', 'prefix', 'typo']

const SORT_COLUMNS: Record<SortField, string> = {
  price: 'd.price_atomic',
  trustScore: 'd.trust_score',
  name: 'd.name_sort',
  createdAt: 'd.created_at'
}

/**
 * FTS5 column texts for one attribute: word forms aligned by position, then the loose
 * rest (bigrams, and forms beyond the aligned columns).
 */
function columnTexts (terms: readonly IndexedTerm[]): string[] {
  const byPosition: string[][] = []
  const loose: string[] = []
  for (const { term, position, bigram } of terms) {
    if (bigram === true) loose.push(term)
    else (byPosition[position] ??= []).push(term)
  }
  const aligned: string[][] = Array.from({ length: ALIGNED_FORMS }, () => [])
  for (const forms of byPosition) {
    for (let k = 0; k < ALIGNED_FORMS; k++) (aligned[k] as string[]).push(forms?.[k] ?? FILLER)
    if (forms !== undefined) loose.push(...forms.slice(ALIGNED_FORMS))
  }
  return [...aligned.map((column) => column.join(' ')), loose.join(' ')]
}

interface RankedRow {
  id: string
  doc: number
  words: number
  typos: number
  proximity: number
  attr: number
  exactness: number
  total: number
}

export class SqliteSearchEngine implements SearchEngine {
  readonly #db: Database.Database
  readonly #synonyms = loadSynonyms()
  #vocabulary: { generation: number, version: number, loadedAt: number, words: Vocabulary } | undefined
  /** Search statements by SQL text (their shape varies with filters, order and word count). */
  readonly #statements = new Map<string, Database.Statement>()

  /** Results of recent searches, valid for one index version; a small LRU. */
  readonly #cache = new Map<string, SearchResult>()
  readonly #cacheEntries: number
  #cacheVersion = -1

  /** `cacheEntries`: how many recent results to keep while the index is unchanged (0: none). */
  constructor (dataDir: string, options: { cacheEntries?: number } = {}) {
    this.#cacheEntries = options.cacheEntries ?? 1000
    mkdirSync(dataDir, { recursive: true })
    this.#db = new Database(join(dataDir, SEARCH_FILE))
    this.#db.pragma('journal_mode = WAL')
    this.#db.pragma('synchronous = NORMAL')
    this.#db.pragma('busy_timeout = 5000')
    this.#db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) STRICT')
    this.#db.transaction(() => {
      const current = this.#meta('generation')
      if (current !== undefined && this.#meta('layout') === LAYOUT) return
      // New, or written in an older layout: start an empty index; the indexer refills it
      // from the store (the index is a mirror, the store is the truth).
      if (current !== undefined) this.#dropGeneration(current)
      const g = (current ?? 0) + 1
      this.#createGeneration(g)
      this.#setMeta('generation', g)
      this.#setMeta('checkpoint', 0)
      this.#setMeta('version', (this.#meta('version') ?? 0) + 1)
      this.#setMeta('layout', LAYOUT)
    }).immediate()
  }

  #meta (key: string): number | undefined {
    return (this.#statement('SELECT value FROM meta WHERE key = ?').get(key) as { value: number } | undefined)?.value
  }

  #setMeta (key: string, value: number): void {
    this.#statement('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value)
  }

  #generation (): number {
    return this.#meta('generation') as number
  }

  #createGeneration (g: number): void {
    this.#db.exec(`
      CREATE TABLE IF NOT EXISTS docs_${g} (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        seq INTEGER NOT NULL,
        category TEXT NOT NULL,
        status TEXT NOT NULL,
        price_atomic INTEGER NOT NULL,
        trust_score INTEGER NOT NULL,
        name_sort TEXT NOT NULL,
        created_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX IF NOT EXISTS docs_${g}_category ON docs_${g} (category);
      CREATE TABLE IF NOT EXISTS chains_${g} (chain TEXT NOT NULL, doc INTEGER NOT NULL, PRIMARY KEY (chain, doc)) STRICT, WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS vocabulary_${g} (term TEXT PRIMARY KEY, documents INTEGER NOT NULL) STRICT, WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS category_terms_${g} (
        term TEXT NOT NULL,
        category TEXT NOT NULL,
        position INTEGER NOT NULL,
        PRIMARY KEY (term, category, position)
      ) STRICT, WITHOUT ROWID;
      CREATE VIRTUAL TABLE IF NOT EXISTS fts_${g} USING fts5(${COLUMNS.join(', ')}, tokenize = 'ascii', content = '', contentless_delete = 1);
      CREATE VIRTUAL TABLE IF NOT EXISTS fts_${g}_instances USING fts5vocab(fts_${g}, instance);
    `)
  }

  #dropGeneration (g: number): void {
    this.#db.exec(`
      DROP TABLE IF EXISTS fts_${g}_instances; DROP TABLE IF EXISTS fts_${g}_terms; DROP TABLE IF EXISTS fts_${g};
      DROP TABLE IF EXISTS chains_${g}; DROP TABLE IF EXISTS category_terms_${g}; DROP TABLE IF EXISTS vocabulary_${g};
      DROP TABLE IF EXISTS docs_${g};
    `)
  }

  /** Writes documents into generation `g`; a document older than the stored one is skipped. */
  #write (g: number, documents: readonly SearchDocument[]): void {
    const find = this.#statement(`SELECT rowid, seq FROM docs_${g} WHERE id = ?`)
    const insertDoc = this.#statement(`INSERT INTO docs_${g} (id, seq, category, status, price_atomic, trust_score, name_sort, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
    const updateDoc = this.#statement(`UPDATE docs_${g} SET seq = ?, category = ?, status = ?, price_atomic = ?, trust_score = ?, name_sort = ?, created_at = ? WHERE rowid = ?`)
    const deleteText = this.#statement(`DELETE FROM fts_${g} WHERE rowid = ?`)
    const deleteChains = this.#statement(`DELETE FROM chains_${g} WHERE doc = ?`)
    const insertText = this.#statement(`INSERT INTO fts_${g} (rowid, ${COLUMNS.join(', ')}) VALUES (?${', ?'.repeat(COLUMNS.length)})`)
    const insertChain = this.#statement(`INSERT INTO chains_${g} (chain, doc) VALUES (?, ?)`)
    const insertCategoryTerm = this.#statement(`INSERT OR IGNORE INTO category_terms_${g} (term, category, position) VALUES (?, ?, ?)`)
    const categoriesDone = new Set<string>()
    // Word → documents gained in this batch, written once per word below.
    const gained = new Map<string, number>()
    for (const doc of documents) {
      const fields = [doc.category, doc.status, doc.priceAtomic, doc.trustScore, doc.nameSort, doc.createdAt] as const
      const existing = find.get(doc.id) as { rowid: number, seq: number } | undefined
      let rowid: number
      if (existing === undefined) {
        rowid = Number(insertDoc.run(doc.id, doc.seq, ...fields).lastInsertRowid)
      } else {
        if (existing.seq > doc.seq) continue
        rowid = existing.rowid
        updateDoc.run(doc.seq, ...fields, rowid)
        deleteText.run(rowid)
        deleteChains.run(rowid)
      }
      insertText.run(rowid, ...Object.values(TEXT_ATTRIBUTES).flatMap((attribute) => columnTexts(doc.terms[attribute])))
      for (const chain of new Set(doc.chains)) insertChain.run(chain, rowid)
      if (!categoriesDone.has(doc.category)) {
        categoriesDone.add(doc.category)
        for (const { term, position } of doc.terms.category) insertCategoryTerm.run(term, doc.category, position)
      }
      if (existing === undefined) {
        const words = new Set<string>()
        for (const attribute of SEARCH_ATTRIBUTES) {
          for (const { term, bigram } of doc.terms[attribute]) if (bigram !== true) words.add(term)
        }
        for (const word of words) gained.set(word, (gained.get(word) ?? 0) + 1)
      }
    }
    const count = this.#statement(`INSERT INTO vocabulary_${g} (term, documents) VALUES (?, ?) ON CONFLICT (term) DO UPDATE SET documents = documents + excluded.documents`)
    for (const [word, documents] of gained) count.run(word, documents)
  }

  /** Removes documents by id from generation `g` (their vocabulary counts stay until a reindex). */
  #remove (g: number, ids: readonly string[]): void {
    const find = this.#statement(`SELECT rowid FROM docs_${g} WHERE id = ?`)
    for (const id of ids) {
      const existing = find.get(id) as { rowid: number } | undefined
      if (existing === undefined) continue
      this.#statement(`DELETE FROM fts_${g} WHERE rowid = ?`).run(existing.rowid)
      this.#statement(`DELETE FROM chains_${g} WHERE doc = ?`).run(existing.rowid)
      this.#statement(`DELETE FROM docs_${g} WHERE rowid = ?`).run(existing.rowid)
    }
  }

  async apply (documents: readonly SearchDocument[], checkpoint: number, removedIds: readonly string[] = []): Promise<void> {
    this.#db.transaction(() => {
      this.#write(this.#generation(), documents)
      this.#remove(this.#generation(), removedIds)
      this.#setMeta('checkpoint', Math.max(this.#meta('checkpoint') ?? 0, checkpoint))
      this.#setMeta('version', (this.#meta('version') ?? 0) + 1)
    }).immediate()
  }

  async rebuild (batches: AsyncIterable<readonly SearchDocument[]>, checkpoint: number): Promise<void> {
    const next = (this.#db.prepare("SELECT MAX(value) AS g FROM meta WHERE key IN ('generation', 'building')").get() as { g: number }).g + 1
    this.#db.transaction(() => {
      this.#createGeneration(next)
      this.#setMeta('building', next)
    }).immediate()
    try {
      for await (const batch of batches) this.#db.transaction(() => { this.#write(next, batch) }).immediate()
    } catch (err) {
      this.#db.transaction(() => { this.#dropGeneration(next); this.#db.prepare("DELETE FROM meta WHERE key = 'building'").run() }).immediate()
      throw err
    }
    this.#db.transaction(() => {
      const previous = this.#generation()
      this.#setMeta('generation', next)
      this.#setMeta('checkpoint', checkpoint)
      this.#setMeta('version', (this.#meta('version') ?? 0) + 1)
      this.#db.prepare("DELETE FROM meta WHERE key = 'building'").run()
      this.#dropGeneration(previous)
    }).immediate()
  }

  #statement (sql: string): Database.Statement {
    let statement = this.#statements.get(sql)
    if (statement === undefined) {
      // Statements name one generation's tables; drop those of older generations.
      if (this.#statements.size > 500) this.#statements.clear()
      statement = this.#db.prepare(sql)
      this.#statements.set(sql, statement)
    }
    return statement
  }

  #currentVocabulary (g: number): Vocabulary {
    const version = this.#meta('version') as number
    const cached = this.#vocabulary
    const fresh = cached !== undefined && cached.generation === g &&
      (cached.version === version || Date.now() - cached.loadedAt < VOCABULARY_REFRESH_MS)
    if (fresh) return cached.words
    // Words only (bigrams would make typo, prefix and compound candidates noise), counted
    // as they were indexed: reading FTS5's own vocabulary took ~450 ms at 100k services. A
    // word's count is the services ever indexed with it, so after updates it may overstate;
    // a reindex recounts.
    const rows = this.#statement(`SELECT term, documents FROM vocabulary_${g}`).all() as Array<{ term: string, documents: number }>
    const words = new Vocabulary(rows)
    this.#vocabulary = { generation: g, version, loadedAt: Date.now(), words }
    return words
  }

  async search (query: SearchQuery): Promise<SearchResult> {
    // A deferred transaction: one consistent snapshot even if a rebuild swaps meanwhile.
    return this.#db.transaction(() => {
      const g = this.#generation()
      const version = this.#meta('version') as number
      const key = this.#cacheEntries > 0 ? JSON.stringify([g, query]) : ''
      if (this.#cacheEntries > 0) {
        // Any index change (a new service, a swap) starts a fresh cache.
        if (version !== this.#cacheVersion) { this.#cache.clear(); this.#cacheVersion = version }
        const cached = this.#cache.get(key)
        if (cached !== undefined) {
          this.#cache.delete(key)
          this.#cache.set(key, cached)
          return cached
        }
      }
      const plan = planQuery(query.words, this.#currentVocabulary(g), this.#synonyms, { prefixLastWord: query.prefixLastWord })
      const { rows, matches } = plan.length === 0 ? { rows: [], matches: new Map() } : this.#rank(g, plan, query)
      const result: SearchResult = { total: rows[0]?.total ?? 0, hits: rows.map((row) => this.#hit(row, plan, matches.get(row.doc) ?? [])) }
      if (query.facets !== undefined) result.facetDistribution = this.#facets(g, plan, query.filter, query.facets)
      if (this.#cacheEntries > 0) {
        this.#cache.set(key, result)
        if (this.#cache.size > this.#cacheEntries) this.#cache.delete(this.#cache.keys().next().value as string)
      }
      return result
    })()
  }

  #rank (g: number, plan: PlannedWord[], query: SearchQuery): { rows: RankedRow[], matches: Map<number, Array<[number, string, number, number, number]>> } {
    const candidates = plan.flatMap((word, w) => word.candidates.map((c) => [w, c.term, c.typos, EXACTNESS[c.kind], KINDS.indexOf(c.kind)]))
    const where: string[] = []
    const params: Record<string, string | number> = {
      plan: JSON.stringify(candidates),
      limit: query.page.limit,
      offset: query.page.offset
    }
    const { filter } = query
    if (filter.category !== undefined) { where.push('d.category = @category'); params.category = filter.category }
    if (filter.status !== undefined) { where.push('d.status = @status'); params.status = filter.status }
    if (filter.maxPriceAtomic !== undefined) { where.push('d.price_atomic <= @maxPrice'); params.maxPrice = filter.maxPriceAtomic }
    if (filter.chain !== undefined) { where.push(`EXISTS (SELECT 1 FROM chains_${g} c WHERE c.chain = @chain AND c.doc = d.rowid)`); params.chain = filter.chain }
    const order = query.sort === undefined
      ? 'r.words DESC, r.typos, proximity, r.attr, r.exactness, d.trust_score DESC, d.id'
      : `${SORT_COLUMNS[query.sort.field]} ${query.sort.order === 'asc' ? 'ASC' : 'DESC'}, d.id ${query.sort.order === 'asc' ? 'ASC' : 'DESC'}`
    const proximity = plan.length > 1
    const sql = `
      WITH q(w, term, typos, ex) AS (
        SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(@plan)
      ),
      -- One row per document, word and attribute: its best match there and its first
      -- aligned position (proximity is measured between first occurrences, which keeps
      -- the cost linear in matches; names and descriptions are short).
      -- The categories each word matches: a handful of rows, whatever the catalog's size.
      category_matches AS (
        SELECT ct.category, q.w, MIN(q.typos) AS typos, MIN(q.ex) AS ex, MIN(ct.position) AS pos
        FROM q JOIN category_terms_${g} ct ON ct.term = q.term
        GROUP BY ct.category, q.w
      ),
      firsts AS MATERIALIZED (
        SELECT i.doc, q.w, ${ATTRIBUTE_OF_COLUMN} AS attr, MIN(q.typos) AS typos, MIN(q.ex) AS ex,
               MIN(CASE WHEN substr(i.col, 2) = 'x' THEN NULL ELSE i.offset END) AS pos
        FROM q JOIN fts_${g}_instances i ON i.term = q.term
        GROUP BY i.doc, q.w, attr
        UNION ALL
        SELECT d.rowid, m.w, ${CATEGORY_ATTRIBUTE}, m.typos, m.ex, m.pos
        FROM category_matches m JOIN docs_${g} d ON d.category = m.category
      ),
      ranked AS (
        SELECT doc, COUNT(*) AS words, SUM(typos) AS typos, SUM(attr) AS attr, SUM(ex) AS exactness
        FROM (SELECT doc, w, MIN(typos) AS typos, MIN(attr) AS attr, MIN(ex) AS ex FROM firsts GROUP BY doc, w)
        GROUP BY doc
      )${proximity ? `,
      closeness AS MATERIALIZED (
        -- Words in reverse order count one step further apart, as in Meilisearch.
        SELECT doc, SUM(${MAX_DISTANCE} - d) AS saved FROM (
          SELECT a.doc, MIN(MIN(CASE WHEN b.pos > a.pos THEN b.pos - a.pos ELSE a.pos - b.pos + 1 END), ${MAX_DISTANCE}) AS d
          FROM firsts a JOIN firsts b ON b.doc = a.doc AND b.w = a.w + 1 AND b.attr = a.attr
          WHERE a.pos IS NOT NULL AND b.pos IS NOT NULL
          GROUP BY a.doc, a.w
        ) GROUP BY doc
      )` : ''}
      SELECT d.id, r.doc, r.words, r.typos, r.attr, r.exactness, COUNT(*) OVER () AS total,
             ${proximity ? `${MAX_DISTANCE} * (r.words - 1) - COALESCE(c.saved, 0)` : '0'} AS proximity
      FROM ranked r ${proximity ? 'LEFT JOIN closeness c ON c.doc = r.doc' : ''} JOIN docs_${g} d ON d.rowid = r.doc
      ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
      ORDER BY ${order}
      LIMIT @limit OFFSET @offset`
    const rows = this.#statement(sql).all(params) as RankedRow[]
    if (rows.length === 0) return { rows, matches: new Map() }
    // How each word matched, for the page only.
    const matchRows = this.#statement(`
      WITH q(w, term, typos, kind) AS (SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 4 FROM json_each(@plan)),
      page(doc) AS (SELECT value FROM json_each(@docs))
      SELECT i.doc, q.w, q.term, q.typos, q.kind, ${ATTRIBUTE_OF_COLUMN} AS attr
      FROM q JOIN fts_${g}_instances i ON i.term = q.term
      WHERE i.doc IN page
      UNION ALL
      SELECT d.rowid, q.w, q.term, q.typos, q.kind, ${CATEGORY_ATTRIBUTE}
      FROM q JOIN category_terms_${g} ct ON ct.term = q.term JOIN docs_${g} d ON d.category = ct.category
      WHERE d.rowid IN page`
    ).raw().all({ plan: params.plan, docs: JSON.stringify(rows.map((row) => row.doc)) }) as Array<[number, number, string, number, number, number]>
    const matches = new Map<number, Array<[number, string, number, number, number]>>()
    for (const [doc, ...match] of matchRows) {
      const list = matches.get(doc)
      if (list === undefined) matches.set(doc, [match])
      else list.push(match)
    }
    return { rows, matches }
  }

  /**
   * Matches per facet value, over every document any planned term meets (the same set the
   * ranking counts in its total), after the filter. Kept apart from the ranking statement:
   * only pages that ask for facets pay for it.
   */
  #facets (g: number, plan: PlannedWord[], filter: ServiceFilter, fields: readonly FacetField[]): FacetDistribution {
    const distribution: FacetDistribution = {}
    const asked = [...new Set(fields)]
    for (const field of asked) distribution[field] = {}
    if (plan.length === 0 || asked.length === 0) return distribution
    const where: string[] = []
    const params: Record<string, string | number> = { terms: JSON.stringify([...new Set(plan.flatMap((word) => word.candidates.map((c) => c.term)))]) }
    if (filter.category !== undefined) { where.push('d.category = @category'); params.category = filter.category }
    if (filter.status !== undefined) { where.push('d.status = @status'); params.status = filter.status }
    if (filter.maxPriceAtomic !== undefined) { where.push('d.price_atomic <= @maxPrice'); params.maxPrice = filter.maxPriceAtomic }
    if (filter.chain !== undefined) { where.push(`EXISTS (SELECT 1 FROM chains_${g} c WHERE c.chain = @chain AND c.doc = d.rowid)`); params.chain = filter.chain }
    const groupings: Record<FacetField, string> = {
      category: "SELECT 'category', d.category, COUNT(*) FROM hits d GROUP BY d.category",
      status: "SELECT 'status', d.status, COUNT(*) FROM hits d GROUP BY d.status",
      network: `SELECT 'network', c.chain, COUNT(*) FROM hits d JOIN chains_${g} c ON c.doc = d.rowid GROUP BY c.chain`
    }
    const sql = `
      WITH t(term) AS (SELECT value FROM json_each(@terms)),
      matched(doc) AS (
        SELECT i.doc FROM t JOIN fts_${g}_instances i ON i.term = t.term
        UNION
        SELECT d.rowid FROM t JOIN category_terms_${g} ct ON ct.term = t.term JOIN docs_${g} d ON d.category = ct.category
      ),
      hits AS MATERIALIZED (
        SELECT d.rowid, d.category, d.status FROM matched m JOIN docs_${g} d ON d.rowid = m.doc
        ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
      )
      ${asked.map((field) => groupings[field]).join(' UNION ALL ')}`
    const rows = this.#statement(sql).raw().all(params) as Array<[FacetField, string, number]>
    for (const [field, value, count] of rows) (distribution[field] as Record<string, number>)[value] = count
    return distribution
  }

  /** Score in [0, 1]: the bucket ranks read as one mixed-radix number, so it orders exactly like the ranking. */
  #hit (row: RankedRow, plan: PlannedWord[], matches: ReadonlyArray<[number, string, number, number, number]>): SearchHit {
    const n = plan.length
    const digits: Array<[number, number]> = [
      [n - row.words, n],
      [row.typos, 2 * n + 1],
      [row.proximity, MAX_DISTANCE * Math.max(0, n - 1) + 1],
      [row.attr, 2 * n + 1],
      [row.exactness, 2 * n + 1]
    ]
    let rank = 0
    let range = 1
    for (const [value, radix] of digits) {
      rank = rank * radix + Math.min(value, radix - 1)
      range *= radix
    }
    const score = Math.round((1 - rank / range) * 10000) / 10000

    const best = new Map<number, MatchedToken & { order: number }>()
    for (const [w, term, typos, kindIndex, attr] of matches) {
      const kind = KINDS[kindIndex] as MatchKind
      const order = (EXACTNESS[kind] + typos) * 10 + attr
      const current = best.get(w)
      if (current === undefined || order < current.order) {
        best.set(w, { word: plan[w]?.text ?? term, term, attribute: SEARCH_ATTRIBUTES[attr] ?? 'description', kind, typos, order })
      }
    }
    const matchedTokens = [...best.entries()].sort(([a], [b]) => a - b).map(([, { order: _order, ...token }]) => token)
    return { id: row.id, score, matchedTokens }
  }

  async version (): Promise<string> {
    return `${this.#generation()}.${this.#meta('version') as number}`
  }

  async checkpoint (): Promise<number> {
    return this.#meta('checkpoint') ?? 0
  }

  async stats (): Promise<IndexStats> {
    return this.#db.transaction(() => {
      const g = this.#generation()
      const documents = (this.#statement(`SELECT COUNT(*) AS n FROM docs_${g}`).get() as { n: number }).n
      return { documents, checkpoint: this.#meta('checkpoint') ?? 0 }
    })()
  }

  /** Ids of every indexed document (operators' consistency checks and tests). */
  async indexedIds (): Promise<string[]> {
    return (this.#db.prepare(`SELECT id FROM docs_${this.#generation()} ORDER BY id`).all() as Array<{ id: string }>).map((r) => r.id)
  }

  async close (): Promise<void> {
    if (this.#db.open) this.#db.close()
  }
}
