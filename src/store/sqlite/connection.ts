/**
 * What every section of the SQLite store shares (src/store/sqlite/store.ts composes them):
 * the connection, its prepared statements, write transactions, and how a write is stamped
 * with the change feed's next sequence number.
 */
import type Database from 'better-sqlite3'
import type { ServiceRecord } from '../../domain/service.js'
import { RECORD_COLUMNS, fromValues, type RecordValues } from './mapping.js'

/**
 * The next change-feed sequence: past every live service and every tombstone. A write sets
 * a service's `seq` to it in the statement that changes the row (the feed's stamp).
 */
export const NEXT_SEQ = '(SELECT MAX(s) + 1 FROM (SELECT COALESCE(MAX(seq), 0) AS s FROM services UNION ALL SELECT COALESCE(MAX(seq), 0) FROM service_tombstones))'

export class SqliteConnection {
  /** Prepared once per distinct SQL text: preparing per request costs time and GC pressure. */
  readonly #statements = new Map<string, Database.Statement>()

  constructor (readonly db: Database.Database) {}

  statement (sql: string): Database.Statement {
    return this.#prepared(sql, sql, (statement) => statement)
  }

  /** A prepared statement whose rows come back as arrays of column values. */
  rawStatement (sql: string): Database.Statement {
    return this.#prepared(`raw:${sql}`, sql, (statement) => statement.raw(true))
  }

  /** A prepared statement whose integers come back as BigInt: payment amounts and their sums stay exact past 2^53. */
  safeIntegerStatement (sql: string): Database.Statement {
    return this.#prepared(`safe:${sql}`, sql, (statement) => statement.safeIntegers(true))
  }

  #prepared (key: string, sql: string, mode: (statement: Database.Statement) => Database.Statement): Database.Statement {
    let statement = this.#statements.get(key)
    if (statement === undefined) {
      statement = mode(this.db.prepare(sql))
      this.#statements.set(key, statement)
    }
    return statement
  }

  /**
   * A write transaction that takes the write lock when it begins (BEGIN IMMEDIATE). A
   * deferred one that reads first would take a snapshot, and if another process committed
   * a write before its own first write, it could not upgrade: SQLITE_BUSY at once, no
   * busy_timeout wait (SQLite refuses to let it write over a state it did not see).
   */
  writeTransaction<F extends (...args: any[]) => unknown> (work: F): Database.Transaction<F>['immediate'] {
    return this.db.transaction(work).immediate
  }

  /** A read transaction: every read in `work` sees one snapshot. */
  readTransaction<F extends (...args: any[]) => unknown> (work: F): Database.Transaction<F> {
    return this.db.transaction(work)
  }

  /** The number the next change gets. */
  nextSeq (): number {
    return (this.statement(`SELECT ${NEXT_SEQ} AS seq`).get() as { seq: number }).seq
  }

  /** The highest sequence number handed out so far (0 for a store never written to). */
  latestSeq (): number {
    return (this.statement(`SELECT ${NEXT_SEQ} - 1 AS seq`).get() as { seq: number }).seq
  }

  /** The service with this id as stored; null when there is none (the sections that update a service read it first). */
  service (id: string): ServiceRecord | null {
    const row = this.rawStatement(`SELECT ${RECORD_COLUMNS} FROM services WHERE id = ?`).get(id) as RecordValues | undefined
    return row === undefined ? null : fromValues(row)
  }
}
