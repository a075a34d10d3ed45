/**
 * Embedded CatalogStore on SQLite (better-sqlite3, WAL). The file lives in DATA_DIR so
 * the API and a standalone indexer process can share it. synchronous=FULL: a 201 has
 * reached the disk, not just the OS cache.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { DuplicateEndpointError, StoreUnavailableError } from '../errors.js'
import type { HttpMethod } from '../domain/http-method.js'
import { PROBE_HISTORY_LIMIT, type ProbeSummary } from '../domain/lifecycle.js'
import type { PaymentRequirement, ProbeOutcome } from '../domain/probe.js'
import type { ServiceRecord } from '../domain/service.js'
import type { ServiceStatus } from '../domain/trust.js'
import { payToKey } from '../domain/pay-to.js'
import type { ApiKeyRecord, CatalogStore, Displacement, MonitoringDecision, ProbeCandidate, ProbePage, ServiceChange, ServicePage } from './catalog-store.js'
import type { CatalogFilter, Page, ServiceSort, SortField } from '../domain/catalog-query.js'

/** SQL twin of payToKey (src/domain/pay-to.ts): EVM addresses compare lower-cased. */
const PAY_TO_KEY_SQL = "(CASE WHEN substr(payment_address, 1, 2) = '0x' THEN lower(payment_address) ELSE payment_address END)"

/**
 * One index per filter column and sort order, so "category=x sorted by price" walks the
 * index in order and stops after a page instead of sorting every match.
 */
const FILTER_SORT_INDEXES = ['category', 'status'].flatMap((filter) =>
  ['price_atomic', 'trust_score', 'name_sort', 'created_at'].map((sort) =>
    `CREATE INDEX IF NOT EXISTS services_${filter}_${sort} ON services(${filter}, ${sort}, id);`)).join('\n')

/**
 * Sort orders that also carry the price: a page of "price ≤ x sorted by trust" at offset
 * 5000 walks this index alone (no row read per skipped service), and only the page's rows
 * are read. (sort, id) first keeps the id tie-break in index order. They replace the
 * former (sort, id) indexes, dropped below.
 */
const SORT_COVERING_INDEXES = ['trust_score', 'name_sort', 'created_at'].map((sort) =>
  `CREATE INDEX IF NOT EXISTS services_${sort}_id_price ON services(${sort}, id, price_atomic);`).join('\n')

const SCHEMA = `
CREATE TABLE IF NOT EXISTS services (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL UNIQUE,
  name TEXT NOT NULL,
  name_sort TEXT NOT NULL,
  description TEXT NOT NULL,
  endpoint TEXT NOT NULL UNIQUE,
  method TEXT NOT NULL DEFAULT 'GET',
  category TEXT NOT NULL,
  currency TEXT NOT NULL,
  price_atomic INTEGER NOT NULL,
  free_quota INTEGER NOT NULL,
  payment_address TEXT NOT NULL,
  network TEXT NOT NULL,
  supported_chains TEXT NOT NULL,
  status TEXT NOT NULL,
  trust_score INTEGER NOT NULL,
  uptime_score REAL,
  last_checked TEXT,
  tx_count INTEGER NOT NULL,
  total_revenue TEXT NOT NULL,
  payment_requirements TEXT,
  next_probe_at TEXT,
  owner_id TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS service_tombstones (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL UNIQUE
) STRICT;
CREATE TABLE IF NOT EXISTS service_chains (
  service_id TEXT NOT NULL REFERENCES services(id),
  chain TEXT NOT NULL,
  PRIMARY KEY (chain, service_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS services_price ON services(price_atomic, id);
${SORT_COVERING_INDEXES}
CREATE INDEX IF NOT EXISTS services_category_status ON services(category, status);
${FILTER_SORT_INDEXES}
CREATE INDEX IF NOT EXISTS services_pay_to ON services(${PAY_TO_KEY_SQL}, id);
CREATE TABLE IF NOT EXISTS service_displacements (
  id TEXT PRIMARY KEY,
  displaced_by TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  owner_id TEXT,
  reason TEXT NOT NULL,
  at TEXT NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS probes (
  id INTEGER PRIMARY KEY,
  service_id TEXT NOT NULL,
  checked_at TEXT NOT NULL,
  http_status INTEGER,
  x402_version INTEGER,
  latency_ms INTEGER,
  answered_402 INTEGER NOT NULL,
  matched INTEGER NOT NULL,
  reason TEXT NOT NULL,
  accepts TEXT
) STRICT;
CREATE INDEX IF NOT EXISTS probes_service ON probes(service_id, id);
CREATE TABLE IF NOT EXISTS leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  revoked_at TEXT
) STRICT;
`

/** Columns added after the first release, with their definitions, for stores created before them. */
const ADDED_COLUMNS: Array<[string, string]> = [
  ['method', "TEXT NOT NULL DEFAULT 'GET'"],
  ['payment_requirements', 'TEXT'],
  ['next_probe_at', 'TEXT']
]

/** Indexes on added columns: created after the columns exist in old stores. */
const LATE_INDEXES = `CREATE INDEX IF NOT EXISTS services_next_probe ON services(next_probe_at, id);
DROP INDEX IF EXISTS services_trust;
DROP INDEX IF EXISTS services_name;
DROP INDEX IF EXISTS services_created;`

/** The next change-feed sequence: past every live service and every tombstone. */
const NEXT_SEQ = '(SELECT MAX(s) + 1 FROM (SELECT COALESCE(MAX(seq), 0) AS s FROM services UNION ALL SELECT COALESCE(MAX(seq), 0) FROM service_tombstones))'

interface ServiceRow {
  id: string
  seq: number
  name: string
  description: string
  endpoint: string
  method: string
  category: string
  currency: string
  price_atomic: number
  free_quota: number
  payment_address: string
  network: string
  supported_chains: string
  status: string
  trust_score: number
  uptime_score: number | null
  last_checked: string | null
  tx_count: number
  total_revenue: string
  payment_requirements: string | null
  next_probe_at: string | null
  owner_id: string | null
  created_at: string
  updated_at: string
}

interface ProbeRow {
  checked_at: string
  http_status: number | null
  x402_version: number | null
  latency_ms: number | null
  answered_402: number
  matched: number
  reason: string
  accepts: string | null
}

function fromProbeRow (row: ProbeRow): ProbeOutcome {
  return {
    checkedAt: row.checked_at,
    httpStatus: row.http_status,
    x402Version: row.x402_version,
    latencyMs: row.latency_ms,
    answered402: row.answered_402 === 1,
    matched: row.matched === 1,
    reason: row.reason,
    accepts: row.accepts === null ? null : JSON.parse(row.accepts) as PaymentRequirement[]
  }
}

interface ApiKeyRow { id: string, name: string, hash: string, created_at: string, revoked_at: string | null }

const SORT_COLUMNS: Record<SortField, string> = {
  price: 'price_atomic',
  trustScore: 'trust_score',
  name: 'name_sort',
  createdAt: 'created_at'
}

function fromRow (row: ServiceRow): ServiceRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    endpoint: row.endpoint,
    method: row.method as HttpMethod,
    category: row.category,
    currency: row.currency,
    priceAtomic: row.price_atomic,
    freeQuota: row.free_quota,
    paymentAddress: row.payment_address,
    network: row.network,
    supportedChains: JSON.parse(row.supported_chains) as string[],
    status: row.status as ServiceStatus,
    trustScore: row.trust_score,
    uptimeScore: row.uptime_score,
    lastChecked: row.last_checked,
    txCount: row.tx_count,
    totalRevenue: row.total_revenue,
    paymentRequirements: row.payment_requirements === null ? null : JSON.parse(row.payment_requirements) as PaymentRequirement[],
    ownerId: row.owner_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at
  }
}

function fromKeyRow (row: ApiKeyRow): ApiKeyRecord {
  return { id: row.id, name: row.name, hash: row.hash, createdAt: row.created_at, revokedAt: row.revoked_at }
}

/** Sort key for names: NFKC + lower case, so ＡＰＩ and api sort together. */
export function nameSortKey (name: string): string {
  return name.normalize('NFKC').toLowerCase()
}

export const STORE_FILE = 'catalog.sqlite'

export class SqliteCatalogStore implements CatalogStore {
  readonly #db: Database.Database
  readonly #insert: Database.Statement
  readonly #update: Database.Statement
  readonly #insertChain: Database.Statement
  readonly #insertMany: (records: readonly ServiceRecord[]) => void
  readonly #updateOne: (record: ServiceRecord) => boolean
  readonly #deleteOne: (id: string) => boolean
  readonly #displaceOne: (holder: ServiceRecord, record: ServiceRecord, displacement: Displacement) => boolean
  readonly #recordProbe: (serviceId: string, outcome: ProbeOutcome, decide: MonitoringDecision, nextProbeAt: string | null) => ServiceRecord | null
  readonly #acquireLease: (name: string, holder: string, ttlMs: number, now: number) => boolean
  /** Prepared once per distinct SQL text: preparing per request costs time and GC pressure. */
  readonly #statements = new Map<string, Database.Statement>()

  constructor (dataDir: string) {
    mkdirSync(dataDir, { recursive: true })
    try {
      this.#db = new Database(join(dataDir, STORE_FILE))
      this.#db.pragma('journal_mode = WAL')
      this.#db.pragma('synchronous = FULL')
      this.#db.pragma('busy_timeout = 5000')
      this.#db.pragma('foreign_keys = ON')
      this.#db.exec(SCHEMA)
      this.#addMissingColumns()
      this.#db.exec(LATE_INDEXES)
      // Fresh planner statistics, so filters pick the selective index (cheap when nothing changed).
      this.#db.pragma('optimize = 0x10002')
    } catch (err) {
      throw new StoreUnavailableError(`cannot open the catalog store in ${dataDir}: ${(err as Error).message}`, { cause: err })
    }
    this.#insert = this.#statement(`
      INSERT INTO services (id, seq, name, name_sort, description, endpoint, method, category, currency, price_atomic,
        free_quota, payment_address, network, supported_chains, status, trust_score, uptime_score, last_checked,
        tx_count, total_revenue, payment_requirements, owner_id, created_at, updated_at)
      VALUES (@id, ${NEXT_SEQ}, @name, @nameSort, @description, @endpoint, @method,
        @category, @currency, @priceAtomic, @freeQuota, @paymentAddress, @network, @supportedChains, @status,
        @trustScore, @uptimeScore, @lastChecked, @txCount, @totalRevenue, @paymentRequirements, @ownerId, @createdAt, @updatedAt)`)
    this.#update = this.#statement(`
      UPDATE services SET seq = ${NEXT_SEQ}, name = @name, name_sort = @nameSort, description = @description,
        endpoint = @endpoint, method = @method, category = @category, currency = @currency, price_atomic = @priceAtomic,
        free_quota = @freeQuota, payment_address = @paymentAddress, network = @network, supported_chains = @supportedChains,
        status = @status, trust_score = @trustScore, uptime_score = @uptimeScore, last_checked = @lastChecked,
        tx_count = @txCount, total_revenue = @totalRevenue, payment_requirements = @paymentRequirements,
        owner_id = @ownerId, created_at = @createdAt, updated_at = @updatedAt
      WHERE id = @id`)
    this.#insertChain = this.#statement('INSERT INTO service_chains (service_id, chain) VALUES (?, ?)')
    this.#insertMany = this.#db.transaction((records: readonly ServiceRecord[]) => {
      for (const record of records) this.#insertOne(record)
    })
    this.#updateOne = this.#db.transaction((record: ServiceRecord): boolean => {
      if (!this.#uniqueEndpoint(() => this.#update.run(this.#params(record)), record.endpoint)) return false
      this.#statement('DELETE FROM service_chains WHERE service_id = ?').run(record.id)
      for (const chain of record.supportedChains) this.#insertChain.run(record.id, chain)
      return true
    })
    this.#deleteOne = this.#db.transaction((id: string): boolean => {
      // Taken before the row goes: deleting the newest service would otherwise hand its tombstone
      // the service's own seq, which the indexer has already passed, and search would keep it.
      const seq = (this.#statement(`SELECT ${NEXT_SEQ} AS seq`).get() as { seq: number }).seq
      this.#statement('DELETE FROM service_chains WHERE service_id = ?').run(id)
      if (this.#statement('DELETE FROM services WHERE id = ?').run(id).changes === 0) return false
      this.#statement('DELETE FROM probes WHERE service_id = ?').run(id)
      this.#statement('INSERT OR REPLACE INTO service_tombstones (id, seq) VALUES (?, ?)').run(id, seq)
      return true
    })
    this.#displaceOne = this.#db.transaction((holder: ServiceRecord, record: ServiceRecord, displacement: Displacement): boolean => {
      const current = this.#statement('SELECT updated_at FROM services WHERE id = ? AND endpoint = ?').get(holder.id, holder.endpoint) as { updated_at: string } | undefined
      if (current?.updated_at !== holder.updatedAt) return false
      this.#deleteOne(holder.id)
      this.#insertOne(record)
      this.#statement('INSERT OR REPLACE INTO service_displacements (id, displaced_by, endpoint, owner_id, reason, at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(displacement.id, displacement.displacedBy, displacement.endpoint, displacement.ownerId, displacement.reason, displacement.at)
      return true
    })
    this.#recordProbe = this.#db.transaction((serviceId: string, outcome: ProbeOutcome, decide: MonitoringDecision, nextProbeAt: string | null) =>
      this.#recordProbeNow(serviceId, outcome, decide, nextProbeAt))
    this.#acquireLease = this.#db.transaction((name: string, holder: string, ttlMs: number, now: number): boolean => {
      const current = this.#statement('SELECT holder, expires_at FROM leases WHERE name = ?').get(name) as { holder: string, expires_at: number } | undefined
      if (current !== undefined && current.holder !== holder && current.expires_at > now) return false
      this.#statement('INSERT OR REPLACE INTO leases (name, holder, expires_at) VALUES (?, ?, ?)').run(name, holder, now + ttlMs)
      return true
    })
  }

  #recordProbeNow (serviceId: string, outcome: ProbeOutcome, decide: MonitoringDecision, nextProbeAt: string | null): ServiceRecord | null {
    const row = this.#statement('SELECT * FROM services WHERE id = ?').get(serviceId) as ServiceRow | undefined
    if (row === undefined) return null
    this.#statement(`INSERT INTO probes (service_id, checked_at, http_status, x402_version, latency_ms, answered_402, matched, reason, accepts)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(serviceId, outcome.checkedAt, outcome.httpStatus, outcome.x402Version, outcome.latencyMs,
      outcome.answered402 ? 1 : 0, outcome.matched ? 1 : 0, outcome.reason, outcome.accepts === null ? null : JSON.stringify(outcome.accepts))
    // Bounded per service: everything older than the newest PROBE_HISTORY_LIMIT goes.
    const oldestKept = this.#statement('SELECT id FROM probes WHERE service_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?')
      .get(serviceId, PROBE_HISTORY_LIMIT - 1) as { id: number } | undefined
    if (oldestKept !== undefined) this.#statement('DELETE FROM probes WHERE service_id = ? AND id < ?').run(serviceId, oldestKept.id)
    const history = (this.#statement('SELECT checked_at, answered_402, matched FROM probes WHERE service_id = ? ORDER BY id DESC LIMIT ?')
      .all(serviceId, PROBE_HISTORY_LIMIT) as Array<Pick<ProbeRow, 'checked_at' | 'answered_402' | 'matched'>>)
      .map((probe): ProbeSummary => ({ checkedAt: probe.checked_at, answered402: probe.answered_402 === 1, matched: probe.matched === 1 }))
    const before = fromRow(row)
    const update = decide(before, history)
    const requirements = update.paymentRequirements === null ? null : JSON.stringify(update.paymentRequirements)
    // Search and export read status, trust score and requirements: only their change is a change-feed event.
    const visible = update.status !== before.status || update.trustScore !== before.trustScore || requirements !== row.payment_requirements
    this.#statement(`UPDATE services SET ${visible ? `seq = ${NEXT_SEQ},` : ''} status = ?, trust_score = ?, uptime_score = ?,
      last_checked = ?, payment_requirements = ?, next_probe_at = ? WHERE id = ?`)
      .run(update.status, update.trustScore, update.uptimeScore, update.lastChecked, requirements, nextProbeAt, serviceId)
    return { ...before, ...update }
  }

  #statement (sql: string): Database.Statement {
    let statement = this.#statements.get(sql)
    if (statement === undefined) {
      statement = this.#db.prepare(sql)
      this.#statements.set(sql, statement)
    }
    return statement
  }

  #addMissingColumns (): void {
    const present = new Set((this.#db.pragma('table_info(services)') as Array<{ name: string }>).map((column) => column.name))
    for (const [name, definition] of ADDED_COLUMNS) {
      if (!present.has(name)) this.#db.exec(`ALTER TABLE services ADD COLUMN ${name} ${definition}`)
    }
  }

  #params (record: ServiceRecord): Record<string, unknown> {
    return {
      ...record,
      nameSort: nameSortKey(record.name),
      supportedChains: JSON.stringify(record.supportedChains),
      paymentRequirements: record.paymentRequirements === null ? null : JSON.stringify(record.paymentRequirements)
    }
  }

  /** Runs a write, turning a clash on the unique endpoint into DuplicateEndpointError; true when a row changed. */
  #uniqueEndpoint (write: () => Database.RunResult, endpoint: string): boolean {
    try {
      return write().changes > 0
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && /endpoint/.test((err as Error).message)) {
        throw new DuplicateEndpointError(endpoint, { cause: err })
      }
      throw err
    }
  }

  #insertOne (record: ServiceRecord): void {
    this.#uniqueEndpoint(() => this.#insert.run(this.#params(record)), record.endpoint)
    // An id that comes back (a demo service re-seeded) is live again: its tombstone goes.
    this.#statement('DELETE FROM service_tombstones WHERE id = ?').run(record.id)
    for (const chain of record.supportedChains) this.#insertChain.run(record.id, chain)
  }

  async insertService (record: ServiceRecord): Promise<void> {
    this.#insertMany([record])
  }

  async updateService (record: ServiceRecord): Promise<boolean> {
    return this.#updateOne(record)
  }

  async deleteService (id: string): Promise<boolean> {
    return this.#deleteOne(id)
  }

  async displaceService (holder: ServiceRecord, record: ServiceRecord, displacement: Displacement): Promise<boolean> {
    return this.#displaceOne(holder, record, displacement)
  }

  async getDisplacement (id: string): Promise<Displacement | null> {
    const row = this.#statement('SELECT * FROM service_displacements WHERE id = ?').get(id) as
      { id: string, displaced_by: string, endpoint: string, owner_id: string | null, reason: string, at: string } | undefined
    if (row === undefined) return null
    return { id: row.id, displacedBy: row.displaced_by, endpoint: row.endpoint, ownerId: row.owner_id, reason: row.reason, at: row.at }
  }

  async findServiceByEndpoint (endpoint: string): Promise<ServiceRecord | null> {
    const row = this.#statement('SELECT * FROM services WHERE endpoint = ?').get(endpoint) as ServiceRow | undefined
    return row === undefined ? null : fromRow(row)
  }

  async insertServices (records: readonly ServiceRecord[]): Promise<void> {
    this.#insertMany(records)
    // A bulk load changes the data's shape: refresh the planner's statistics.
    this.#db.pragma('optimize')
  }

  async getService (id: string): Promise<ServiceRecord | null> {
    const row = this.#statement('SELECT * FROM services WHERE id = ?').get(id) as ServiceRow | undefined
    return row === undefined ? null : fromRow(row)
  }

  async getServices (ids: readonly string[]): Promise<ServiceRecord[]> {
    if (ids.length === 0) return []
    const rows = this.#statement('SELECT * FROM services WHERE id IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(ids)) as ServiceRow[]
    const byId = new Map(rows.map((row) => [row.id, fromRow(row)]))
    return ids.flatMap((id) => byId.get(id) ?? [])
  }

  /** WHERE conditions and their parameters for a filter. */
  #where (filter: CatalogFilter): { where: string[], params: Record<string, string | number> } {
    const where: string[] = []
    const params: Record<string, string | number> = {}
    if (filter.category !== undefined) { where.push('category = @category'); params.category = filter.category }
    if (filter.status !== undefined) { where.push('status = @status'); params.status = filter.status }
    if (filter.maxPriceAtomic !== undefined) { where.push('price_atomic <= @maxPrice'); params.maxPrice = filter.maxPriceAtomic }
    if (filter.payTo !== undefined) { where.push(`${PAY_TO_KEY_SQL} = @payTo`); params.payTo = payToKey(filter.payTo) }
    if (filter.chain !== undefined) {
      // Correlated, so SQLite can walk the sort index and stop once the page is full.
      where.push('EXISTS (SELECT 1 FROM service_chains c WHERE c.chain = @chain AND c.service_id = services.id)')
      params.chain = filter.chain
    }
    return { where, params }
  }

  async listServices (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServicePage> {
    const { where, params } = this.#where(filter)
    const whereSql = where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`
    const direction = sort.order === 'asc' ? 'ASC' : 'DESC'
    // The id tie-breaker follows the same direction so a descending walk is the exact reverse.
    const orderSql = `ORDER BY ${SORT_COLUMNS[sort.field]} ${direction}, id ${direction}`
    const total = (this.#statement(this.#countSql(filter, where)).get(params) as { n: number }).n
    // Page the ids on an index (offsets skip index entries, not rows), then read only the page's rows;
    // CROSS JOIN keeps that order of work (the planner would otherwise scan every row for the join).
    const orderOuter = `ORDER BY s.${SORT_COLUMNS[sort.field]} ${direction}, s.id ${direction}`
    const rows = this.#statement(`SELECT s.* FROM (SELECT id FROM services ${whereSql} ${orderSql} LIMIT @limit OFFSET @offset) AS page CROSS JOIN services s ON s.id = page.id ${orderOuter}`)
      .all({ ...params, limit: page.limit, offset: page.offset }) as ServiceRow[]
    return { items: rows.map(fromRow), total }
  }

  async * streamServices (filter: CatalogFilter, batchSize = 500): AsyncIterable<ServiceRecord> {
    const { where, params } = this.#where(filter)
    // Keyset on the primary key: each batch is one short read, never an open cursor, so
    // writes and other reads on this connection go on between batches.
    const statement = this.#statement(`SELECT * FROM services WHERE ${[...where, 'id > @after'].join(' AND ')} ORDER BY id LIMIT @batch`)
    let after = ''
    for (;;) {
      const rows = statement.all({ ...params, after, batch: batchSize }) as ServiceRow[]
      for (const row of rows) yield fromRow(row)
      if (rows.length < batchSize) return
      after = (rows[rows.length - 1] as ServiceRow).id
    }
  }

  /**
   * The count behind X-Total-Count. With a chain filter it starts from that chain's rows
   * (every service has one per chain), instead of probing the chain for every service.
   */
  #countSql (filter: CatalogFilter, where: string[]): string {
    if (filter.chain === undefined) return `SELECT COUNT(*) AS n FROM services ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}`
    const others = where.filter((condition) => !condition.startsWith('EXISTS'))
    if (others.length === 0) return 'SELECT COUNT(*) AS n FROM service_chains WHERE chain = @chain'
    return `SELECT COUNT(*) AS n FROM service_chains c JOIN services ON services.id = c.service_id WHERE c.chain = @chain AND ${others.join(' AND ')}`
  }

  async countServices (): Promise<number> {
    return (this.#statement('SELECT COUNT(*) AS n FROM services').get() as { n: number }).n
  }

  async countByCategory (): Promise<Map<string, number>> {
    const rows = this.#statement('SELECT category, COUNT(*) AS n FROM services GROUP BY category').all() as Array<{ category: string, n: number }>
    return new Map(rows.map((row) => [row.category, row.n]))
  }

  async changesSince (afterSeq: number, limit: number): Promise<ServiceChange[]> {
    const live = (this.#statement('SELECT * FROM services WHERE seq > ? ORDER BY seq LIMIT ?').all(afterSeq, limit) as ServiceRow[])
      .map((row): ServiceChange => ({ seq: row.seq, id: row.id, service: fromRow(row) }))
    const deleted = (this.#statement('SELECT id, seq FROM service_tombstones WHERE seq > ? ORDER BY seq LIMIT ?').all(afterSeq, limit) as Array<{ id: string, seq: number }>)
      .map((row): ServiceChange => ({ seq: row.seq, id: row.id, service: null }))
    if (deleted.length === 0) return live
    return [...live, ...deleted].sort((a, b) => a.seq - b.seq).slice(0, limit)
  }

  async latestSeq (): Promise<number> {
    return (this.#statement(`SELECT ${NEXT_SEQ} - 1 AS seq`).get() as { seq: number }).seq
  }

  async insertApiKey (key: ApiKeyRecord): Promise<void> {
    this.#statement('INSERT INTO api_keys (id, name, hash, created_at, revoked_at) VALUES (?, ?, ?, ?, ?)')
      .run(key.id, key.name, key.hash, key.createdAt, key.revokedAt)
  }

  async listApiKeys (): Promise<ApiKeyRecord[]> {
    return (this.#statement('SELECT * FROM api_keys ORDER BY created_at, id').all() as ApiKeyRow[]).map(fromKeyRow)
  }

  async revokeApiKey (id: string, at: string): Promise<boolean> {
    return this.#statement('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id).changes === 1
  }

  async findActiveApiKeyByHash (hash: string): Promise<ApiKeyRecord | null> {
    const row = this.#statement('SELECT * FROM api_keys WHERE hash = ? AND revoked_at IS NULL').get(hash) as ApiKeyRow | undefined
    return row === undefined ? null : fromKeyRow(row)
  }

  async recordProbe (serviceId: string, outcome: ProbeOutcome, decide: MonitoringDecision, nextProbeAt: string | null): Promise<ServiceRecord | null> {
    return this.#recordProbe(serviceId, outcome, decide, nextProbeAt)
  }

  async listProbes (serviceId: string, page: Page): Promise<ProbePage> {
    const total = (this.#statement('SELECT COUNT(*) AS n FROM probes WHERE service_id = ?').get(serviceId) as { n: number }).n
    const rows = this.#statement('SELECT * FROM probes WHERE service_id = ? ORDER BY id DESC LIMIT ? OFFSET ?')
      .all(serviceId, page.limit, page.offset) as ProbeRow[]
    return { items: rows.map(fromProbeRow), total }
  }

  async lastProbe (serviceId: string): Promise<ProbeOutcome | null> {
    const row = this.#statement('SELECT * FROM probes WHERE service_id = ? ORDER BY id DESC LIMIT 1').get(serviceId) as ProbeRow | undefined
    return row === undefined ? null : fromProbeRow(row)
  }

  async dueForProbe (now: string, limit: number, includeSeeded: boolean): Promise<ProbeCandidate[]> {
    // NULL (never probed, or asked for) sorts first in SQLite's ascending order.
    const rows = this.#statement(`SELECT id, endpoint, method, network, payment_address, price_atomic FROM services
      WHERE (next_probe_at IS NULL OR next_probe_at <= ?) ${includeSeeded ? '' : 'AND owner_id IS NOT NULL'}
      ORDER BY next_probe_at, id LIMIT ?`).all(now, limit) as Array<Pick<ServiceRow, 'id' | 'endpoint' | 'method' | 'network' | 'payment_address' | 'price_atomic'>>
    return rows.map((row) => ({
      id: row.id,
      endpoint: row.endpoint,
      method: row.method as HttpMethod,
      network: row.network,
      paymentAddress: row.payment_address,
      priceAtomic: row.price_atomic
    }))
  }

  async markProbeDue (serviceId: string): Promise<boolean> {
    return this.#statement('UPDATE services SET next_probe_at = NULL WHERE id = ?').run(serviceId).changes === 1
  }

  async acquireLease (name: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
    return this.#acquireLease(name, holder, ttlMs, now)
  }

  async releaseLease (name: string, holder: string): Promise<void> {
    this.#statement('DELETE FROM leases WHERE name = ? AND holder = ?').run(name, holder)
  }

  async ping (): Promise<void> {
    try {
      this.#statement('SELECT COUNT(*) FROM services WHERE rowid = 0').get()
    } catch (err) {
      throw new StoreUnavailableError(`catalog store unusable: ${(err as Error).message}`, { cause: err })
    }
  }

  async close (): Promise<void> {
    if (this.#db.open) this.#db.close()
  }
}
