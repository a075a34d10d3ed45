import { test } from 'tap'
import { readSeedFile, seedRecords } from '../src/domain/seed.js'
import { SqliteCatalogStore } from '../src/store/sqlite-store.js'
import { build, register, tempDataDir, validBody } from './helper.js'

test('read routes answer from the cache until the catalog changes', async (t) => {
  const dataDir = tempDataDir(t)
  const app = await build(t, { dataDir })
  const first = await app.inject('/api/services?category=weather&sortBy=price')
  t.equal(first.headers['x-cache'], undefined, 'the first answer is computed')
  const second = await app.inject('/api/services?category=weather&sortBy=price')
  t.equal(second.headers['x-cache'], 'hit')
  t.equal(second.body, first.body, 'the same bytes')
  t.equal(second.headers['x-total-count'], first.headers['x-total-count'])
  t.match(second.headers['content-type'], /application\/json/)

  const created = await register(app, validBody({ category: 'weather', pricing: { currency: 'USDC', pricePerRequest: '0.000001' } }))
  const after = await app.inject('/api/services?category=weather&sortBy=price')
  t.equal(after.headers['x-cache'], undefined, 'a registration invalidates')
  t.equal(after.json()[0].id, created.json().id, 'and is visible on the very next request')
  t.equal(Number(after.headers['x-total-count']), Number(first.headers['x-total-count']) + 1)

  // Another process writing to the same store (a second API instance) invalidates too.
  const other = new SqliteCatalogStore(dataDir)
  const [extra] = seedRecords([{ ...readSeedFile('demo')[0]!, endpoint: 'https://elsewhere.example/x', category: 'weather' }], new Date().toISOString())
  await other.insertServices([extra!])
  await other.close()
  const fresh = await app.inject('/api/services?category=weather&sortBy=price')
  t.equal(Number(fresh.headers['x-total-count']), Number(first.headers['x-total-count']) + 2)

  const detail = `/api/services/${created.json().id as string}`
  await app.inject(detail)
  t.equal((await app.inject(detail)).headers['x-cache'], 'hit', 'details are cached too')
  t.equal((await app.inject('/api/services/svc_aaaaaaaaaaaaaaaaaaaaaaaa')).statusCode, 404)
  t.equal((await app.inject('/api/services/svc_aaaaaaaaaaaaaaaaaaaaaaaa')).headers['x-cache'], undefined, 'errors are never cached')
})

test('search answers are cached until the store or the index changes', async (t) => {
  const app = await build(t)
  await app.searchReady()
  for (const url of ['/api/services?query=wombat', '/api/catalog/search?q=wombat', '/api/services/search/intent?q=wombat']) {
    await app.inject(url)
    t.equal((await app.inject(url)).headers['x-cache'], 'hit', `${url} repeats from the cache`)
  }
  await register(app, validBody({ name: 'Wombat Weather' }))
  // Stored but not yet indexed: an answer built now must not outlive the indexing.
  await app.inject('/api/catalog/search?q=wombat')
  await app.searchReady()
  const found = await app.inject('/api/catalog/search?q=wombat')
  t.equal(found.json().total, 1, 'once indexed, the service is found')
  const list = await app.inject('/api/services?query=wombat')
  t.equal(list.json().length, 1)
})

test('CATALOG_RESPONSE_CACHE=0 turns the cache off', async (t) => {
  const app = await build(t, { responseCacheEntries: 0 })
  await app.inject('/api/categories')
  t.equal((await app.inject('/api/categories')).headers['x-cache'], undefined)
})

test('the cache holds at most its configured number of entries', async (t) => {
  const app = await build(t, { responseCacheEntries: 2 })
  for (const path of ['/api/categories', '/api/services?limit=1', '/api/services?limit=2']) await app.inject(path)
  t.equal((await app.inject('/api/services?limit=2')).headers['x-cache'], 'hit', 'recent entries stay')
  t.equal((await app.inject('/api/categories')).headers['x-cache'], undefined, 'the least recently used entry was dropped')
})
