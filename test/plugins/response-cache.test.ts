import { test } from 'tap'
import { readSeedFile, seedRecords } from '../../src/domain/seed.js'
import { MAX_FOLLOWED_CHANGES } from '../../src/plugins/catalog-changes.js'
import { ownBytes } from '../../src/plugins/response-cache.js'
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js'
import { API_KEY, build, register, tempDataDir, validBody } from '../helper.js'

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

test('CATALOG_RESPONSE_CACHE_MB=0 turns the cache off', async (t) => {
  const app = await build(t, { responseCacheBytes: 0 })
  await app.inject('/api/categories')
  t.equal((await app.inject('/api/categories')).headers['x-cache'], undefined)
})

test('spellings of the same query share one entry', async (t) => {
  const app = await build(t)
  const urls = [
    '/api/services?category=weather',
    '/api/services?category=weather&offset=0',
    '/api/services?category=weather&offset=00',
    '/api/services?category=weather&offset=000',
    '/api/services?offset=0&category=weather&limit=20',
    '/api/services?limit=020&category=weather',
    '/api/services?category=weather&limit=20&offset=0000000'
  ]
  const first = await app.inject(urls[0] as string)
  t.equal(first.statusCode, 200)
  for (const url of urls.slice(1)) {
    const res = await app.inject(url)
    t.equal(res.headers['x-cache'], 'hit', `${url} is answered by the entry of the first spelling`)
    t.equal(res.body, first.body)
  }
  t.equal(app.responseCache.stats().entries, 1, 'one entry for seven URLs')
  // Different answers stay apart.
  await app.inject('/api/services?category=weather&offset=1')
  t.equal(app.responseCache.stats().entries, 2)
})

test('the cache stays within its byte budget, evicting the least recently used', async (t) => {
  const maxBytes = 64 * 1024
  const app = await build(t, { responseCacheBytes: maxBytes })
  const one = await app.inject('/api/services?limit=1')
  t.equal(one.statusCode, 200)
  // Distinct queries whose answers together are many times the budget.
  let answered = 0
  for (let offset = 0; offset < 60; offset++) {
    const res = await app.inject(`/api/services?limit=10&offset=${offset}`)
    answered += res.body.length
    const stats = app.responseCache.stats()
    t.ok(stats.bytes <= maxBytes, `after ${offset + 1} queries: ${stats.bytes} bytes <= ${maxBytes}`)
  }
  t.ok(answered > 4 * maxBytes, `the answers (${answered} bytes) far exceed the budget`)
  const stats = app.responseCache.stats()
  t.ok(stats.entries > 1 && stats.entries < 60, `some entries kept (${stats.entries}), not all`)
  t.ok(stats.bytes > maxBytes / 2, 'the budget is used, not left empty')
  t.equal((await app.inject('/api/services?limit=10&offset=59')).headers['x-cache'], 'hit', 'the most recent entry stays')
  t.equal((await app.inject('/api/services?limit=1')).headers['x-cache'], undefined, 'the least recently used entry was evicted')
})

test('an answer larger than the whole budget is served but not cached', async (t) => {
  const app = await build(t, { responseCacheBytes: 2048 })
  const res = await app.inject('/api/services?limit=50')
  t.equal(res.statusCode, 200)
  t.ok(res.body.length > 2048)
  t.equal(app.responseCache.stats().entries, 0)
  t.equal((await app.inject('/api/services?limit=50')).headers['x-cache'], undefined)
})

test('a write invalidates what it changed: other services\' detail pages stay cached', async (t) => {
  const app = await build(t)
  const list = (await app.inject('/api/services?limit=3')).json() as Array<{ id: string }>
  const [a, b] = list.map((service) => `/api/services/${service.id}`) as [string, string]
  for (const url of [a, b, '/api/categories']) await app.inject(url)
  const mine = await register(app, validBody({ name: 'Fresh Listing' }))
  t.equal(mine.statusCode, 201)
  t.equal((await app.inject(a)).headers['x-cache'], 'hit', 'a registration leaves another service\'s detail cached')
  t.equal((await app.inject(b)).headers['x-cache'], 'hit')
  t.equal((await app.inject('/api/categories')).headers['x-cache'], undefined, 'catalog-wide answers are recomputed')

  const url = `/api/services/${mine.json().id as string}`
  await app.inject(url)
  t.equal((await app.inject(url)).headers['x-cache'], 'hit')
  const patched = await app.inject({ method: 'PATCH', url, headers: { authorization: `Bearer ${API_KEY}` }, payload: { description: 'Now with hourly rain radar.' } })
  t.equal(patched.statusCode, 200)
  const after = await app.inject(url)
  t.equal(after.headers['x-cache'], undefined, 'a change to the service invalidates its detail')
  t.equal(after.json().description, 'Now with hourly rain radar.')
  t.equal((await app.inject(a)).headers['x-cache'], 'hit', 'and leaves the others cached')

  const deleted = await app.inject({ method: 'DELETE', url, headers: { authorization: `Bearer ${API_KEY}` } })
  t.equal(deleted.statusCode, 204)
  t.equal((await app.inject(url)).statusCode, 404, 'a deleted service is never answered from the cache')
})

test('followed on an interval: no store read per cached request, own writes at once, other processes\' within the bound', async (t) => {
  const dataDir = tempDataDir(t)
  const followMs = 50
  const app = await build(t, { dataDir, changeFollowMs: followMs })
  const detail = `/api/services/${((await app.inject('/api/services?limit=1')).json() as Array<{ id: string }>)[0]!.id}`
  await app.inject('/api/services?category=weather')
  await app.inject(detail)

  const store = app.store
  const latestSeq = store.latestSeq.bind(store)
  let reads = 0
  store.latestSeq = async () => { reads++; return await latestSeq() }
  const started = reads
  for (let i = 0; i < 20; i++) {
    t.equal((await app.inject('/api/services?category=weather')).headers['x-cache'], 'hit')
    t.equal((await app.inject(detail)).headers['x-cache'], 'hit')
    t.equal((await app.inject('/health')).statusCode, 200)
  }
  t.ok(reads - started <= 3, `60 cached reads and /health calls read the feed head ${reads - started} times (the follow timer's, not one per request)`)

  // A write through this process is followed before its response is sent.
  const before = Number((await app.inject('/api/services?category=weather')).headers['x-total-count'])
  const created = await register(app, validBody({ category: 'weather' }))
  t.equal(created.statusCode, 201)
  t.equal(Number((await app.inject('/api/services?category=weather')).headers['x-total-count']), before + 1, 'own registration visible on the next request')

  // Another process's write: seen once the follower's next round has run.
  const other = new SqliteCatalogStore(dataDir)
  const [extra] = seedRecords([{ ...readSeedFile('demo')[0]!, endpoint: 'https://elsewhere.example/y', category: 'weather' }], new Date().toISOString())
  const written = Date.now()
  await other.insertServices([extra!])
  await other.close()
  let seenAfter = -1
  while (Date.now() - written < 5000) {
    if (Number((await app.inject('/api/services?category=weather')).headers['x-total-count']) === before + 2) { seenAfter = Date.now() - written; break }
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  t.ok(seenAfter >= 0, `another process's registration is seen (after ${seenAfter} ms; documented bound: the ${followMs} ms interval plus one feed read)`)
  const health = (await app.inject('/health')).json()
  t.equal(health.search.checkpoint + health.search.lag, app.catalogChanges.seq, '/health lag is measured against the followed head')
})

test('a backlog too long to read change by change (a bulk import) invalidates every detail page once', async (t) => {
  const dataDir = tempDataDir(t)
  const app = await build(t, { dataDir })
  const detail = `/api/services/${((await app.inject('/api/services?limit=1')).json() as Array<{ id: string }>)[0]!.id}`
  await app.inject(detail)
  t.equal((await app.inject(detail)).headers['x-cache'], 'hit')
  const template = readSeedFile('demo')[0]!
  const other = new SqliteCatalogStore(dataDir)
  await other.insertServices(seedRecords(Array.from({ length: MAX_FOLLOWED_CHANGES + 1 }, (_, i) => ({ ...template, endpoint: `https://bulk.example/${i}` })), new Date().toISOString()))
  await other.close()
  t.equal((await app.inject(detail)).headers['x-cache'], undefined, 'recomputed: the backlog was not read service by service')
  t.equal((await app.inject(detail)).headers['x-cache'], 'hit', 'and cached again')
})

test('a kept answer is held in memory of its own size, whatever buffer it came in', async (t) => {
  const big = Buffer.from('x'.repeat(1000) + '{"ok":"日本語"}' + 'y'.repeat(1000))
  const cases: Array<[string, string | Buffer, string]> = [
    ['a short string (Buffer.from slices the shared pool)', '{"answer":"短い"}', '{"answer":"短い"}'],
    ['a slice of a larger buffer (a search answer cut from its worst-case size)', big.subarray(1000, 1000 + Buffer.byteLength('{"ok":"日本語"}')), '{"ok":"日本語"}'],
    ['a long string', 'z'.repeat(10_000), 'z'.repeat(10_000)]
  ]
  for (const [why, payload, text] of cases) {
    const kept = ownBytes(payload)
    t.equal(kept.toString(), text, `${why}: the same bytes`)
    t.equal(kept.buffer.byteLength, kept.byteLength, `${why}: no more memory than its length`)
  }
  const own = Buffer.allocUnsafeSlow(4)
  t.equal(ownBytes(own), own, 'a buffer already its own is kept as it is')
})
