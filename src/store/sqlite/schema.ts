/**
 * The SQLite store's layout: tables and indexes, created in a file that has none, and the
 * layout number (PRAGMA user_version) that says a file was made by this build's layout. A
 * file of an earlier layout with an UPGRADES entry is brought forward at open; any other
 * layout is refused, never converted (the data is re-seeded or re-imported).
 */
import type Database from 'better-sqlite3'
import { CatalogError } from '../../errors.js'
import { EXTENSION_KEYS, extensionBit, type ExtensionKey } from '../../domain/catalog-query.js'
import { SERVICE_JSON_FORMAT, toServiceJson } from '../../domain/service.js'
import { RECORD_COLUMNS, RECORD_VALUES, fromValues, type RecordValues } from './mapping.js'

/** The layout this build creates and reads; raised whenever a table or index changes. */
export const STORE_LAYOUT = 4

/**
 * How a file of an earlier layout becomes this one, in one transaction at open. 3 → 4: the
 * (sort, id) and (category, status) indexes go: no query reads them since the list index
 * (src/lib/service-index.ts) sorts its orders itself, and every insert paid for them (a new
 * listing wrote 15 B-trees, now 10; docs/decisions.md).
 */
const UPGRADES: Record<number, string> = {
  3: ['services_price', 'services_trust_score_id_price', 'services_name_sort_id_price', 'services_created_at_id_price', 'services_category_status']
    .map((index) => `DROP INDEX IF EXISTS ${index};`).join('\n')
}

/** SQL twin of payToKey (src/domain/pay-to.ts): EVM addresses compare lower-cased. */
export const PAY_TO_KEY_SQL = "(CASE WHEN substr(payment_address, 1, 2) = '0x' THEN lower(payment_address) ELSE payment_address END)"

/** Per x402 extension key, the condition a service declaring it meets (call-schema.ts declaredExtensions). */
export const EXTENSION_CONDITIONS: Record<ExtensionKey, string> = { bazaar: 'bazaar_extension IS NOT NULL' }

/** SQL twin of extensionMask(declaredExtensions(record)). */
export const EXTENSION_MASK_SQL = `(${EXTENSION_KEYS.map((key) => `(${EXTENSION_CONDITIONS[key]}) * ${extensionBit(key)}`).join(' + ')})`

/**
 * A listing's identity is (resource, method), unique (services_resource_method); the endpoint
 * is what the prober calls, and two listings may share it with different methods.
 */
const SCHEMA = `
CREATE TABLE services (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL UNIQUE,
  name TEXT NOT NULL,
  name_sort TEXT NOT NULL,
  description TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  -- originOf(endpoint), indexed: a proof finds the origin's listings by equality.
  origin TEXT NOT NULL,
  resource TEXT NOT NULL,
  method TEXT NOT NULL,
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
  -- ServiceUsage as JSON, measured from payments.
  usage TEXT,
  payment_requirements TEXT,
  next_probe_at TEXT,
  owner_id TEXT,
  -- 1 when the owner proved control of the endpoint's origin (src/domain/claims.ts).
  claimed INTEGER NOT NULL,
  -- How to call it, as the endpoint declares it (src/domain/call-schema.ts), and its extensions.bazaar; JSON, NULL without one.
  call_schema TEXT,
  bazaar_extension TEXT,
  -- Keywords (JSON array) and which fields were prefilled from the endpoint's 402 answer (PrefillInfo as JSON).
  tags TEXT NOT NULL,
  prefill TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  -- toServiceJson of the row, written with it: a list page reads these instead of building them.
  service_json TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX services_resource_method ON services(resource, method);
CREATE INDEX services_endpoint ON services(endpoint);
CREATE INDEX services_origin ON services(origin);
CREATE INDEX services_next_probe ON services(next_probe_at, id);
CREATE INDEX services_pay_to ON services(${PAY_TO_KEY_SQL}, id);
CREATE INDEX services_network_pay_to ON services(network, ${PAY_TO_KEY_SQL}, id);
-- The few services declaring the Bazaar extension, for the SQL paths filtered on it (streamServices, countFacets).
CREATE INDEX services_bazaar ON services(id) WHERE bazaar_extension IS NOT NULL;
CREATE TABLE service_tombstones (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL UNIQUE
) STRICT;
CREATE TABLE service_chains (
  service_id TEXT NOT NULL REFERENCES services(id),
  chain TEXT NOT NULL,
  PRIMARY KEY (chain, service_id)
) STRICT, WITHOUT ROWID;
CREATE TABLE service_displacements (
  id TEXT PRIMARY KEY,
  displaced_by TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  owner_id TEXT,
  reason TEXT NOT NULL,
  at TEXT NOT NULL
) STRICT;
CREATE TABLE origin_claims (
  origin TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  token TEXT NOT NULL,
  created_at TEXT NOT NULL,
  proven_at TEXT,
  PRIMARY KEY (origin, owner_id)
) STRICT;
CREATE TABLE service_transfers (
  service_id TEXT NOT NULL,
  from_owner_id TEXT,
  to_owner_id TEXT NOT NULL,
  origin TEXT NOT NULL,
  reason TEXT NOT NULL,
  at TEXT NOT NULL
) STRICT;
CREATE INDEX service_transfers_service ON service_transfers(service_id, at);
CREATE TABLE probes (
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
CREATE INDEX probes_service ON probes(service_id, id);
-- Sources (src/store/sqlite/sources.ts): the lists the catalog mirrors, and which listings each lists.
CREATE TABLE sources (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  url TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_sync TEXT,
  last_complete_at TEXT,
  UNIQUE (kind, url)
) STRICT;
CREATE TABLE service_sources (
  source_id TEXT NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  service_id TEXT NOT NULL REFERENCES services(id) ON DELETE CASCADE,
  first_seen_at TEXT NOT NULL,
  PRIMARY KEY (source_id, service_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX service_sources_service ON service_sources(service_id, source_id);
-- Ownership proofs (src/store/sqlite/origin-proofs.ts): the payTo wallets that proved each origin.
CREATE TABLE origin_proofs (
  origin TEXT NOT NULL,
  address TEXT NOT NULL,
  document TEXT NOT NULL,
  checked_at TEXT NOT NULL,
  PRIMARY KEY (origin, address)
) STRICT, WITHOUT ROWID;
CREATE TABLE leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE TABLE store_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
CREATE TABLE payments (
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
CREATE INDEX payments_pay_to ON payments(network, pay_to, block_number, log_index);
CREATE INDEX payments_block ON payments(network, block_number);
CREATE TABLE chain_checkpoints (
  network TEXT NOT NULL,
  block_number INTEGER NOT NULL,
  block_hash TEXT NOT NULL,
  PRIMARY KEY (network, block_number)
) STRICT, WITHOUT ROWID;
CREATE TABLE chain_pay_tos (
  network TEXT NOT NULL,
  pay_to TEXT NOT NULL,
  scanned_to INTEGER NOT NULL,
  PRIMARY KEY (network, pay_to)
) STRICT, WITHOUT ROWID;
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  revoked_at TEXT
) STRICT;
`

/** A store file made by another layout than this build's (STORE_LAYOUT), and not one it upgrades: refused at open, left as it was. */
export class StoreLayoutError extends CatalogError {
  constructor (dataDir: string, file: string, found: number) {
    super(`DATA_DIR ${dataDir} holds a store made by another build (${file}: store layout ${found}, this build reads ${STORE_LAYOUT}): ` +
      'move it away and start with an empty DATA_DIR, then re-seed or re-import', 'STORE_LAYOUT', 500)
  }
}

/** The file's layout number, and whether it holds anything at all (a new file holds nothing). */
function layoutOf (db: Database.Database): { layout: number, empty: boolean } {
  const layout = db.pragma('user_version', { simple: true }) as number
  const objects = db.prepare('SELECT COUNT(*) FROM sqlite_master').pluck().get() as number
  return { layout, empty: layout === 0 && objects === 0 }
}

/** Whether this build opens a file of `layout` (its own, or one it upgrades). */
const opens = (layout: number): boolean => layout === STORE_LAYOUT || UPGRADES[layout] !== undefined

/**
 * Throws StoreLayoutError unless the file is new, made by this layout or by one it upgrades.
 * Only reads: run before anything that may write to the file (setting WAL writes its header),
 * so a refused file is left byte for byte as it was.
 */
export function checkLayout (db: Database.Database, dataDir: string, file: string): void {
  const { layout, empty } = layoutOf(db)
  if (!empty && !opens(layout)) throw new StoreLayoutError(dataDir, file, layout)
}

/**
 * Creates the tables and indexes in a new file, numbered STORE_LAYOUT, or brings an earlier
 * layout forward (after checkLayout); then makes the kept texts current and the planner's
 * statistics fresh.
 */
export function setUpLayout (db: Database.Database, dataDir: string, file: string): void {
  if (layoutOf(db).layout !== STORE_LAYOUT) {
    db.transaction(() => {
      // Checked again under the write lock: another process may have set up or upgraded the same file.
      const { layout, empty } = layoutOf(db)
      if (layout === STORE_LAYOUT) return
      if (empty) {
        db.exec(SCHEMA)
        db.prepare("INSERT INTO store_meta (key, value) VALUES ('service_json_format', ?)").run(SERVICE_JSON_FORMAT)
      } else {
        const upgrade = UPGRADES[layout]
        if (upgrade === undefined) throw new StoreLayoutError(dataDir, file, layout)
        db.exec(upgrade)
      }
      db.pragma(`user_version = ${STORE_LAYOUT}`)
    }).immediate()
  }
  refreshServiceJson(db)
  // Fresh planner statistics, so filters pick the selective index (cheap when nothing changed).
  db.pragma('optimize = 0x10002')
}

/**
 * Remakes every row's service_json when toServiceJson's format is not the one they were made
 * by (SERVICE_JSON_FORMAT, noted in store_meta): the texts are a cache of toServiceJson, keyed
 * by its format. In batches by rowid, each its own transaction; the format is noted once all
 * are done.
 */
function refreshServiceJson (db: Database.Database): void {
  const made = db.prepare("SELECT value FROM store_meta WHERE key = 'service_json_format'").pluck().get() as string | undefined
  if (made === SERVICE_JSON_FORMAT) return
  const batch = db.prepare(`SELECT ${RECORD_COLUMNS}, rowid FROM services WHERE rowid > ? ORDER BY rowid LIMIT 1000`).raw(true)
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
