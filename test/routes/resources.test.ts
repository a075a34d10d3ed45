import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'tap'
import { CATEGORIES } from '../../src/domain/categories.js'
import { readSeedFile, seedRecords } from '../../src/domain/seed.js'
import { build, register, tempDataDir, validBody } from '../helper.js'

const demo = readSeedFile('demo')

test('the demo catalog is realistic and bilingual', async (t) => {
  t.ok(demo.length >= 40)
  const japanese = demo.filter((s) => /[\u3040-\u30ff\u4e00-\u9fff]/.test(s.description)).length
  t.ok(japanese >= demo.length * 0.4 && japanese <= demo.length * 0.6, 'about half Japanese')
  t.ok(new Set(demo.map((s) => s.category)).size >= 15, 'spread across categories')
  t.ok(new Set(demo.map((s) => s.pricing.pricePerRequest)).size >= 10, 'varied prices')
  t.ok(new Set(demo.map((s) => s.x402Config.network)).size >= 5, 'varied networks')
  const records = seedRecords(demo, '2026-01-01T00:00:00.000Z')
  t.same(seedRecords(demo, '2026-01-01T00:00:00.000Z').map((r) => r.id), records.map((r) => r.id), 'seeded ids are stable')
})

test('the demo catalog starts as fresh registrations do: unverified, never checked, no uptime, no usage', async (t) => {
  const measured = ['status', 'uptimeScore', 'lastChecked', 'trustScore', 'usage']
  t.same(demo.flatMap((entry) => measured.filter((key) => key in entry)), [], 'the fixture holds no figure a probe or a payment would measure')
  const app = await build(t)
  const services = (await app.inject('/api/services?limit=100&testnet=include')).json() as Array<{ id: string, status: string, trustScore: number }>
  t.equal(services.length, demo.length)
  for (const service of services) {
    t.match(service, { status: 'unverified', trustScore: 10 }, `${service.id} is unverified, trust 10 (a new registration's)`)
    const status = (await app.inject(`/api/services/${service.id}/status`)).json()
    t.match(status, { status: 'unverified', uptimeScore: null, lastChecked: null, lastProbe: null, txCount: 0, revenueSource: 'none' }, `${service.id}: never checked, no uptime, nothing measured`)
    t.same((await app.inject(`/api/services/${service.id}/probes`)).json(), [], `${service.id}: no probe recorded`)
  }
})

test('detail, status and probes: 200 for known ids, 404 JSON for any id no service has, whatever its shape', async (t) => {
  const app = await build(t)
  const [first] = (await app.inject('/api/services?limit=1')).json()
  const detail = await app.inject(`/api/services/${first.id as string}`)
  t.equal(detail.statusCode, 200)
  t.same(detail.json(), { ...first, callSchema: null, retired: null, sources: [], ownershipProof: null }, 'the list\'s service, how to call it (none declared here), no retirement, no source, no ownership proof')
  const status = (await app.inject(`/api/services/${first.id as string}/status`)).json()
  t.equal(status.id, first.id)
  t.equal(status.trustScore, first.trustScore)
  t.equal(status.status, first.status)
  t.ok(status.uptimeScore === null || typeof status.uptimeScore === 'number', 'an uptime, or null when nothing measured one')
  t.same({ ...status, id: undefined, trustScore: undefined, status: undefined, uptimeScore: undefined, lastChecked: undefined, lastProbe: undefined }, {
    txCount: 0,
    totalRevenue: 0,
    uniquePayers: 0,
    lastPaymentAt: null,
    txCount30d: 0,
    revenue30d: 0,
    uniquePayers30d: 0,
    revenueSource: 'none',
    revenueScope: 'service',
    retired: null
  }, 'no payments and no watched network: zeros that say they are unmeasured, never invented figures')

  for (const id of ['svc_aaaaaaaaaaaaaaaaaaaaaaaa', 'nope', 'svc_%00', '%00', 'svc_AAAAAAAAAAAAAAAAAAAAAAAA', `svc_${'a'.repeat(300)}`, '%F0%9F%98%80', 'svc_aaaaaaaaaaaaaaaaaaaaaaaa%20']) {
    for (const suffix of ['', '/status', '/probes', '/payments']) {
      const url = `/api/services/${id}${suffix}`
      const missing = await app.inject(url)
      t.equal(missing.statusCode, 404, `${url.slice(0, 60)} is a 404`)
      t.equal(missing.json().code, 'NOT_FOUND')
      t.same(Object.keys(missing.json()).sort(), ['code', 'error', 'message', 'statusCode'])
    }
  }
})

test('categories: bilingual taxonomy with live counts', async (t) => {
  const app = await build(t, { seed: 'none' })
  const before = (await app.inject('/api/categories')).json()
  t.equal(before.length, CATEGORIES.length)
  for (const category of before) {
    t.match(category, { id: String, name: String, nameJa: /[\u3040-\u30ff\u4e00-\u9fff]/, description: String, count: 0 })
  }
  await register(app, validBody({ category: 'weather' }))
  await register(app, validBody({ category: 'weather' }))
  const after = (await app.inject('/api/categories')).json()
  t.equal(after.find((c: { id: string }) => c.id === 'weather').count, 2)
  t.equal(after.find((c: { id: string }) => c.id === 'finance').count, 0)
})

test('health: 200 with the store state, 503 when the store is unusable', async (t) => {
  const app = await build(t)
  const ok = await app.inject('/health')
  t.equal(ok.statusCode, 200)
  t.match(ok.json(), { status: 'ok', store: { status: 'ok', services: demo.length } })
  await app.store.close()
  const down = await app.inject('/health')
  t.equal(down.statusCode, 503)
  t.match(down.json(), { status: 'error', store: { status: 'error' } })
})

test('OpenAPI 3.1 from the schemas, and a docs UI', async (t) => {
  const app = await build(t, { seed: 'none' })
  const spec = (await app.inject('/openapi.json')).json()
  t.equal(spec.openapi, '3.1.0')
  for (const path of ['/api/services', '/api/services/{id}', '/api/services/{id}/status', '/api/services/{id}/payments', '/api/categories', '/health', '/api/catalog/search', '/api/services/search/intent']) {
    t.ok(spec.paths[path], `documents ${path}`)
  }
  const post = spec.paths['/api/services'].post
  t.ok(post.requestBody.content['application/json'].schema.properties.pricing, 'registration body schema is published')
  t.same(post.security, [{ bearerAuth: [] }])
  const params = spec.paths['/api/services'].get.parameters.map((p: { name: string }) => p.name)
  t.same(params.sort(), ['category', 'chain', 'network', 'limit', 'maxPricePerRequest', 'offset', 'query', 'sortBy', 'sortOrder', 'status', 'testnet'].sort())
  const docs = await app.inject('/docs/')
  t.equal(docs.statusCode, 200)
  t.match(docs.headers['content-type'], /html/)
})

test('unknown routes answer the JSON error shape', async (t) => {
  const app = await build(t, { seed: 'none' })
  const res = await app.inject('/api/nothing-here')
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'NOT_FOUND')
})

test('CATALOG_SEED=none starts empty; a file path seeds from that file', async (t) => {
  const empty = await build(t, { seed: 'none' })
  t.equal(await empty.store.countServices(), 0)
  const file = join(tempDataDir(t), 'two.json')
  writeFileSync(file, JSON.stringify(demo.slice(0, 2)))
  const seeded = await build(t, { seed: file })
  t.equal(await seeded.store.countServices(), 2)
  const broken = join(tempDataDir(t), 'broken.json')
  writeFileSync(broken, JSON.stringify([{ ...demo[0], category: 'astrology' }]))
  await t.rejects(build(t, { seed: broken }), { code: 'CONFIG_ERROR', message: `CATALOG_SEED ${broken}: item 0 (category): unknown category "astrology"` }, 'a broken seed fails loudly, naming file, item and field')
})
