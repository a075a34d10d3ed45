/**
 * The MongoDB store's layout marker against a server (MONGO_URL naming a replica set;
 * skipped otherwise, and the skip says so): a new database is set up and marked, a marked one
 * opens again, and a database another build made (the catalog's collections without the
 * marker, or a marker of another layout) is refused with one line and left exactly as it
 * was, and the server stops its start on it with that line and exit 1, as on a SQLite store
 * of another layout (test/server-refused.test.ts). Which database gets which verdict is
 * tested without a server in test/store/mongodb/pure-parts.test.ts.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { promisify } from 'node:util'
import { Decimal128, Long, MongoClient, type Db } from 'mongodb'
import { test, type Test } from 'tap'
import { readSeedFile, seedRecords } from '../../../src/domain/seed.js'
import type { ServiceRecord } from '../../../src/domain/service.js'
import { MongoCatalogStore } from '../../../src/store/mongodb/mongo-store.js'
import { COLLECTIONS, STORE_LAYOUT, type LayoutMarkerDocument } from '../../../src/store/mongodb/schema.js'
import { tempDataDir } from '../../support/basics.js'
import { SERVER_ENTRY } from '../../server-process.js'

const record = seedRecords(readSeedFile('demo'), '2025-01-02T03:04:05.678Z')[0] as ServiceRecord

/** A fresh database on the MONGO_URL server, dropped when `t` ends; its URL and a client for looking at it. */
async function freshDatabase (t: Test, base: string): Promise<{ url: string, db: Db }> {
  const name = `catalog_layout_${randomBytes(6).toString('hex')}`
  const url = base.replace(/^(mongodb(?:\+srv)?:\/\/[^/]+\/)[^?]*/, `$1${name}`)
  const client = await MongoClient.connect(url)
  t.teardown(async () => {
    await client.db(name).dropDatabase()
    await client.close()
  })
  return { url, db: client.db(name) }
}

/** Everything in a database a start could change: each collection's options (validator), indexes and documents. */
async function contents (db: Db): Promise<unknown[]> {
  const infos = (await db.listCollections().toArray()).sort((a, b) => a.name.localeCompare(b.name))
  return await Promise.all(infos.map(async (info) => ({
    name: info.name,
    options: 'options' in info ? info.options : undefined,
    indexes: await db.collection(info.name).indexes(),
    documents: await db.collection(info.name).find({}).sort({ _id: 1 }).toArray()
  })))
}

const refusal = (database: string, found: string | number): { code: string, message: string } => ({
  code: 'STORE_LAYOUT',
  message: `MongoDB database ${database} was made by another build (store layout ${found}, this build reads ${STORE_LAYOUT}): ` +
    'drop it or point MONGO_URL at an empty database, then re-seed or re-import'
})

test('the MongoDB layout marker', async (t) => {
  const base = process.env.MONGO_URL
  if (base === undefined || base === '') {
    t.pass('MongoDB layout', { skip: 'NOT RUN: set MONGO_URL to a MongoDB replica set (e.g. mongodb://127.0.0.1:27017/catalog?replicaSet=rs0) to run it' })
    return
  }

  t.test('a new database is set up and marked; opened again, it keeps what it holds', async (t) => {
    const { url, db } = await freshDatabase(t, base)
    const store = await MongoCatalogStore.open(url)
    await store.insertService(record)
    await store.close()
    t.same(await db.collection(COLLECTIONS.storeMeta).find({}).toArray(), [{ _id: 'layout', version: STORE_LAYOUT }], 'one marker, this layout')
    const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((info) => info.name)
    for (const name of [COLLECTIONS.services, COLLECTIONS.tombstones, COLLECTIONS.payments, COLLECTIONS.counters]) t.ok(names.includes(name), `${name} created`)
    const again = await MongoCatalogStore.open(url)
    t.teardown(() => again.close())
    t.same(await again.getService(record.id), record, 'a database of this layout opens with its data')
  })

  t.test('a database an earlier build made is refused with one line and left as it was', async (t) => {
    const { url, db } = await freshDatabase(t, base)
    // As a build before the marker left it: the catalog's collections, a service in that build's fields, no store_meta.
    await db.collection(COLLECTIONS.services).insertOne({
      _id: 'svc_old' as never, name: 'Old', endpoint: 'https://old.example/api', txCount: Long.fromNumber(42), totalRevenue: Decimal128.fromString('1.25')
    })
    await db.collection(COLLECTIONS.services).createIndex({ endpoint: 1 }, { name: 'endpoint_unique', unique: true })
    await db.collection(COLLECTIONS.counters).insertOne({ _id: 'services' as never, seq: Long.fromNumber(7) })
    const before = await contents(db)
    await t.rejects(MongoCatalogStore.open(url), refusal(db.databaseName, 'none'))
    t.same(await contents(db), before, 'every collection, validator, index and document as it was')
    t.notOk((await db.listCollections({ name: COLLECTIONS.storeMeta }).toArray()).length, 'no marker written')
  })

  t.test('the server refuses such a database at start: one line on stderr, exit 1, the database untouched', async (t) => {
    const { url, db } = await freshDatabase(t, base)
    await db.collection(COLLECTIONS.services).insertOne({ _id: 'svc_old' as never, name: 'Old' })
    const before = await contents(db)
    // The built server (dist/), as test/server-refused.test.ts runs it.
    const failure = await promisify(execFile)(process.execPath, [SERVER_ENTRY], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'warn', CATALOG_STORE: 'mongodb', MONGO_URL: url, DATA_DIR: tempDataDir(t) },
      timeout: 60_000
    }).then(() => ({ code: 0, stderr: '' }), (err: { code: number, stderr: string }) => err)
    t.equal(failure.code, 1, 'exits 1')
    t.equal(failure.stderr, `x402-catalog: ${refusal(db.databaseName, 'none').message}\n`, 'the refusal, one line, no stack')
    t.same(await contents(db), before, 'not seeded, nothing created')
  })

  t.test('a database marked with another layout is refused, left as it was', async (t) => {
    const { url, db } = await freshDatabase(t, base)
    await (await MongoCatalogStore.open(url)).close()
    await db.collection<LayoutMarkerDocument>(COLLECTIONS.storeMeta).updateOne({ _id: 'layout' }, { $set: { version: STORE_LAYOUT + 1 } })
    const before = await contents(db)
    await t.rejects(MongoCatalogStore.open(url), refusal(db.databaseName, STORE_LAYOUT + 1))
    t.same(await contents(db), before)
  })

  t.test('a first start stopped after writing the marker is completed by the next', async (t) => {
    const { url, db } = await freshDatabase(t, base)
    await db.collection<LayoutMarkerDocument>(COLLECTIONS.storeMeta).insertOne({ _id: 'layout', version: STORE_LAYOUT })
    const store = await MongoCatalogStore.open(url)
    t.teardown(() => store.close())
    await store.insertService(record)
    t.equal(await store.countServices(), 1)
    t.ok((await db.collection(COLLECTIONS.services).indexes()).some((index) => index.name === 'resource_method_unique'), 'indexes created')
  })

  t.test('processes setting up one new database at once all open it', async (t) => {
    const { url, db } = await freshDatabase(t, base)
    const stores = await Promise.all([1, 2, 3].map(async () => await MongoCatalogStore.open(url)))
    t.teardown(async () => { await Promise.all(stores.map(async (store) => await store.close())) })
    t.same(await db.collection(COLLECTIONS.storeMeta).find({}).toArray(), [{ _id: 'layout', version: STORE_LAYOUT }])
  })
})
