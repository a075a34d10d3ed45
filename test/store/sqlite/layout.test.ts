/**
 * The SQLite store's layout (src/store/sqlite/schema.ts): a new file gets this build's layout
 * and opens again; a file made by another layout, older or newer, is refused with one line and
 * left exactly as it was; kept texts made by another format of toServiceJson are remade.
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { test, type Test } from 'tap'
import { SERVICE_JSON_FORMAT, toServiceJson, type ServiceRecord } from '../../../src/domain/service.js'
import { STORE_LAYOUT } from '../../../src/store/sqlite/schema.js'
import { SqliteCatalogStore, STORE_FILE } from '../../../src/store/sqlite/store.js'
import { demoRecords } from '../../contract/catalog-store.contract.js'
import { tempDataDir } from '../../support/basics.js'

const layoutOf = (dir: string): number => {
  const db = new Database(join(dir, STORE_FILE), { readonly: true })
  try {
    return db.pragma('user_version', { simple: true }) as number
  } finally {
    db.close()
  }
}

const hashOf = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex')

test('a new data dir gets this layout, and the file opens again with what it stored', async (t) => {
  const dir = tempDataDir(t)
  const records = demoRecords().slice(0, 5)
  const first = new SqliteCatalogStore(dir)
  await first.insertServices(records)
  // A second connection while the first is open (another process of the deployment).
  const second = new SqliteCatalogStore(dir)
  t.equal(await second.countServices(), records.length)
  await second.close()
  await first.close()
  t.equal(layoutOf(dir), STORE_LAYOUT)

  const reopened = new SqliteCatalogStore(dir)
  t.teardown(() => reopened.close())
  for (const record of records) t.same(await reopened.getService(record.id), record, `${record.id}: as stored`)
  t.equal(layoutOf(dir), STORE_LAYOUT)
})

/** Opens a store on `dir` expecting the refusal, and checks the file and the folder are exactly as before. */
function refused (t: Test, dir: string, found: number): void {
  const file = join(dir, STORE_FILE)
  const before = { hash: hashOf(file), files: readdirSync(dir).sort() }
  const message = `DATA_DIR ${dir} holds a store made by another build (${STORE_FILE}: store layout ${found}, this build reads ${STORE_LAYOUT}): ` +
    'move it away and start with an empty DATA_DIR, then re-seed or re-import'
  t.throws(() => new SqliteCatalogStore(dir), { code: 'STORE_LAYOUT', message }, 'refused with one line naming the dir, the file and both layouts')
  t.throws(() => new SqliteCatalogStore(dir, { listThread: true }), { code: 'STORE_LAYOUT' }, 'as the API opens it too')
  t.equal(hashOf(file), before.hash, 'the file is byte for byte as it was')
  t.same(readdirSync(dir).sort(), before.files, 'nothing added beside it')
}

test('a file made by an earlier build (tables, no layout number) is refused and left as it was', async (t) => {
  const dir = tempDataDir(t)
  // As earlier builds made it: WAL, a services table, user_version never set.
  const db = new Database(join(dir, STORE_FILE))
  db.pragma('journal_mode = WAL')
  db.exec('CREATE TABLE services (id TEXT PRIMARY KEY, seq INTEGER NOT NULL UNIQUE, name TEXT NOT NULL) STRICT')
  db.prepare("INSERT INTO services VALUES ('svc_old', 1, 'Old')").run()
  db.close()
  refused(t, dir, 0)
})

test('a file made by a newer layout is refused and left as it was', async (t) => {
  const dir = tempDataDir(t)
  const store = new SqliteCatalogStore(dir)
  await store.insertServices(demoRecords().slice(0, 2))
  await store.close()
  const db = new Database(join(dir, STORE_FILE))
  db.pragma(`user_version = ${STORE_LAYOUT + 1}`)
  db.close()
  refused(t, dir, STORE_LAYOUT + 1)

  // Even with no tables at all: a layout number this build does not know is not a new file.
  const empty = tempDataDir(t)
  const bare = new Database(join(empty, STORE_FILE))
  bare.pragma(`user_version = ${STORE_LAYOUT + 1}`)
  bare.close()
  refused(t, empty, STORE_LAYOUT + 1)
})

test('a file of layout 3 is brought forward: its five list indexes go, its listings stay and list in order', async (t) => {
  const dir = tempDataDir(t)
  const records = demoRecords().slice(0, 8)
  const first = new SqliteCatalogStore(dir)
  await first.insertServices(records)
  await first.close()
  // As layout 3 made it: the same tables, with the (sort, id) and (category, status) indexes.
  const dropped = ['services_price', 'services_trust_score_id_price', 'services_name_sort_id_price', 'services_created_at_id_price', 'services_category_status']
  const raw = new Database(join(dir, STORE_FILE))
  raw.exec(`CREATE INDEX services_price ON services(price_atomic, id);
    CREATE INDEX services_trust_score_id_price ON services(trust_score, id, price_atomic);
    CREATE INDEX services_name_sort_id_price ON services(name_sort, id, price_atomic);
    CREATE INDEX services_created_at_id_price ON services(created_at, id, price_atomic);
    CREATE INDEX services_category_status ON services(category, status);`)
  raw.pragma('user_version = 3')
  raw.close()

  const store = new SqliteCatalogStore(dir, { listThread: true })
  t.teardown(() => store.close())
  t.equal(layoutOf(dir), STORE_LAYOUT, 'numbered this layout')
  const check = new Database(join(dir, STORE_FILE), { readonly: true })
  const indexes = check.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'services'").pluck().all() as string[]
  check.close()
  t.same(indexes.filter((name) => dropped.includes(name)), [], 'the five indexes are gone')
  t.ok(indexes.includes('services_resource_method'), 'the others stay')
  for (const record of records) t.same(await store.getService(record.id), record, `${record.id}: as stored`)
  // Each order as a store made by this layout lists them (the list index sorts in both).
  const fresh = new SqliteCatalogStore(tempDataDir(t), { listThread: true })
  t.teardown(() => fresh.close())
  await fresh.insertServices(records)
  for (const field of ['price', 'trustScore', 'name', 'createdAt'] as const) {
    const ids = async (s: SqliteCatalogStore): Promise<string[]> => (await s.listServices({}, { field, order: 'desc' }, { limit: 100, offset: 0 })).items.map((r) => r.id)
    t.same(await ids(store), await ids(fresh), `listed by ${field} as a new store lists them`)
  }
})

test('kept texts made by another format of toServiceJson are remade on open, and the format noted', async (t) => {
  const dir = tempDataDir(t)
  const records = demoRecords().slice(0, 5)
  const first = new SqliteCatalogStore(dir)
  await first.insertServices(records)
  await first.close()

  const raw = new Database(join(dir, STORE_FILE))
  t.teardown(() => { raw.close() })
  raw.exec("UPDATE services SET service_json = '{\"old\":true}'; UPDATE store_meta SET value = 'old' WHERE key = 'service_json_format'")
  const store = new SqliteCatalogStore(dir)
  t.teardown(() => store.close())
  const byId = new Map(records.map((record): [string, ServiceRecord] => [record.id, record]))
  const kept = raw.prepare('SELECT id, service_json FROM services').raw(true).all() as Array<[string, string]>
  t.same(kept, kept.map(([id]) => [id, toServiceJson(byId.get(id) as ServiceRecord)]), 'every text remade')
  t.equal(raw.prepare("SELECT value FROM store_meta WHERE key = 'service_json_format'").pluck().get(), SERVICE_JSON_FORMAT)
  t.same((await store.getServiceJson(records.map((r) => r.id))).map((item) => Buffer.from(item.json).toString()), records.map(toServiceJson), 'and served')
})
