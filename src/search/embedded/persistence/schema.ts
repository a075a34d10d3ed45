/**
 * The durable form of the search index in SQLite (`search.sqlite`): one row per service
 * with its filter fields and analyzed terms, the category texts, and a log of removed rows,
 * all stamped with the index version that wrote them so a reader (this process or
 * another) can follow the changes since the version it holds.
 *
 * Tables carry a generation suffix: a rebuild fills the next generation while readers use
 * the current one, then `meta.generation` switches in one transaction.
 */
import type Database from 'better-sqlite3'
import type { SearchDocument } from '../../search-engine.js'
import { extensionMask } from '../../../domain/catalog-query.js'
import type { IndexRow } from '../index/memory-index.js'
import { encodeCategoryTerms, encodeTerms, type EncodedTerms } from '../index/terms.js'

/** Bumped when the layout (or what a document holds: 6, tags and extensions; 7, the lexicon's phrases; 8, kana words kuromoji split, whole) changes; an index in another layout is rebuilt from the store. */
export const LAYOUT = 8

/** Prepared statements by SQL text (a statement per generation's table names). */
export class Statements {
  readonly #cache = new Map<string, Database.Statement>()
  constructor (readonly db: Database.Database) {}
  get (sql: string): Database.Statement {
    let statement = this.#cache.get(sql)
    if (statement === undefined) {
      statement = this.db.prepare(sql)
      this.#cache.set(sql, statement)
    }
    return statement
  }

  /** Forgets statements of dropped tables. */
  clear (): void { this.#cache.clear() }
}

export function readMeta (statements: Statements, key: string): number | undefined {
  return (statements.get('SELECT value FROM meta WHERE key = ?').get(key) as { value: number } | undefined)?.value
}

export function writeMeta (statements: Statements, key: string, value: number): void {
  statements.get('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value)
}

export function createMeta (db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) STRICT')
}

export function createGeneration (db: Database.Database, g: number): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS docs_${g} (
      rowid INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      seq INTEGER NOT NULL,
      changed INTEGER NOT NULL,
      category TEXT NOT NULL,
      status TEXT NOT NULL,
      price_atomic INTEGER NOT NULL,
      trust_score INTEGER NOT NULL,
      name_sort TEXT NOT NULL,
      created_at TEXT NOT NULL,
      chains TEXT NOT NULL,
      pay_to TEXT NOT NULL,
      extensions INTEGER NOT NULL,
      terms TEXT NOT NULL
    ) STRICT;
    CREATE INDEX IF NOT EXISTS docs_${g}_changed ON docs_${g} (changed);
    CREATE TABLE IF NOT EXISTS removed_${g} (row INTEGER PRIMARY KEY, changed INTEGER NOT NULL) STRICT;
    CREATE INDEX IF NOT EXISTS removed_${g}_changed ON removed_${g} (changed);
    CREATE TABLE IF NOT EXISTS categories_${g} (category TEXT PRIMARY KEY, terms TEXT NOT NULL, changed INTEGER NOT NULL) STRICT;
  `)
}

export function dropGeneration (db: Database.Database, g: number): void {
  db.exec(`DROP TABLE IF EXISTS docs_${g}; DROP TABLE IF EXISTS removed_${g}; DROP TABLE IF EXISTS categories_${g};`)
}

/** Writes documents into generation `g` at index version `version`; a document older than the stored one is skipped. */
export function writeDocuments (statements: Statements, g: number, documents: readonly SearchDocument[], version: number): void {
  const find = statements.get(`SELECT rowid, seq FROM docs_${g} WHERE id = ?`)
  const remove = statements.get(`DELETE FROM docs_${g} WHERE rowid = ?`)
  const log = statements.get(`INSERT OR REPLACE INTO removed_${g} (row, changed) VALUES (?, ?)`)
  const insert = statements.get(`INSERT INTO docs_${g} (id, seq, changed, category, status, price_atomic, trust_score, name_sort, created_at, chains, pay_to, extensions, terms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const category = statements.get(`INSERT OR IGNORE INTO categories_${g} (category, terms, changed) VALUES (?, ?, ?)`)
  const categoriesDone = new Set<string>()
  for (const doc of documents) {
    const existing = find.get(doc.id) as { rowid: number, seq: number } | undefined
    // The same or a newer state is already indexed: replays and races change nothing.
    if (existing !== undefined && existing.seq >= doc.seq) continue
    if (existing !== undefined) { remove.run(existing.rowid); log.run(existing.rowid, version) }
    if (!categoriesDone.has(doc.category)) {
      categoriesDone.add(doc.category)
      category.run(doc.category, JSON.stringify(encodeCategoryTerms(doc.terms.category)), version)
    }
    const terms = JSON.stringify([encodeTerms(doc.terms.name), encodeTerms(doc.terms.description)])
    insert.run(doc.id, doc.seq, version, doc.category, doc.status, doc.priceAtomic, doc.trustScore, doc.nameSort, doc.createdAt, JSON.stringify(doc.chains), doc.payTo, extensionMask(doc.extensions), terms)
  }
}

export function removeDocuments (statements: Statements, g: number, ids: readonly string[], version: number): void {
  const find = statements.get(`SELECT rowid FROM docs_${g} WHERE id = ?`)
  for (const id of ids) {
    const existing = find.get(id) as { rowid: number } | undefined
    if (existing === undefined) continue
    statements.get(`DELETE FROM docs_${g} WHERE rowid = ?`).run(existing.rowid)
    statements.get(`INSERT OR REPLACE INTO removed_${g} (row, changed) VALUES (?, ?)`).run(existing.rowid, version)
  }
}

interface StoredRow {
  rowid: number
  id: string
  category: string
  status: string
  price_atomic: number
  trust_score: number
  name_sort: string
  created_at: string
  chains: string
  pay_to: string
  extensions: number
  terms: string
}

const ROW_COLUMNS = 'rowid, id, category, status, price_atomic, trust_score, name_sort, created_at, chains, pay_to, extensions, terms'

function toIndexRow (row: StoredRow): IndexRow {
  return {
    rowid: row.rowid,
    id: row.id,
    category: row.category,
    status: row.status,
    priceAtomic: row.price_atomic,
    trustScore: row.trust_score,
    nameSort: row.name_sort,
    createdAt: row.created_at,
    chains: JSON.parse(row.chains) as string[],
    payTo: row.pay_to,
    extensionMask: row.extensions,
    terms: JSON.parse(row.terms) as [EncodedTerms, EncodedTerms]
  }
}

/** How many rows generation `g` holds, and its highest rowid (a bulk load sizes its arrays). */
export function countRows (statements: Statements, g: number): { rows: number, maxRowid: number } {
  return statements.get(`SELECT count(*) AS rows, coalesce(max(rowid), 0) AS maxRowid FROM docs_${g}`).get() as { rows: number, maxRowid: number }
}

/**
 * Rows of generation `g` after `afterRowid`, in rowid order, one at a time (a bulk load
 * reads in chunks): each row's objects die young instead of a chunk's worth being promoted
 * to the old generation (at 100k services the load's heap peak fell from ~38 to ~22 MB).
 * Finish or drop the iteration before yielding to the event loop: it keeps the statement busy.
 */
export function * readRows (statements: Statements, g: number, afterRowid: number, limit: number): Generator<IndexRow> {
  for (const row of statements.get(`SELECT ${ROW_COLUMNS} FROM docs_${g} WHERE rowid > ? ORDER BY rowid LIMIT ?`).iterate(afterRowid, limit) as IterableIterator<StoredRow>) yield toIndexRow(row)
}

export interface IndexChanges {
  categories: Array<{ category: string, terms: EncodedTerms }>
  removed: number[]
  rows: IndexRow[]
}

/** What versions after `version` wrote into generation `g`. */
export function changesSince (statements: Statements, g: number, version: number): IndexChanges {
  const categories = categoriesSince(statements, g, version)
  const removed = (statements.get(`SELECT row FROM removed_${g} WHERE changed > ?`).all(version) as Array<{ row: number }>).map((r) => r.row)
  // In `changed` order, so SQLite walks the index on it: ordered by rowid it scanned the
  // whole table (90 ms at 100k services) on every catch-up.
  const rows = (statements.get(`SELECT ${ROW_COLUMNS} FROM docs_${g} WHERE changed > ? ORDER BY changed`).all(version) as StoredRow[]).map(toIndexRow)
  return { categories, removed, rows }
}

/** Category texts written after `version` (-1: all). */
export function categoriesSince (statements: Statements, g: number, version: number): Array<{ category: string, terms: EncodedTerms }> {
  return (statements.get(`SELECT category, terms FROM categories_${g} WHERE changed > ?`).all(version) as Array<{ category: string, terms: string }>)
    .map(({ category, terms }) => ({ category, terms: JSON.parse(terms) as EncodedTerms }))
}
