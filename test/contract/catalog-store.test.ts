/**
 * Runs the CatalogStore contract against every adapter: SQLite always; MongoDB when
 * MONGO_URL names a replica set (each subtest gets its own database, dropped afterwards).
 */
import { randomBytes } from 'node:crypto'
import { test, type Test } from 'tap'
import { MongoClient } from 'mongodb'
import { MongoCatalogStore } from '../../src/store/mongodb/mongo-store.js'
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js'
import { tempDataDir } from '../support/basics.js'
import { catalogStoreContract } from './catalog-store.contract.js'
import { FeedTail, missedChanges, NumberedBeforeCommitFeed } from '../support/feed-order.js'

test('SqliteCatalogStore', async (t) => {
  catalogStoreContract(t, async (t) => {
    const store = new SqliteCatalogStore(tempDataDir(t))
    t.teardown(() => store.close())
    return store
  }, async (t) => ({ dataDir: tempDataDir(t), store: { kind: 'sqlite' } }))
})

test('SqliteCatalogStore with its list thread (as the API opens it)', async (t) => {
  catalogStoreContract(t, async (t) => {
    const store = new SqliteCatalogStore(tempDataDir(t), { listThread: true })
    t.teardown(() => store.close())
    return store
  })
})

/** The MONGO_URL with its database replaced by a fresh one. */
export function freshDatabaseUrl (url: string): { url: string, db: string } {
  const db = `catalog_contract_${randomBytes(6).toString('hex')}`
  return { url: url.replace(/^(mongodb(?:\+srv)?:\/\/[^/]+\/)[^?]*/, `$1${db}`), db }
}

test('each MongoDB contract run gets its own database', async (t) => {
  const { url, db } = freshDatabaseUrl('mongodb://u:p@a:1,b:2/catalog?replicaSet=rs0')
  t.equal(url, `mongodb://u:p@a:1,b:2/${db}?replicaSet=rs0`)
  t.match(db, /^catalog_contract_[0-9a-f]{12}$/)
})

test('MongoCatalogStore', async (t) => {
  const base = process.env.MONGO_URL
  if (base === undefined || base === '') {
    t.pass('MongoCatalogStore contract', { skip: 'NOT RUN: set MONGO_URL to a MongoDB replica set (e.g. mongodb://127.0.0.1:27017/catalog?replicaSet=rs0) to run it' })
    return
  }
  const dropAfter = (t: Test, url: string, db: string): void => {
    t.teardown(async () => {
      const client = await MongoClient.connect(url)
      await client.db(db).dropDatabase()
      await client.close()
    })
  }
  catalogStoreContract(t, async (t) => {
    const { url, db } = freshDatabaseUrl(base)
    const store = await MongoCatalogStore.open(url)
    t.teardown(() => store.close())
    dropAfter(t, url, db)
    return store
  }, async (t) => {
    const { url, db } = freshDatabaseUrl(base)
    dropAfter(t, url, db)
    return { dataDir: tempDataDir(t), store: { kind: 'mongodb', url } }
  })
})

test('the feed-order check catches a store that numbers a write before it commits', async (t) => {
  const feed = new NumberedBeforeCommitFeed()
  const tail = new FeedTail(feed)
  const slow = feed.begin('svc_slow')
  feed.begin('svc_fast').commit()
  await tail.step()
  slow.commit()
  await tail.catchUp()
  t.same((await missedChanges(feed, tail)).map((change) => change.id), ['svc_slow'], 'committed below the checkpoint the tail had passed: missed')

  const inOrder = new NumberedBeforeCommitFeed()
  const fine = new FeedTail(inOrder)
  inOrder.begin('svc_one').commit()
  await fine.step()
  inOrder.begin('svc_two').commit()
  await fine.catchUp()
  t.same(await missedChanges(inOrder, fine), [], 'numbers committed in order: nothing missed')
})
