/** The SQLite store's change feed: live services by their `seq`, deleted ones by their tombstone's. */
import type { ChangeFeed, ServiceChange } from '../catalog-store.js'
import type { SqliteConnection } from './connection.js'
import { RECORD_COLUMNS, RECORD_VALUES, fromValues, type RecordValues } from './mapping.js'

export class SqliteFeed implements ChangeFeed {
  readonly #connection: SqliteConnection
  readonly #changesSince: (afterSeq: number, limit: number) => ServiceChange[]

  constructor (connection: SqliteConnection) {
    this.#connection = connection
    this.#changesSince = connection.readTransaction((afterSeq: number, limit: number) => this.#readChanges(afterSeq, limit))
  }

  async changesSince (afterSeq: number, limit: number): Promise<ServiceChange[]> {
    return this.#changesSince(afterSeq, limit)
  }

  /**
   * Both reads in one read transaction (one snapshot). Read apart, a writer committing between
   * them could put a tombstone numbered above live changes the first read did not see into the
   * answer, and a tail moving its checkpoint past it would never see those changes.
   */
  #readChanges (afterSeq: number, limit: number): ServiceChange[] {
    const live = (this.#connection.rawStatement(`SELECT ${RECORD_COLUMNS}, seq FROM services WHERE seq > ? ORDER BY seq LIMIT ?`).all(afterSeq, limit) as Array<[...RecordValues, number]>)
      .map((row): ServiceChange => ({ seq: row[RECORD_VALUES], id: row[0], service: fromValues(row) }))
    const deleted = (this.#connection.statement('SELECT id, seq FROM service_tombstones WHERE seq > ? ORDER BY seq LIMIT ?').all(afterSeq, limit) as Array<{ id: string, seq: number }>)
      .map((row): ServiceChange => ({ seq: row.seq, id: row.id, service: null }))
    if (deleted.length === 0) return live
    return [...live, ...deleted].sort((a, b) => a.seq - b.seq).slice(0, limit)
  }

  async latestSeq (): Promise<number> {
    return this.#connection.latestSeq()
  }
}
