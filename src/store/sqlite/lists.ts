/**
 * The services section's lists as read on this connection: the list index (src/lib/service-index.ts),
 * kept in step with the change feed, finds a page's rows, and the same read transaction reads
 * them. The list thread (src/store/sqlite/list-worker.ts) answers the API's lists this way
 * on a connection of its own.
 */
import type { CatalogFilter, Page, ServiceSort } from '../../domain/catalog-query.js'
import { payToKey } from '../../domain/pay-to.js'
import type { ServiceRecord } from '../../domain/service.js'
import { ServiceIndex, type ListEntry } from '../../lib/service-index.js'
import { serviceKeysOf, type ServiceKeyValues } from '../../lib/service-columns.js'
import { releaseGarbage } from '../../release-garbage.js'
import type { CatalogFacets, ServiceJsonPage, ServicePage } from '../catalog-store.js'
import { jsonArrayBytes } from '../json-page.js'
import type { SqliteConnection } from './connection.js'
import { RECORD_COLUMNS, RECORD_VALUES, fromValues, type RecordValues } from './mapping.js'
import { EXTENSION_MASK_SQL, PAY_TO_KEY_SQL } from './schema.js'

/** What the list index keeps of a service (src/lib/service-index.ts): its ServiceKeyValues, then the rowid to read it back by. */
const LIST_COLUMNS = `id, category, status, price_atomic, trust_score, name_sort, created_at, supported_chains, ${PAY_TO_KEY_SQL}, ${EXTENSION_MASK_SQL}, rowid`
type ListValues = [...ServiceKeyValues, rowid: number]
/** Where the rowid sits in ListValues: after the keys. */
const ROWID_AT = 10 satisfies ServiceKeyValues['length']

function toListEntry (v: ListValues): ListEntry {
  return { ...serviceKeysOf(v), handle: v[ROWID_AT] }
}

export class ServiceLists {
  readonly #connection: SqliteConnection
  #lists: { index: ServiceIndex, seq: number } | undefined
  /** A page of records, in one read transaction. */
  readonly records: (filter: CatalogFilter, sort: ServiceSort, page: Page) => ServicePage
  /** A page as the bytes GET /api/services sends, in one read transaction. */
  readonly json: (filter: CatalogFilter, sort: ServiceSort, page: Page) => ServiceJsonPage
  /** countFacets, counted in the list index. */
  readonly facets: (filter: CatalogFilter) => CatalogFacets

  constructor (connection: SqliteConnection) {
    this.#connection = connection
    this.records = connection.readTransaction((filter: CatalogFilter, sort: ServiceSort, page: Page): ServicePage => {
      const { handles, total } = this.#queryListIndex(filter, sort, page)
      return { items: this.#recordsByRowid(handles), total }
    })
    this.json = connection.readTransaction((filter: CatalogFilter, sort: ServiceSort, page: Page): ServiceJsonPage => {
      const { handles, total } = this.#queryListIndex(filter, sort, page)
      return { json: this.#jsonByRowid(handles), total }
    })
    this.facets = connection.readTransaction((filter: CatalogFilter): CatalogFacets => {
      const { category, status, chain } = this.#currentListIndex().facets(filter)
      return { category, status, network: chain }
    })
  }

  /** The page's rowids and the total, inside the caller's read transaction. */
  #queryListIndex (filter: CatalogFilter, sort: ServiceSort, page: Page): { handles: number[], total: number } {
    // The payment address filter is rare and selective: its own SQL index finds the few ids.
    const within = filter.payTo === undefined
      ? undefined
      : this.#connection.statement(`SELECT id FROM services WHERE ${PAY_TO_KEY_SQL} = ?`).pluck().all(payToKey(filter.payTo)) as string[]
    return this.#currentListIndex().query(filter, sort, page, within)
  }

  /**
   * The list index, brought up to the store's latest change first (the same read transaction
   * then reads the page's rows, so both see one state). Built on first use; rebuilt rather
   * than patched when many changes are pending (a bulk import) or it keeps dead codes.
   */
  #currentListIndex (): ServiceIndex {
    const connection = this.#connection
    const seq = connection.latestSeq()
    const known = this.#lists
    if (known !== undefined && known.seq === seq) return known.index
    if (known !== undefined && known.seq < seq) {
      // Patching costs ~0.15 ms a change at 100k services, a rebuild ~1 s: past 2,000, rebuild.
      const limit = 2000
      const live = connection.rawStatement(`SELECT ${LIST_COLUMNS} FROM services WHERE seq > ? ORDER BY seq LIMIT ?`).all(known.seq, limit + 1) as ListValues[]
      const gone = connection.statement('SELECT id FROM service_tombstones WHERE seq > ? LIMIT ?').pluck().all(known.seq, limit + 1) as string[]
      if (live.length <= limit && gone.length <= limit) {
        // An id is live or tombstoned, never both: the order of applying does not matter.
        for (const id of gone) known.index.remove(id)
        for (const row of live) known.index.upsert(toListEntry(row))
        known.seq = seq
        return known.index
      }
    }
    const rows = connection.rawStatement(`SELECT ${LIST_COLUMNS} FROM services`).iterate() as IterableIterator<ListValues>
    const index = new ServiceIndex((function * () { for (const row of rows) yield toListEntry(row) })())
    this.#lists = { index, seq }
    // The build's rows are garbage now (tens of MB at 100k services).
    releaseGarbage()
    return index
  }

  /** The kept service_json of these rows, in the order given, as one JSON array (rows gone meanwhile are skipped). */
  #jsonByRowid (rowids: readonly number[]): Buffer<ArrayBuffer> {
    if (rowids.length === 0) return jsonArrayBytes([])
    const rows = this.#rowsByRowid('service_json', rowids) as Array<[string, number]>
    const byRowid = new Map(rows.map(([json, rowid]) => [rowid, json]))
    return jsonArrayBytes(rowids.flatMap((rowid) => byRowid.get(rowid) ?? []))
  }

  #recordsByRowid (rowids: readonly number[]): ServiceRecord[] {
    if (rowids.length === 0) return []
    // The rowid last: the values before it are exactly fromValues' (no copy per row).
    const rows = this.#rowsByRowid(RECORD_COLUMNS, rowids) as Array<[...RecordValues, number]>
    const byRowid = new Map(rows.map((values) => [values[RECORD_VALUES], values]))
    return rowids.flatMap((rowid) => { const values = byRowid.get(rowid); return values === undefined ? [] : [fromValues(values)] })
  }

  /**
   * `columns` and then the rowid of the rows with these rowids (a page's: at most 100), as
   * arrays, in no particular order. One parameter a rowid, a statement per count prepared
   * once: cheaper than json_each.
   */
  #rowsByRowid (columns: string, rowids: readonly number[]): unknown[][] {
    return this.#connection.rawStatement(`SELECT ${columns}, rowid FROM services WHERE rowid IN (${'?,'.repeat(rowids.length - 1)}?)`).all(...rowids) as unknown[][]
  }
}
