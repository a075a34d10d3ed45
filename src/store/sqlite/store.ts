/**
 * Embedded CatalogStore on SQLite (better-sqlite3, WAL). The file lives in DATA_DIR so
 * the API and a standalone indexer process can share it. synchronous=FULL: a 201 has
 * reached the disk, not just the OS cache.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { DuplicateEndpointError, StoreUnavailableError } from '../../errors.js'
import type { HttpMethod } from '../../domain/http-method.js'
import { PROBE_HISTORY_LIMIT, applyProbe, applyUsage, changesListing, usageChangesListing, type LifecyclePolicy, type ProbeSummary } from '../../domain/lifecycle.js'
import {
  CHAIN_CHECKPOINT_HISTORY,
  type ChainScanCommit, type ChainScanState, type PaymentFilter, type PaymentPage, type PaymentSummary, type ServiceUsage
} from '../../domain/payment.js'
import type { ProbeOutcome } from '../../domain/probe.js'
import { applyDiscovery, withDiscovery } from '../../domain/call-schema.js'
import { applyOriginClaim, type OriginClaim, type ServiceTransfer } from '../../domain/claims.js'
import { originOf } from '../../domain/endpoint-url.js'
import { toServiceJson, type ServiceJson, type ServiceRecord } from '../../domain/service.js'
import { payToKey } from '../../domain/pay-to.js'
import { refreshedText } from '../../domain/prefill.js'
import type { CategoryInferrer } from '../../domain/listing-text.js'
import { nameSortKey } from '../../domain/sort-keys.js'
import type { ApiKeyRecord, CatalogFacets, CatalogStore, Displacement, ProbeCandidate, ProbePage, ServiceChange, ServiceJsonItem, ServiceJsonPage, ServicePage } from '../catalog-store.js'
import type { CatalogFilter, Page, ServiceSort, SortField } from '../../domain/catalog-query.js'
import { ServiceIndex, type ListEntry } from '../../lib/service-index.js'
import { serviceKeysOf, type ServiceKeyValues } from '../../lib/service-columns.js'
import { ListThread } from './list-thread.js'
import { jsonArrayBytes } from '../json-page.js'
import { releaseGarbage } from '../../release-garbage.js'
import { EXTENSION_CONDITIONS, EXTENSION_MASK_SQL, PAY_TO_KEY_SQL, migrate } from './schema.js'
import {
  RECORD_COLUMNS, RECORD_VALUES, fromClaimRow, fromTransferRow, type ClaimRow, type TransferRow, fromCheckpointRow, fromDisplacementRow, fromKeyRow, fromPaymentRow, fromProbeRow, fromValues, toParams, discoveryParams,
  type ApiKeyRow, type DisplacementRow, type PaymentRow, type ProbeRow, type RecordValues
} from './mapping.js'

/** Payment amounts are INTEGER (int64): USDC's whole supply fits many times over. */
const MAX_AMOUNT = (1n << 63n) - 1n

/** The next change-feed sequence: past every live service and every tombstone. */
const NEXT_SEQ = '(SELECT MAX(s) + 1 FROM (SELECT COALESCE(MAX(seq), 0) AS s FROM services UNION ALL SELECT COALESCE(MAX(seq), 0) FROM service_tombstones))'

/** What the list index keeps of a service (src/lib/service-index.ts): its ServiceKeyValues, then the rowid to read it back by. */
const LIST_COLUMNS = `id, category, status, price_atomic, trust_score, name_sort, created_at, supported_chains, ${PAY_TO_KEY_SQL}, ${EXTENSION_MASK_SQL}, rowid`
type ListValues = [...ServiceKeyValues, rowid: number]
/** Where the rowid sits in ListValues: after the keys. */
const ROWID_AT = 10 satisfies ServiceKeyValues['length']

function toListEntry (v: ListValues): ListEntry {
  return { ...serviceKeysOf(v), handle: v[ROWID_AT] }
}

/** Each list index order as SQL sorts it, read off the (sort, id) indexes when building the index. */
const LIST_ORDERS: Record<SortField, string> = {
  price: 'SELECT rowid FROM services ORDER BY price_atomic, id',
  trustScore: 'SELECT rowid FROM services ORDER BY trust_score, id',
  name: 'SELECT rowid FROM services ORDER BY name_sort, id',
  createdAt: 'SELECT rowid FROM services ORDER BY created_at, id'
}

export const STORE_FILE = 'catalog.sqlite'

export interface SqliteStoreOptions {
  /** Answer lists on a thread of their own (src/store/sqlite/list-thread.ts), as the API does; else on the caller's. */
  listThread?: boolean
  /** The file is known to be created and migrated (the list thread's connection): skip that. */
  migrated?: boolean
  /** This connection's SQLite page cache, in KiB; SQLite's default (16 MB in better-sqlite3) when absent. */
  pageCacheKib?: number
}

export class SqliteCatalogStore implements CatalogStore {
  readonly #db: Database.Database
  readonly #insert: Database.Statement
  readonly #update: Database.Statement
  readonly #insertChain: Database.Statement
  readonly #insertMany: (records: readonly ServiceRecord[]) => void
  readonly #updateOne: (record: ServiceRecord) => boolean
  readonly #deleteOne: (id: string) => boolean
  readonly #displaceOne: (holder: ServiceRecord, record: ServiceRecord, displacement: Displacement) => boolean
  readonly #proveClaim: (origin: string, ownerId: string, at: string, reason: string) => ServiceRecord[] | null
  readonly #recordProbe: (serviceId: string, outcome: ProbeOutcome, policy: LifecyclePolicy, nextProbeAt: string | null, inferCategory?: CategoryInferrer) => ServiceRecord | null
  readonly #acquireLease: (name: string, holder: string, ttlMs: number, now: number) => boolean
  readonly #commitChainScan: (network: string, commit: ChainScanCommit) => number
  readonly #rewindChain: (network: string, toBlock: number) => string[]
  readonly #recordUsage: (serviceId: string, usage: ServiceUsage) => ServiceRecord | null
  readonly #changesSince: (afterSeq: number, limit: number) => ServiceChange[]
  readonly #listPage: (filter: CatalogFilter, sort: ServiceSort, page: Page) => ServicePage
  readonly #jsonPage: (filter: CatalogFilter, sort: ServiceSort, page: Page) => ServiceJsonPage
  #lists: { index: ServiceIndex, seq: number } | undefined
  readonly #listThread: ListThread | undefined
  /** Prepared once per distinct SQL text: preparing per request costs time and GC pressure. */
  readonly #statements = new Map<string, Database.Statement>()

  constructor (dataDir: string, options: SqliteStoreOptions = {}) {
    mkdirSync(dataDir, { recursive: true })
    try {
      this.#db = new Database(join(dataDir, STORE_FILE))
      this.#db.pragma('journal_mode = WAL')
      this.#db.pragma('synchronous = FULL')
      this.#db.pragma('busy_timeout = 5000')
      this.#db.pragma('foreign_keys = ON')
      if (options.pageCacheKib !== undefined) this.#db.pragma(`cache_size = -${Math.floor(options.pageCacheKib)}`)
      if (options.migrated !== true) migrate(this.#db)
    } catch (err) {
      throw new StoreUnavailableError(`cannot open the catalog store in ${dataDir}: ${(err as Error).message}`, { cause: err })
    }
    this.#listThread = options.listThread === true ? new ListThread(dataDir) : undefined
    this.#insert = this.#statement(`
      INSERT INTO services (id, seq, name, name_sort, description, endpoint, origin, resource, method, category, currency, price_atomic,
        free_quota, payment_address, network, supported_chains, status, trust_score, uptime_score, last_checked,
        usage, payment_requirements, owner_id, claimed, call_schema, bazaar_extension, tags, prefill, created_at, updated_at, service_json)
      VALUES (@id, ${NEXT_SEQ}, @name, @nameSort, @description, @endpoint, @origin, @resource, @method,
        @category, @currency, @priceAtomic, @freeQuota, @paymentAddress, @network, @supportedChains, @status,
        @trustScore, @uptimeScore, @lastChecked, @usage, @paymentRequirements, @ownerId, @claimed, @callSchema, @bazaarExtension, @tags, @prefill, @createdAt, @updatedAt, @serviceJson)`)
    this.#update = this.#statement(`
      UPDATE services SET seq = ${NEXT_SEQ}, name = @name, name_sort = @nameSort, description = @description,
        endpoint = @endpoint, origin = @origin, resource = @resource, method = @method, category = @category, currency = @currency, price_atomic = @priceAtomic,
        free_quota = @freeQuota, payment_address = @paymentAddress, network = @network, supported_chains = @supportedChains,
        status = @status, trust_score = @trustScore, uptime_score = @uptimeScore, last_checked = @lastChecked,
        usage = @usage, payment_requirements = @paymentRequirements,
        owner_id = @ownerId, claimed = @claimed, call_schema = @callSchema, bazaar_extension = @bazaarExtension, tags = @tags, prefill = @prefill, created_at = @createdAt, updated_at = @updatedAt, service_json = @serviceJson
      WHERE id = @id`)
    this.#insertChain = this.#statement('INSERT INTO service_chains (service_id, chain) VALUES (?, ?)')
    this.#insertMany = this.#writeTransaction((records: readonly ServiceRecord[]) => {
      for (const record of records) this.#insertOne(record)
    })
    this.#updateOne = this.#writeTransaction((written: ServiceRecord): boolean => {
      const record = this.#underOriginClaim(written)
      if (!this.#uniqueEndpoint(() => this.#update.run(toParams(record)), record)) return false
      this.#statement('DELETE FROM service_chains WHERE service_id = ?').run(record.id)
      for (const chain of record.supportedChains) this.#insertChain.run(record.id, chain)
      return true
    })
    this.#deleteOne = this.#writeTransaction((id: string): boolean => {
      // Taken before the row goes: deleting the newest service would otherwise hand its tombstone
      // the service's own seq, which the indexer has already passed, and search would keep it.
      const seq = (this.#statement(`SELECT ${NEXT_SEQ} AS seq`).get() as { seq: number }).seq
      this.#statement('DELETE FROM service_chains WHERE service_id = ?').run(id)
      if (this.#statement('DELETE FROM services WHERE id = ?').run(id).changes === 0) return false
      this.#statement('DELETE FROM probes WHERE service_id = ?').run(id)
      this.#statement('INSERT OR REPLACE INTO service_tombstones (id, seq) VALUES (?, ?)').run(id, seq)
      return true
    })
    this.#displaceOne = this.#writeTransaction((holder: ServiceRecord, record: ServiceRecord, displacement: Displacement): boolean => {
      const current = this.#statement('SELECT updated_at FROM services WHERE id = ? AND endpoint = ?').get(holder.id, holder.endpoint) as { updated_at: string } | undefined
      if (current?.updated_at !== holder.updatedAt) return false
      this.#deleteOne(holder.id)
      this.#insertOne(record)
      this.#statement('INSERT OR REPLACE INTO service_displacements (id, displaced_by, endpoint, owner_id, reason, at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(displacement.id, displacement.displacedBy, displacement.endpoint, displacement.ownerId, displacement.reason, displacement.at)
      return true
    })
    this.#proveClaim = this.#writeTransaction((origin: string, ownerId: string, at: string, reason: string): ServiceRecord[] | null => {
      if (this.#statement('UPDATE origin_claims SET proven_at = ? WHERE origin = ? AND owner_id = ?').run(at, origin, ownerId).changes === 0) return null
      // One proven owner per origin: the newest proof (a domain changes hands).
      this.#statement('UPDATE origin_claims SET proven_at = NULL WHERE origin = ? AND owner_id != ?').run(origin, ownerId)
      const rows = this.#rawStatement(`SELECT ${RECORD_COLUMNS} FROM services WHERE origin = ? ORDER BY id`).all(origin) as RecordValues[]
      const moved: ServiceRecord[] = []
      for (const record of rows.map((row) => fromValues(row))) {
        if (record.ownerId === ownerId && record.claimed) continue
        this.#updateOne({ ...record, ownerId, claimed: true, updatedAt: at })
        if (record.ownerId === ownerId) continue
        this.#statement('INSERT INTO service_transfers (service_id, from_owner_id, to_owner_id, origin, reason, at) VALUES (?, ?, ?, ?, ?, ?)')
          .run(record.id, record.ownerId, ownerId, origin, reason, at)
        moved.push(record)
      }
      return moved
    })
    this.#recordProbe = this.#writeTransaction((serviceId: string, outcome: ProbeOutcome, policy: LifecyclePolicy, nextProbeAt: string | null, inferCategory?: CategoryInferrer) =>
      this.#recordProbeNow(serviceId, outcome, policy, nextProbeAt, inferCategory))
    this.#listPage = this.#db.transaction((filter: CatalogFilter, sort: ServiceSort, page: Page): ServicePage => {
      const { handles, total } = this.#queryListIndex(filter, sort, page)
      return { items: this.#recordsByRowid(handles), total }
    })
    this.#jsonPage = this.#db.transaction((filter: CatalogFilter, sort: ServiceSort, page: Page): ServiceJsonPage => {
      const { handles, total } = this.#queryListIndex(filter, sort, page)
      return { json: this.#jsonByRowid(handles), total }
    })
    this.#acquireLease = this.#writeTransaction((name: string, holder: string, ttlMs: number, now: number): boolean => {
      const current = this.#statement('SELECT holder, expires_at FROM leases WHERE name = ?').get(name) as { holder: string, expires_at: number } | undefined
      if (current !== undefined && current.holder !== holder && current.expires_at > now) return false
      this.#statement('INSERT OR REPLACE INTO leases (name, holder, expires_at) VALUES (?, ?, ?)').run(name, holder, now + ttlMs)
      return true
    })
    this.#changesSince = this.#db.transaction((afterSeq: number, limit: number) => this.#readChanges(afterSeq, limit))
    this.#commitChainScan = this.#writeTransaction((network: string, commit: ChainScanCommit): number => {
      const insert = this.#statement(`INSERT OR IGNORE INTO payments (network, tx_hash, log_index, block_number, block_hash, at, payer, pay_to, amount, service_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      let added = 0
      for (const p of commit.payments) {
        const amount = BigInt(p.amount)
        if (amount < 0n || amount > MAX_AMOUNT) throw new RangeError(`payment ${p.txHash}:${p.logIndex} has an amount out of range: ${p.amount}`)
        added += insert.run(network, p.txHash, p.logIndex, p.blockNumber, p.blockHash, p.at, p.payer, p.payTo, amount, p.serviceId).changes
      }
      if (commit.checkpoint !== undefined) {
        this.#statement('INSERT OR REPLACE INTO chain_checkpoints (network, block_number, block_hash) VALUES (?, ?, ?)')
          .run(network, commit.checkpoint.blockNumber, commit.checkpoint.blockHash)
        this.#statement(`DELETE FROM chain_checkpoints WHERE network = ? AND block_number < (
          SELECT MIN(block_number) FROM (SELECT block_number FROM chain_checkpoints WHERE network = ? ORDER BY block_number DESC LIMIT ?))`)
          .run(network, network, CHAIN_CHECKPOINT_HISTORY)
      }
      if (commit.scanned !== undefined) {
        const scanned = this.#statement(`INSERT INTO chain_pay_tos (network, pay_to, scanned_to) VALUES (?, ?, ?)
          ON CONFLICT (network, pay_to) DO UPDATE SET scanned_to = excluded.scanned_to`)
        for (const payTo of commit.scanned.payTos) scanned.run(network, payTo, commit.scanned.block)
      }
      return added
    })
    this.#rewindChain = this.#writeTransaction((network: string, toBlock: number): string[] => {
      const payTos = this.#statement('SELECT DISTINCT pay_to FROM payments WHERE network = ? AND block_number > ?').pluck().all(network, toBlock) as string[]
      this.#statement('DELETE FROM payments WHERE network = ? AND block_number > ?').run(network, toBlock)
      this.#statement('DELETE FROM chain_checkpoints WHERE network = ? AND block_number > ?').run(network, toBlock)
      this.#statement('UPDATE chain_pay_tos SET scanned_to = ? WHERE network = ? AND scanned_to > ?').run(toBlock, network, toBlock)
      return payTos
    })
    this.#recordUsage = this.#writeTransaction((serviceId: string, usage: ServiceUsage): ServiceRecord | null => {
      const row = this.#rawStatement(`SELECT ${RECORD_COLUMNS} FROM services WHERE id = ?`).get(serviceId) as RecordValues | undefined
      if (row === undefined) return null
      const before = fromValues(row)
      const update = applyUsage(before, usage)
      const after = { ...before, ...update }
      this.#statement(`UPDATE services SET ${usageChangesListing(before, update) ? `seq = ${NEXT_SEQ},` : ''} trust_score = ?, usage = ?, service_json = ? WHERE id = ?`)
        .run(update.trustScore, JSON.stringify(usage), toServiceJson(after), serviceId)
      return after
    })
  }

  #recordProbeNow (serviceId: string, outcome: ProbeOutcome, policy: LifecyclePolicy, nextProbeAt: string | null, inferCategory?: CategoryInferrer): ServiceRecord | null {
    const row = this.#rawStatement(`SELECT ${RECORD_COLUMNS} FROM services WHERE id = ?`).get(serviceId) as RecordValues | undefined
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
    const before = fromValues(row)
    const update = applyProbe(before, outcome, history, policy)
    // A valid 402 answer keeps the prefilled text current (src/domain/prefill.ts).
    const text = outcome.answered402 ? refreshedText(before, outcome.text, inferCategory) : {}
    const textChanged = Object.keys(text).length > 0
    const requirements = update.paymentRequirements === null ? null : JSON.stringify(update.paymentRequirements)
    const discovery = applyDiscovery(before, outcome.discovery)
    const merged: ServiceRecord = { ...before, ...update, ...text }
    const after: ServiceRecord = discovery === null ? merged : withDiscovery(merged, discovery)
    const changed = changesListing(before, update) || discovery !== null || textChanged
    const columns = discoveryParams(after)
    this.#statement(`UPDATE services SET ${changed ? `seq = ${NEXT_SEQ},` : ''} status = ?, trust_score = ?, uptime_score = ?,
      last_checked = ?, payment_requirements = ?, next_probe_at = ?, call_schema = ?, bazaar_extension = ?,
      name = ?, name_sort = ?, description = ?, tags = ?, category = ?, service_json = ? WHERE id = ?`)
      .run(update.status, update.trustScore, update.uptimeScore, update.lastChecked, requirements, nextProbeAt, columns.callSchema, columns.bazaarExtension,
        after.name, nameSortKey(after.name), after.description, JSON.stringify(after.tags), after.category, toServiceJson(after), serviceId)
    return after
  }

  /**
   * A write transaction that takes the write lock when it begins (BEGIN IMMEDIATE). A
   * deferred one that reads first would take a snapshot, and if another process committed
   * a write before its own first write, it could not upgrade: SQLITE_BUSY at once, no
   * busy_timeout wait (SQLite refuses to let it write over a state it did not see).
   */
  #writeTransaction<F extends (...args: any[]) => unknown> (work: F): Database.Transaction<F>['immediate'] {
    return this.#db.transaction(work).immediate
  }

  #statement (sql: string): Database.Statement {
    let statement = this.#statements.get(sql)
    if (statement === undefined) {
      statement = this.#db.prepare(sql)
      this.#statements.set(sql, statement)
    }
    return statement
  }

  /** A prepared statement whose rows come back as arrays of column values. */
  #rawStatement (sql: string): Database.Statement {
    const key = `raw:${sql}`
    let statement = this.#statements.get(key)
    if (statement === undefined) {
      statement = this.#db.prepare(sql).raw(true)
      this.#statements.set(key, statement)
    }
    return statement
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
        const holder = this.#statement('SELECT id FROM services WHERE resource = ? AND method = ?').pluck().get(record.resource, record.method) as string | undefined
        if (holder !== undefined && holder !== record.id) throw new DuplicateEndpointError(record.endpoint, { cause: err })
      }
      throw err
    }
  }

  /**
   * `record` as the origin's proven claim lets it be written (applyOriginClaim), read in the
   * caller's write transaction: a proof commits wholly before or after it, never between.
   */
  #underOriginClaim (record: ServiceRecord): ServiceRecord {
    return applyOriginClaim(record, this.#provenClaimOf(originOf(record.endpoint)))
  }

  #provenClaimOf (origin: string): OriginClaim | null {
    const row = this.#statement('SELECT * FROM origin_claims WHERE origin = ? AND proven_at IS NOT NULL ORDER BY proven_at DESC LIMIT 1').get(origin) as ClaimRow | undefined
    return row === undefined ? null : fromClaimRow(row)
  }

  #insertOne (written: ServiceRecord): void {
    const record = this.#underOriginClaim(written)
    this.#uniqueEndpoint(() => this.#insert.run(toParams(record)), record)
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

  async issueClaim (claim: OriginClaim): Promise<OriginClaim> {
    this.#statement('INSERT OR IGNORE INTO origin_claims (origin, owner_id, token, created_at, proven_at) VALUES (?, ?, ?, ?, ?)')
      .run(claim.origin, claim.ownerId, claim.token, claim.createdAt, claim.provenAt)
    return await this.getClaim(claim.origin, claim.ownerId) as OriginClaim
  }

  async getClaim (origin: string, ownerId: string): Promise<OriginClaim | null> {
    const row = this.#statement('SELECT * FROM origin_claims WHERE origin = ? AND owner_id = ?').get(origin, ownerId) as ClaimRow | undefined
    return row === undefined ? null : fromClaimRow(row)
  }

  async provenClaim (origin: string): Promise<OriginClaim | null> {
    return this.#provenClaimOf(origin)
  }

  async proveClaim (origin: string, ownerId: string, at: string, reason: string): Promise<ServiceRecord[] | null> {
    return this.#proveClaim(origin, ownerId, at, reason)
  }

  async getTransfer (serviceId: string): Promise<ServiceTransfer | null> {
    const row = this.#statement('SELECT * FROM service_transfers WHERE service_id = ? ORDER BY at DESC, rowid DESC LIMIT 1').get(serviceId) as TransferRow | undefined
    return row === undefined ? null : fromTransferRow(row)
  }

  async getDisplacement (id: string): Promise<Displacement | null> {
    const row = this.#statement('SELECT * FROM service_displacements WHERE id = ?').get(id) as DisplacementRow | undefined
    return row === undefined ? null : fromDisplacementRow(row)
  }

  async findServiceByResource (resource: string, method: HttpMethod): Promise<ServiceRecord | null> {
    const row = this.#rawStatement(`SELECT ${RECORD_COLUMNS} FROM services WHERE resource = ? AND method = ?`).get(resource, method) as RecordValues | undefined
    return row === undefined ? null : fromValues(row)
  }

  async insertServices (records: readonly ServiceRecord[]): Promise<void> {
    this.#insertMany(records)
    // A bulk load changes the data's shape: refresh the planner's statistics.
    this.#db.pragma('optimize')
  }

  async getService (id: string): Promise<ServiceRecord | null> {
    const row = this.#rawStatement(`SELECT ${RECORD_COLUMNS} FROM services WHERE id = ?`).get(id) as RecordValues | undefined
    return row === undefined ? null : fromValues(row)
  }

  async getServices (ids: readonly string[]): Promise<ServiceRecord[]> {
    if (ids.length === 0) return []
    const rows = this.#rawStatement(`SELECT ${RECORD_COLUMNS} FROM services WHERE id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(ids)) as RecordValues[]
    const byId = new Map(rows.map((row) => [row[0], fromValues(row)]))
    return ids.flatMap((id) => byId.get(id) ?? [])
  }

  async getServiceJson (ids: readonly string[]): Promise<ServiceJsonItem[]> {
    if (ids.length === 0) return []
    // A search page's ids (at most 100): one parameter each, as #rowsByRowid; more through json_each.
    const rows = (ids.length <= 100
      ? this.#rawStatement(`SELECT id, service_json, uptime_score FROM services WHERE id IN (${'?,'.repeat(ids.length - 1)}?)`).all(...ids)
      : this.#rawStatement('SELECT id, service_json, uptime_score FROM services WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids))) as Array<[string, ServiceJson | null, number | null]>
    const byId = new Map(rows.map(([id, json, uptimeScore]) => [id, { id, json, uptimeScore }]))
    return ids.flatMap((id) => {
      const item = byId.get(id)
      if (item === undefined) return []
      if (item.json !== null) return [item as ServiceJsonItem]
      // A row written by an older build, which did not keep the text (as #jsonByRowid).
      const row = this.#rawStatement(`SELECT ${RECORD_COLUMNS} FROM services WHERE id = ?`).get(id) as RecordValues | undefined
      return row === undefined ? [] : [{ id, json: toServiceJson(fromValues(row)), uptimeScore: item.uptimeScore }]
    })
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
    return { where, params }
  }

  async listServices (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServicePage> {
    return this.#listThread !== undefined ? await this.#listThread.list(filter, sort, page) : this.#listPage(filter, sort, page)
  }

  async listServiceJson (filter: CatalogFilter, sort: ServiceSort, page: Page): Promise<ServiceJsonPage> {
    return this.#listThread !== undefined ? await this.#listThread.listJson(filter, sort, page) : this.#jsonPage(filter, sort, page)
  }

  /** The page's rowids and the total, inside the caller's read transaction. */
  #queryListIndex (filter: CatalogFilter, sort: ServiceSort, page: Page): { handles: number[], total: number } {
    // The payment address filter is rare and selective: its own SQL index finds the few ids.
    const within = filter.payTo === undefined
      ? undefined
      : this.#statement(`SELECT id FROM services WHERE ${PAY_TO_KEY_SQL} = ?`).pluck().all(payToKey(filter.payTo)) as string[]
    return this.#currentListIndex().query(filter, sort, page, within)
  }

  /**
   * The list index, brought up to the store's latest change first (the same read transaction
   * then reads the page's rows, so both see one state). Built on first use; rebuilt rather
   * than patched when many changes are pending (a bulk import) or it keeps dead codes.
   */
  #currentListIndex (): ServiceIndex {
    const seq = (this.#statement(`SELECT ${NEXT_SEQ} - 1 AS seq`).get() as { seq: number }).seq
    const known = this.#lists
    if (known !== undefined && known.seq === seq) return known.index
    if (known !== undefined && known.seq < seq) {
      // Patching costs ~0.15 ms a change at 100k services, a rebuild ~1 s: past 2,000, rebuild.
      const limit = 2000
      const live = this.#rawStatement(`SELECT ${LIST_COLUMNS} FROM services WHERE seq > ? ORDER BY seq LIMIT ?`).all(known.seq, limit + 1) as ListValues[]
      const gone = this.#statement('SELECT id FROM service_tombstones WHERE seq > ? LIMIT ?').pluck().all(known.seq, limit + 1) as string[]
      if (live.length <= limit && gone.length <= limit) {
        // An id is live or tombstoned, never both: the order of applying does not matter.
        for (const id of gone) known.index.remove(id)
        for (const row of live) known.index.upsert(toListEntry(row))
        known.seq = seq
        return known.index
      }
    }
    const orders = Object.fromEntries(Object.entries(LIST_ORDERS).map(([field, sql]) => [field, this.#statement(sql).pluck().all() as number[]]))
    const rows = this.#rawStatement(`SELECT ${LIST_COLUMNS} FROM services`).iterate() as IterableIterator<ListValues>
    const index = new ServiceIndex((function * () { for (const row of rows) yield toListEntry(row) })(), orders)
    this.#lists = { index, seq }
    // The build's rows and orders are garbage now (tens of MB at 100k services).
    releaseGarbage()
    return index
  }

  /** The kept service_json of these rows, in the order given, as one JSON array (rows gone meanwhile are skipped). */
  #jsonByRowid (rowids: readonly number[]): Buffer<ArrayBuffer> {
    if (rowids.length === 0) return jsonArrayBytes([])
    const rows = this.#rowsByRowid('service_json', rowids) as Array<[string | null, number]>
    const byRowid = new Map(rows.map(([json, rowid]) => [rowid, json]))
    // A row written by an older build, which did not keep the text: made here.
    const missing = rowids.filter((rowid) => byRowid.get(rowid) === null)
    if (missing.length > 0) for (const [rowid, values] of this.#valuesByRowid(missing)) byRowid.set(rowid, toServiceJson(fromValues(values)))
    return jsonArrayBytes(rowids.flatMap((rowid) => byRowid.get(rowid) ?? []))
  }

  #recordsByRowid (rowids: readonly number[]): ServiceRecord[] {
    if (rowids.length === 0) return []
    const byRowid = this.#valuesByRowid(rowids)
    return rowids.flatMap((rowid) => { const values = byRowid.get(rowid); return values === undefined ? [] : [fromValues(values)] })
  }

  #valuesByRowid (rowids: readonly number[]): Map<number, [...RecordValues, number]> {
    // The rowid last: the values before it are exactly fromValues' (no copy per row).
    const rows = this.#rowsByRowid(RECORD_COLUMNS, rowids) as Array<[...RecordValues, number]>
    return new Map(rows.map((values) => [values[RECORD_VALUES], values]))
  }

  /**
   * `columns` and then the rowid of the rows with these rowids (a page's: at most 100), as
   * arrays, in no particular order. One parameter a rowid, a statement per count prepared
   * once: cheaper than json_each.
   */
  #rowsByRowid (columns: string, rowids: readonly number[]): unknown[][] {
    return this.#rawStatement(`SELECT ${columns}, rowid FROM services WHERE rowid IN (${'?,'.repeat(rowids.length - 1)}?)`).all(...rowids) as unknown[][]
  }

  async * streamServices (filter: CatalogFilter, batchSize = 500): AsyncIterable<ServiceRecord> {
    const { where, params } = this.#where(filter)
    // Keyset on the primary key: each batch is one short read, never an open cursor, so
    // writes and other reads on this connection go on between batches.
    const statement = this.#rawStatement(`SELECT ${RECORD_COLUMNS} FROM services WHERE ${[...where, 'id > @after'].join(' AND ')} ORDER BY id LIMIT @batch`)
    let after = ''
    for (;;) {
      const rows = statement.all({ ...params, after, batch: batchSize }) as RecordValues[]
      for (const row of rows) yield fromValues(row)
      if (rows.length < batchSize) return
      after = (rows[rows.length - 1] as RecordValues)[0]
    }
  }

  async countServices (): Promise<number> {
    return (this.#statement('SELECT COUNT(*) AS n FROM services').get() as { n: number }).n
  }

  async countByCategory (): Promise<Map<string, number>> {
    const rows = this.#statement('SELECT category, COUNT(*) AS n FROM services GROUP BY category').all() as Array<{ category: string, n: number }>
    return new Map(rows.map((row) => [row.category, row.n]))
  }

  async countFacets (filter: CatalogFilter): Promise<CatalogFacets> {
    const { where, params } = this.#where(filter)
    const matching = `SELECT id, category, status FROM services${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`}`
    const count = (sql: string): Record<string, number> =>
      Object.fromEntries((this.#rawStatement(sql).all(params) as Array<[string, number]>).map(([value, n]) => [value, n]))
    // One read transaction: the three counts see the same catalog.
    return this.#db.transaction(() => ({
      category: count(`SELECT category, COUNT(*) FROM (${matching}) GROUP BY category`),
      status: count(`SELECT status, COUNT(*) FROM (${matching}) GROUP BY status`),
      network: count(`SELECT c.chain, COUNT(*) FROM (${matching}) m JOIN service_chains c ON c.service_id = m.id GROUP BY c.chain`)
    }))()
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
    const live = (this.#rawStatement(`SELECT ${RECORD_COLUMNS}, seq FROM services WHERE seq > ? ORDER BY seq LIMIT ?`).all(afterSeq, limit) as Array<[...RecordValues, number]>)
      .map((row): ServiceChange => ({ seq: row[RECORD_VALUES], id: row[0], service: fromValues(row) }))
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

  async servicesOnOrigin (origin: string, limit: number): Promise<ServiceRecord[]> {
    // '0' follows '/' in code point order: the range is exactly the endpoints under `origin/` (index services_endpoint).
    const rows = this.#rawStatement(`SELECT ${RECORD_COLUMNS} FROM services WHERE endpoint >= ? AND endpoint < ? ORDER BY id LIMIT ?`)
      .all(`${origin}/`, `${origin}0`, limit) as RecordValues[]
    return rows.map((row) => fromValues(row))
  }

  async recordProbe (serviceId: string, outcome: ProbeOutcome, policy: LifecyclePolicy, nextProbeAt: string | null, inferCategory?: CategoryInferrer): Promise<ServiceRecord | null> {
    return this.#recordProbe(serviceId, outcome, policy, nextProbeAt, inferCategory)
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
      ORDER BY next_probe_at, id LIMIT ?`).all(now, limit) as Array<{ id: string, endpoint: string, method: string, network: string, payment_address: string, price_atomic: number }>
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

  async getChainScanState (network: string): Promise<ChainScanState | null> {
    const checkpoints = (this.#statement('SELECT block_number, block_hash FROM chain_checkpoints WHERE network = ? ORDER BY block_number DESC LIMIT ?')
      .all(network, CHAIN_CHECKPOINT_HISTORY) as Array<{ block_number: number, block_hash: string }>).map(fromCheckpointRow)
    const payTos = this.#statement('SELECT pay_to, scanned_to FROM chain_pay_tos WHERE network = ?').all(network) as Array<{ pay_to: string, scanned_to: number }>
    if (checkpoints.length === 0 && payTos.length === 0) return null
    return { network, checkpoints, payTos: Object.fromEntries(payTos.map((row) => [row.pay_to, row.scanned_to])) }
  }

  async commitChainScan (network: string, commit: ChainScanCommit): Promise<number> {
    return this.#commitChainScan(network, commit)
  }

  async rewindChain (network: string, toBlock: number): Promise<string[]> {
    return this.#rewindChain(network, toBlock)
  }

  /** WHERE conditions and parameters of a payment filter. */
  #paymentWhere (filter: PaymentFilter): { where: string, params: unknown[] } {
    const where = ['network = ?', 'pay_to = ?']
    // Payments are stored with payToKey; a filter may name an EVM payTo in any case.
    const params: unknown[] = [filter.network, payToKey(filter.payTo)]
    if (filter.since !== undefined) { where.push('at >= ?'); params.push(filter.since) }
    if (filter.amount !== undefined) { where.push('amount = ?'); params.push(BigInt(filter.amount)) }
    if (filter.excludeAmounts !== undefined && filter.excludeAmounts.length > 0) {
      where.push(`amount NOT IN (${filter.excludeAmounts.map(() => '?').join(', ')})`)
      params.push(...filter.excludeAmounts.map((amount) => BigInt(amount)))
    }
    return { where: where.join(' AND '), params }
  }

  async listPayments (filter: PaymentFilter, page: Page): Promise<PaymentPage> {
    const { where, params } = this.#paymentWhere(filter)
    const total = (this.#statement(`SELECT COUNT(*) AS n FROM payments WHERE ${where}`).get(...params) as { n: number }).n
    const rows = this.#paymentStatement(`SELECT * FROM payments WHERE ${where} ORDER BY block_number DESC, log_index DESC LIMIT ? OFFSET ?`)
      .all(...params, page.limit, page.offset) as PaymentRow[]
    return { items: rows.map(fromPaymentRow), total }
  }

  async summarizePayments (filter: PaymentFilter): Promise<PaymentSummary> {
    const { where, params } = this.#paymentWhere(filter)
    const row = this.#paymentStatement(`SELECT COUNT(*) AS n, COALESCE(SUM(amount), 0) AS total, COUNT(DISTINCT payer) AS payers, MAX(at) AS last
      FROM payments WHERE ${where}`).get(...params) as { n: bigint, total: bigint, payers: bigint, last: string | null }
    return { count: Number(row.n), totalAtomic: String(row.total), uniquePayers: Number(row.payers), lastAt: row.last }
  }

  /** Payment reads return integers as BigInt: amounts and their sums stay exact past 2^53. */
  #paymentStatement (sql: string): Database.Statement {
    const key = `safe:${sql}`
    let statement = this.#statements.get(key)
    if (statement === undefined) {
      statement = this.#db.prepare(sql).safeIntegers(true)
      this.#statements.set(key, statement)
    }
    return statement
  }

  async payTosOn (network: string): Promise<string[]> {
    return this.#statement(`SELECT DISTINCT ${PAY_TO_KEY_SQL} FROM services WHERE network = ?`).pluck().all(network) as string[]
  }

  async servicesByPayTo (network: string, payTo: string): Promise<ServiceRecord[]> {
    const rows = this.#rawStatement(`SELECT ${RECORD_COLUMNS} FROM services WHERE network = ? AND ${PAY_TO_KEY_SQL} = ? ORDER BY created_at, id`)
      .all(network, payToKey(payTo)) as RecordValues[]
    return rows.map(fromValues)
  }

  async recordUsage (serviceId: string, usage: ServiceUsage): Promise<ServiceRecord | null> {
    return this.#recordUsage(serviceId, usage)
  }

  async ping (): Promise<void> {
    try {
      this.#statement('SELECT COUNT(*) FROM services WHERE rowid = 0').get()
    } catch (err) {
      throw new StoreUnavailableError(`catalog store unusable: ${(err as Error).message}`, { cause: err })
    }
  }

  /** Ends the list thread as a crash would (tests). */
  async crashListThread (): Promise<void> {
    await this.#listThread?.crash()
  }

  async close (): Promise<void> {
    await this.#listThread?.close()
    if (this.#db.open) this.#db.close()
  }
}
