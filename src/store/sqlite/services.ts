/**
 * The SQLite store's services section: the listings, each write stamped as a change of the
 * feed, and their reads (records, pages, counts). Lists go to the list thread when the store
 * has one (src/store/sqlite/list-thread.ts), else to the list index on this connection.
 */
import { performance } from 'node:perf_hooks'
import Database from 'better-sqlite3'
import { DuplicateEndpointError } from '../../errors.js'
import type { CatalogFilter, Page, ServiceSort } from '../../domain/catalog-query.js'
import type { HttpMethod } from '../../domain/http-method.js'
import { TEST_NETWORK_IDS } from '../../domain/networks.js'
import { payToKey } from '../../domain/pay-to.js'
import type { FirstProbeTime } from '../../domain/probe-schedule.js'
import type { ServiceRecord } from '../../domain/service.js'
import type { CatalogFacets, Displacement, NewProvenance, ServiceJsonItem, ServiceJsonPage, ServicePage, ServiceStore } from '../catalog-store.js'
import { underOriginClaim } from './claims.js'
import { NEXT_SEQ, type SqliteConnection } from './connection.js'
import type { ListThread } from './list-thread.js'
import { ServiceJsonCache } from './json-cache.js'
import { ServiceLists } from './lists.js'
import { RECORD_COLUMNS, fromDisplacementRow, fromValues, toParams, type DisplacementRow, type RecordValues } from './mapping.js'
import { EXTENSION_CONDITIONS, PAY_TO_KEY_SQL } from './schema.js'

/** How often a run of bulk inserts refreshes the planner's statistics at most. */
const OPTIMIZE_EVERY_MS = 10_000

const INSERT = `
  INSERT INTO services (id, seq, name, name_sort, description, endpoint, origin, resource, method, category, currency, price_atomic,
    free_quota, payment_address, network, supported_chains, status, trust_score, uptime_score, last_checked,
    usage, payment_requirements, owner_id, claimed, call_schema, bazaar_extension, tags, prefill, created_at, updated_at, service_json, next_probe_at)
  VALUES (@id, ${NEXT_SEQ}, @name, @nameSort, @description, @endpoint, @origin, @resource, @method,
    @category, @currency, @priceAtomic, @freeQuota, @paymentAddress, @network, @supportedChains, @status,
    @trustScore, @uptimeScore, @lastChecked, @usage, @paymentRequirements, @ownerId, @claimed, @callSchema, @bazaarExtension, @tags, @prefill, @createdAt, @updatedAt, @serviceJson, @nextProbeAt)`

const UPDATE = `
  UPDATE services SET seq = ${NEXT_SEQ}, name = @name, name_sort = @nameSort, description = @description,
    endpoint = @endpoint, origin = @origin, resource = @resource, method = @method, category = @category, currency = @currency, price_atomic = @priceAtomic,
    free_quota = @freeQuota, payment_address = @paymentAddress, network = @network, supported_chains = @supportedChains,
    status = @status, trust_score = @trustScore, uptime_score = @uptimeScore, last_checked = @lastChecked,
    usage = @usage, payment_requirements = @paymentRequirements,
    owner_id = @ownerId, claimed = @claimed, call_schema = @callSchema, bazaar_extension = @bazaarExtension, tags = @tags, prefill = @prefill, created_at = @createdAt, updated_at = @updatedAt, service_json = @serviceJson
  WHERE id = @id`

export class SqliteServices implements ServiceStore {
  readonly #connection: SqliteConnection
  readonly #lists: ServiceLists
  #optimizedAt = -Infinity
  readonly #listThread: ListThread | undefined
  readonly #insertMany: (records: readonly ServiceRecord[], firstProbeAt?: FirstProbeTime, provenance?: NewProvenance) => void
  readonly #deleteOne: (id: string) => boolean
  /** getServiceJson: the kept items, or the cache's check of the change feed and the rows it lacks in one read transaction. */
  readonly #readJson: (ids: readonly string[]) => ServiceJsonItem[]
  readonly #displaceOne: (holder: ServiceRecord, record: ServiceRecord, displacement: Displacement) => boolean
  /**
   * Replaces the listing with `record`'s id as a new change, under its origin's proven claim;
   * false when no listing has that id. Its own transaction, or part of the caller's (a proof
   * moving an origin's listings, src/store/sqlite/claims.ts).
   */
  readonly rewrite: (record: ServiceRecord) => boolean

  constructor (connection: SqliteConnection, listThread: ListThread | undefined) {
    this.#connection = connection
    this.#listThread = listThread
    this.#lists = new ServiceLists(connection)
    const jsonCache = new ServiceJsonCache(connection)
    const readThrough = connection.readTransaction((ids: readonly string[]) => jsonCache.get(ids, (missing) => this.#jsonOf(missing)))
    // A page wholly kept costs one statement (the change check), no transaction.
    this.#readJson = (ids) => jsonCache.kept(ids) ?? readThrough(ids)
    this.#insertMany = connection.writeTransaction((records: readonly ServiceRecord[], firstProbeAt?: FirstProbeTime, provenance?: NewProvenance) => {
      for (const record of records) this.#insertOne(record, firstProbeAt)
      if (provenance === undefined || connection.statement('SELECT 1 FROM sources WHERE id = ?').get(provenance.sourceId) === undefined) return
      // The rows were just written at their own seq: the entries are part of that change.
      for (const record of records) connection.statement('INSERT OR IGNORE INTO service_sources (source_id, service_id, first_seen_at) VALUES (?, ?, ?)').run(provenance.sourceId, record.id, provenance.at)
    })
    this.rewrite = connection.writeTransaction((written: ServiceRecord): boolean => {
      const record = underOriginClaim(connection, written)
      if (!this.#uniqueEndpoint(() => connection.statement(UPDATE).run(toParams(record)), record)) return false
      connection.statement('DELETE FROM service_chains WHERE service_id = ?').run(record.id)
      for (const chain of record.supportedChains) connection.statement('INSERT INTO service_chains (service_id, chain) VALUES (?, ?)').run(record.id, chain)
      return true
    })
    this.#deleteOne = connection.writeTransaction((id: string): boolean => {
      // Taken before the row goes: deleting the newest service would otherwise hand its tombstone
      // the service's own seq, which the indexer has already passed, and search would keep it.
      const seq = connection.nextSeq()
      connection.statement('DELETE FROM service_chains WHERE service_id = ?').run(id)
      if (connection.statement('DELETE FROM services WHERE id = ?').run(id).changes === 0) return false
      connection.statement('DELETE FROM probes WHERE service_id = ?').run(id)
      connection.statement('INSERT OR REPLACE INTO service_tombstones (id, seq) VALUES (?, ?)').run(id, seq)
      return true
    })
    this.#displaceOne = connection.writeTransaction((holder: ServiceRecord, record: ServiceRecord, displacement: Displacement): boolean => {
      const current = connection.statement('SELECT updated_at FROM services WHERE id = ? AND endpoint = ?').get(holder.id, holder.endpoint) as { updated_at: string } | undefined
      if (current?.updated_at !== holder.updatedAt) return false
      this.#deleteOne(holder.id)
      this.#insertOne(record)
      connection.statement('INSERT OR REPLACE INTO service_displacements (id, displaced_by, endpoint, owner_id, reason, at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(displacement.id, displacement.displacedBy, displacement.endpoint, displacement.ownerId, displacement.reason, displacement.at)
      return true
    })
  }

  /**
   * Runs a write of `record` inside a transaction; true when a row changed. A unique clash
   * is a DuplicateEndpointError only when another service holds the record's identity (resource and method): the
   * error does not say which index it hit (other than in its message, which is no contract),
   * but the write lock is held, so the holder read here is the one the index saw.
   */
  #uniqueEndpoint (write: () => Database.RunResult, record: ServiceRecord): boolean {
    try {
      return write().changes > 0
    } catch (err) {
      if (err instanceof Database.SqliteError && err.code === 'SQLITE_CONSTRAINT_UNIQUE') {
        const holder = this.#connection.statement('SELECT id FROM services WHERE resource = ? AND method = ?').pluck().get(record.resource, record.method) as string | undefined
        if (holder !== undefined && holder !== record.id) throw new DuplicateEndpointError(record.endpoint, { cause: err })
      }
      throw err
    }
  }

  #insertOne (written: ServiceRecord, firstProbeAt?: FirstProbeTime): void {
    const connection = this.#connection
    const record = underOriginClaim(connection, written)
    const nextProbeAt = firstProbeAt?.(record) ?? null
    this.#uniqueEndpoint(() => connection.statement(INSERT).run({ ...toParams(record), nextProbeAt }), record)
    // An id that comes back (a demo service re-seeded) is live again: its tombstone goes.
    connection.statement('DELETE FROM service_tombstones WHERE id = ?').run(record.id)
    for (const chain of record.supportedChains) connection.statement('INSERT INTO service_chains (service_id, chain) VALUES (?, ?)').run(record.id, chain)
  }

  async insertService (record: ServiceRecord, firstProbeAt?: FirstProbeTime): Promise<void> {
    this.#insertMany([record], firstProbeAt)
  }

  async insertServices (records: readonly ServiceRecord[], firstProbeAt?: FirstProbeTime, provenance?: NewProvenance): Promise<void> {
    this.#insertMany(records, firstProbeAt, provenance)
    // A bulk load changes the data's shape: refresh the planner's statistics, at most every
    // OPTIMIZE_EVERY_MS (a pass inserts in thousands of small batches; ~0.5 ms a call).
    const now = performance.now()
    if (now - this.#optimizedAt >= OPTIMIZE_EVERY_MS) {
      this.#optimizedAt = now
      this.#connection.db.pragma('optimize')
    }
  }

  async updateService (record: ServiceRecord): Promise<boolean> {
    return this.rewrite(record)
  }

  async deleteService (id: string): Promise<boolean> {
    return this.#deleteOne(id)
  }

  async displaceService (holder: ServiceRecord, record: ServiceRecord, displacement: Displacement): Promise<boolean> {
    return this.#displaceOne(holder, record, displacement)
  }

  async getDisplacement (id: string): Promise<Displacement | null> {
    const row = this.#connection.statement('SELECT * FROM service_displacements WHERE id = ?').get(id) as DisplacementRow | undefined
    return row === undefined ? null : fromDisplacementRow(row)
  }

  async getService (id: string): Promise<ServiceRecord | null> {
    return this.#connection.service(id)
  }

  async findServiceByResource (resource: string, method: HttpMethod): Promise<ServiceRecord | null> {
    const row = this.#connection.rawStatement(`SELECT ${RECORD_COLUMNS} FROM services WHERE resource = ? AND method = ?`).get(resource, method) as RecordValues | undefined
    return row === undefined ? null : fromValues(row)
  }

  async servicesOnOrigin (origin: string, limit: number): Promise<ServiceRecord[]> {
    // '0' follows '/' in code point order: the range is exactly the endpoints under `origin/` (index services_endpoint).
    const rows = this.#connection.rawStatement(`SELECT ${RECORD_COLUMNS} FROM services WHERE endpoint >= ? AND endpoint < ? ORDER BY id LIMIT ?`)
      .all(`${origin}/`, `${origin}0`, limit) as RecordValues[]
    return rows.map((row) => fromValues(row))
  }

  async getServices (ids: readonly string[]): Promise<ServiceRecord[]> {
    if (ids.length === 0) return []
    const rows = this.#connection.rawStatement(`SELECT ${RECORD_COLUMNS} FROM services WHERE id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(ids)) as RecordValues[]
    const byId = new Map(rows.map((row) => [row[0], fromValues(row)]))
    return ids.flatMap((id) => byId.get(id) ?? [])
  }

  async getServiceJson (ids: readonly string[]): Promise<ServiceJsonItem[]> {
    return ids.length === 0 ? [] : this.#readJson(ids)
  }

  /** The kept JSON of those of these services that exist, in no particular order (the cache reads through it). */
  #jsonOf (ids: readonly string[]): ServiceJsonItem[] {
    // A search page's ids (at most 100): one parameter each, as a list page's rowids (lists.ts); more through json_each.
    // As a blob: the text's UTF-8 bytes as stored, never decoded into a string.
    const rows = (ids.length <= 100
      ? this.#connection.rawStatement(`SELECT id, CAST(service_json AS BLOB), uptime_score FROM services WHERE id IN (${'?,'.repeat(ids.length - 1)}?)`).all(...ids)
      : this.#connection.rawStatement('SELECT id, CAST(service_json AS BLOB), uptime_score FROM services WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids))) as Array<[string, Uint8Array, number | null]>
    return rows.map(([id, json, uptimeScore]) => ({ id, json, uptimeScore }))
  }

  async listServices (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServicePage> {
    return this.#listThread !== undefined ? await this.#listThread.list(filter, sort, page) : this.#lists.records(filter, sort, page)
  }

  async listServiceJson (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServiceJsonPage> {
    return this.#listThread !== undefined ? await this.#listThread.listJson(filter, sort, page) : this.#lists.json(filter, sort, page)
  }

  /** WHERE conditions and their parameters for a filter. */
  #where (filter: CatalogFilter): { where: string[], params: Record<string, string | number> } {
    const where: string[] = []
    const params: Record<string, string | number> = {}
    if (filter.category !== undefined) { where.push('category = @category'); params.category = filter.category }
    if (filter.status !== undefined) { where.push('status = @status'); params.status = filter.status }
    if (filter.maxPriceAtomic !== undefined) { where.push('price_atomic <= @maxPrice'); params.maxPrice = filter.maxPriceAtomic }
    if (filter.payTo !== undefined) { where.push(`${PAY_TO_KEY_SQL} = @payTo`); params.payTo = payToKey(filter.payTo) }
    if (filter.extension !== undefined) where.push(EXTENSION_CONDITIONS[filter.extension])
    if (filter.chain !== undefined) {
      // Correlated, so SQLite can walk the sort index and stop once the page is full.
      where.push('EXISTS (SELECT 1 FROM service_chains c WHERE c.chain = @chain AND c.service_id = services.id)')
      params.chain = filter.chain
    }
    if (filter.testnet !== undefined) {
      // isTestListing on the row's own few chains: some, and none outside the test networks.
      const test = 'json_array_length(services.supported_chains) > 0 AND NOT EXISTS (SELECT 1 FROM json_each(services.supported_chains) c WHERE c.value NOT IN (SELECT value FROM json_each(@testNetworks)))'
      where.push(filter.testnet ? `(${test})` : `NOT (${test})`)
      params.testNetworks = JSON.stringify(TEST_NETWORK_IDS)
    }
    return { where, params }
  }

  async * streamServices (filter: CatalogFilter, batchSize = 500): AsyncIterable<ServiceRecord> {
    const { where, params } = this.#where(filter)
    // Keyset on the primary key: each batch is one short read, never an open cursor, so
    // writes and other reads on this connection go on between batches.
    const statement = this.#connection.rawStatement(`SELECT ${RECORD_COLUMNS} FROM services WHERE ${[...where, 'id > @after'].join(' AND ')} ORDER BY id LIMIT @batch`)
    let after = ''
    for (;;) {
      const rows = statement.all({ ...params, after, batch: batchSize }) as RecordValues[]
      for (const row of rows) yield fromValues(row)
      if (rows.length < batchSize) return
      after = (rows[rows.length - 1] as RecordValues)[0]
    }
  }

  async countServices (): Promise<number> {
    return (this.#connection.statement('SELECT COUNT(*) AS n FROM services').get() as { n: number }).n
  }

  async countByCategory (): Promise<Map<string, number>> {
    const rows = this.#connection.statement('SELECT category, COUNT(*) AS n FROM services GROUP BY category').all() as Array<{ category: string, n: number }>
    return new Map(rows.map((row) => [row.category, row.n]))
  }

  // Counted in the list index, as the lists are: SQL read every matching row once per facet
  // (~70 ms at 100k services, ten times that with the default test-network filter).
  async countFacets (filter: CatalogFilter): Promise<CatalogFacets> {
    return this.#listThread !== undefined ? await this.#listThread.facets(filter) : this.#lists.facets(filter)
  }
}
