/**
 * The SQLite store's layout: tables, indexes, and the history of changes to them. Opening
 * a file runs `migrate`, which brings a file made by any earlier build up to this one's
 * layout (idempotent: every step checks before it changes anything).
 */
import type Database from 'better-sqlite3'
import { originOf } from '../../domain/endpoint-url.js'
import { EXTENSION_KEYS, extensionBit, type ExtensionKey } from '../../domain/catalog-query.js'
import { SERVICE_JSON_FORMAT, toServiceJson } from '../../domain/service.js'
import { RECORD_COLUMNS, RECORD_VALUES, fromValues, type RecordValues } from './mapping.js'

/** SQL twin of payToKey (src/domain/pay-to.ts): EVM addresses compare lower-cased. */
export const PAY_TO_KEY_SQL = "(CASE WHEN substr(payment_address, 1, 2) = '0x' THEN lower(payment_address) ELSE payment_address END)"

/** Per x402 extension key, the condition a service declaring it meets (call-schema.ts declaredExtensions). */
export const EXTENSION_CONDITIONS: Record<ExtensionKey, string> = { bazaar: 'bazaar_extension IS NOT NULL' }

/** SQL twin of extensionMask(declaredExtensions(record)). */
export const EXTENSION_MASK_SQL = `(${EXTENSION_KEYS.map((key) => `(${EXTENSION_CONDITIONS[key]}) * ${extensionBit(key)}`).join(' + ')})`

/**
 * Each sort order as an index, (sort, id) first so the id tie-break is in index order: the
 * list index (src/lib/service-index.ts) reads its orders off these when it is built. (The
 * price column dates from when SQL paged lists on them.)
 */
const SORT_INDEXES = ['trust_score', 'name_sort', 'created_at'].map((sort) =>
  `CREATE INDEX IF NOT EXISTS services_${sort}_id_price ON services(${sort}, id, price_atomic);`).join('\n')

/** Filter × sort indexes SQL once paged lists on; the list index does that now, and they only slowed writes. */
const DROPPED_LIST_INDEXES = ['category', 'status'].flatMap((filter) =>
  ['price_atomic', 'trust_score', 'name_sort', 'created_at'].map((sort) => `DROP INDEX IF EXISTS services_${filter}_${sort};`)).join('\n')

/**
 * The services table as this build creates it. A listing's identity is (resource, method),
 * unique (an index made in LATE_INDEXES); the endpoint is what the prober calls, and two
 * listings may share it with different methods.
 */
const servicesTable = (name: string): string => `
CREATE TABLE IF NOT EXISTS ${name} (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL UNIQUE,
  name TEXT NOT NULL,
  name_sort TEXT NOT NULL,
  description TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  resource TEXT NOT NULL,
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
  payment_requirements TEXT,
  next_probe_at TEXT,
  owner_id TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;`

const SCHEMA = `${servicesTable('services')}
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
${SORT_INDEXES}
CREATE INDEX IF NOT EXISTS services_category_status ON services(category, status);
${DROPPED_LIST_INDEXES}
CREATE INDEX IF NOT EXISTS services_pay_to ON services(${PAY_TO_KEY_SQL}, id);
CREATE TABLE IF NOT EXISTS service_displacements (
  id TEXT PRIMARY KEY,
  displaced_by TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  owner_id TEXT,
  reason TEXT NOT NULL,
  at TEXT NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS origin_claims (
  origin TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  token TEXT NOT NULL,
  created_at TEXT NOT NULL,
  proven_at TEXT,
  PRIMARY KEY (origin, owner_id)
) STRICT;
CREATE TABLE IF NOT EXISTS service_transfers (
  service_id TEXT NOT NULL,
  from_owner_id TEXT,
  to_owner_id TEXT NOT NULL,
  origin TEXT NOT NULL,
  reason TEXT NOT NULL,
  at TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS service_transfers_service ON service_transfers(service_id, at);
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
CREATE TABLE IF NOT EXISTS store_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS payments (
  network TEXT NOT NULL,
  tx_hash TEXT NOT NULL,
  log_index INTEGER NOT NULL,
  block_number INTEGER NOT NULL,
  block_hash TEXT NOT NULL,
  at TEXT NOT NULL,
  payer TEXT NOT NULL,
  pay_to TEXT NOT NULL,
  amount INTEGER NOT NULL,
  service_id TEXT,
  PRIMARY KEY (network, tx_hash, log_index)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS payments_pay_to ON payments(network, pay_to, block_number, log_index);
CREATE INDEX IF NOT EXISTS payments_block ON payments(network, block_number);
CREATE TABLE IF NOT EXISTS chain_checkpoints (
  network TEXT NOT NULL,
  block_number INTEGER NOT NULL,
  block_hash TEXT NOT NULL,
  PRIMARY KEY (network, block_number)
) STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chain_pay_tos (
  network TEXT NOT NULL,
  pay_to TEXT NOT NULL,
  scanned_to INTEGER NOT NULL,
  PRIMARY KEY (network, pay_to)
) STRICT, WITHOUT ROWID;
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
  ['next_probe_at', 'TEXT'],
  // toServiceJson of the row, written with it: a list page reads these instead of building them.
  ['service_json', 'TEXT'],
  // ServiceUsage as JSON, measured from payments; replaced tx_count and total_revenue (fixture figures).
  ['usage', 'TEXT'],
  // 1 when the owner proved control of the endpoint's origin (src/domain/claims.ts).
  ['claimed', 'INTEGER NOT NULL DEFAULT 0'],
  // How to call it, as the endpoint declares it (src/domain/call-schema.ts), and its extensions.bazaar; JSON, NULL without one.
  ['call_schema', 'TEXT'],
  ['bazaar_extension', 'TEXT'],
  // Keywords (JSON array) and which fields were prefilled from the endpoint's 402 answer (PrefillInfo as JSON).
  ['tags', "TEXT NOT NULL DEFAULT '[]'"],
  ['prefill', 'TEXT'],
  // originOf(endpoint), indexed: a proof finds the origin's listings by equality ('' until
  // fillOrigins has made it, in a store from before the column).
  ['origin', "TEXT NOT NULL DEFAULT ''"]
]

/** Columns of earlier builds that nothing reads any more. */
const DROPPED_COLUMNS = ['tx_count', 'total_revenue']

/** Indexes on added columns: created after the columns exist in old stores. */
const LATE_INDEXES = `CREATE UNIQUE INDEX IF NOT EXISTS services_resource_method ON services(resource, method);
CREATE INDEX IF NOT EXISTS services_endpoint ON services(endpoint);
CREATE INDEX IF NOT EXISTS services_origin ON services(origin);
CREATE INDEX IF NOT EXISTS services_next_probe ON services(next_probe_at, id);
CREATE INDEX IF NOT EXISTS services_network_pay_to ON services(network, ${PAY_TO_KEY_SQL}, id);
-- The few services declaring the Bazaar extension, for the SQL paths filtered on it (streamServices, countFacets).
CREATE INDEX IF NOT EXISTS services_bazaar ON services(id) WHERE bazaar_extension IS NOT NULL;
DROP INDEX IF EXISTS services_trust;
DROP INDEX IF EXISTS services_name;
DROP INDEX IF EXISTS services_created;`

/** Creates or brings the file's tables, indexes and kept texts up to this build's. */
export function migrate (db: Database.Database): void {
  db.exec(SCHEMA)
  addMissingColumns(db)
  if (rebuildWithResource(db)) db.exec(SCHEMA)
  db.exec(LATE_INDEXES)
  fillOrigins(db)
  refreshServiceJson(db)
  // Fresh planner statistics, so filters pick the selective index (cheap when nothing changed).
  db.pragma('optimize = 0x10002')
}

function addMissingColumns (db: Database.Database): void {
  const present = new Set((db.pragma('table_info(services)') as Array<{ name: string }>).map((column) => column.name))
  for (const [name, definition] of ADDED_COLUMNS) {
    if (!present.has(name)) db.exec(`ALTER TABLE services ADD COLUMN ${name} ${definition}`)
  }
  for (const name of DROPPED_COLUMNS) {
    if (present.has(name)) db.exec(`ALTER TABLE services DROP COLUMN ${name}`)
  }
}

/**
 * Stores made before listings were identified by (resource, method) had `endpoint UNIQUE` in
 * the table itself, which only a new table removes (SQLite's documented rebuild: create,
 * copy, drop, rename). Every listing's resource starts as its endpoint, the identity it had.
 * True when it rebuilt (the table's indexes went with the old table and must be made again).
 */
function rebuildWithResource (db: Database.Database): boolean {
  const columns = (db.pragma('table_info(services)') as Array<{ name: string }>).map((column) => column.name)
  if (columns.includes('resource')) return false
  // Dropping the old table must not count as deleting rows service_chains points at; the
  // pragma cannot change inside a transaction.
  const foreignKeys = db.pragma('foreign_keys', { simple: true }) as number
  db.pragma('foreign_keys = OFF')
  try {
    db.transaction(() => {
      db.exec('DROP TABLE IF EXISTS services_rebuild')
      db.exec(servicesTable('services_rebuild'))
      const fresh = new Set((db.pragma('table_info(services_rebuild)') as Array<{ name: string }>).map((column) => column.name))
      for (const [name, definition] of ADDED_COLUMNS) {
        if (!fresh.has(name)) db.exec(`ALTER TABLE services_rebuild ADD COLUMN ${name} ${definition}`)
      }
      const copied = columns.join(', ')
      db.exec(`INSERT INTO services_rebuild (${copied}, resource) SELECT ${copied}, endpoint FROM services`)
      db.exec('DROP TABLE services')
      db.exec('ALTER TABLE services_rebuild RENAME TO services')
    }).immediate()
  } finally {
    db.pragma(`foreign_keys = ${foreignKeys}`)
  }
  return true
}

/**
 * Gives the rows of a store from before the origin column their origin (originOf, the rule
 * the writes use), in batches, each its own transaction; found by the column's index, so a
 * store that has them all costs one index probe.
 */
function fillOrigins (db: Database.Database): void {
  const batch = db.prepare("SELECT rowid, endpoint FROM services WHERE origin = '' LIMIT 1000")
  const write = db.prepare('UPDATE services SET origin = ? WHERE rowid = ?')
  const fill = db.transaction((): number => {
    const rows = batch.all() as Array<{ rowid: number, endpoint: string }>
    for (const row of rows) write.run(originOf(row.endpoint), row.rowid)
    return rows.length
  }).immediate
  while (fill() > 0);
}

/**
 * Makes every row's service_json current: all of them when toServiceJson's format is not
 * the one they were made by, else the rows without one (a store from before the column).
 * In batches by rowid, each its own transaction; the format is noted once all are done.
 */
function refreshServiceJson (db: Database.Database): void {
  const made = db.prepare("SELECT value FROM store_meta WHERE key = 'service_json_format'").pluck().get() as string | undefined
  const only = made === SERVICE_JSON_FORMAT ? 'AND service_json IS NULL' : ''
  const batch = db.prepare(`SELECT ${RECORD_COLUMNS}, rowid FROM services WHERE rowid > ? ${only} ORDER BY rowid LIMIT 1000`).raw(true)
  const write = db.prepare('UPDATE services SET service_json = ? WHERE rowid = ?')
  // Immediate: it reads, then writes, and another process may be opening the file too.
  const remake = db.transaction((after: number): number => {
    const rows = batch.all(after) as Array<[...RecordValues, number]>
    for (const values of rows) write.run(toServiceJson(fromValues(values)), values[RECORD_VALUES])
    return rows.length === 0 ? -1 : (rows[rows.length - 1] as [...RecordValues, number])[RECORD_VALUES]
  }).immediate
  for (let after = remake(0); after !== -1; after = remake(after));
  db.prepare("INSERT OR REPLACE INTO store_meta (key, value) VALUES ('service_json_format', ?)").run(SERVICE_JSON_FORMAT)
}
