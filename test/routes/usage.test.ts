/**
 * Usage figures as the API shows them, from payments stored the way the chain watcher stores
 * them (CatalogStore.commitChainScan): /status, /payments, attribution on a shared payTo,
 * revenueSource, the stored figures behind trust, export and the Bazaar.
 */
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { HTTPFacilitatorClient } from '@x402/core/http'
import { ResourceInfoSchema } from '@x402/core/schemas'
import { withBazaar } from '@x402/extensions/bazaar'
import type { PaymentRecord } from '../../src/domain/payment.js'
import { refreshUsage } from '../../src/application/usage.js'
import { API_KEY, build, register, validBody } from '../helper.js'

const BASE = 'eip155:8453'
const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
const PAY_TO = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01'
const DAY = 24 * 60 * 60 * 1000

let block = 1000
/** A payment to PAY_TO on Base `daysAgo` days ago, each in a new block. */
function payment (payer: string, amount: string, daysAgo: number, overrides: Partial<PaymentRecord> = {}): PaymentRecord {
  block += 1
  return {
    network: BASE,
    txHash: `0x${block.toString(16).padStart(64, '0')}`,
    logIndex: block % 7,
    blockNumber: block,
    blockHash: `0x${block.toString(16).padStart(64, 'f')}`,
    at: new Date(Date.now() - daysAgo * DAY).toISOString(),
    payer: `0x${payer.repeat(40).slice(0, 40)}`,
    payTo: PAY_TO.toLowerCase(),
    amount,
    serviceId: null,
    ...overrides
  }
}

async function registered (app: FastifyInstance, price: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await register(app, validBody({ pricing: { currency: 'USDC', pricePerRequest: price }, x402Config: { paymentAddress: PAY_TO, network: 'base' }, ...overrides }))
  if (res.statusCode !== 201) throw new Error(`registration failed: ${res.body}`)
  return res.json().id as string
}

const statusOf = async (app: FastifyInstance, id: string): Promise<Record<string, unknown>> => (await app.inject(`/api/services/${id}/status`)).json()

test('N payments give exact figures: calls, revenue in USDC, distinct payers, the last payment and 30 days', async (t) => {
  const app = await build(t, { seed: 'none' }, { chainNetworks: [BASE] })
  const id = await registered(app, '0.001')
  const before = await statusOf(app, id)
  t.match(before, { txCount: 0, totalRevenue: 0, uniquePayers: 0, lastPaymentAt: null, revenueSource: 'chain', revenueScope: 'service' }, 'watched, nothing paid yet: a measured 0')
  const payments = [
    payment('1', '1000', 40),
    payment('1', '1000', 3),
    payment('2', '1000', 2),
    payment('3', '2500', 1),
    payment('2', '1000', 0.5)
  ]
  t.equal(await app.store.commitChainScan(BASE, { payments }), 5)
  // Not this service's: another payTo, and the same payTo on another network.
  await app.store.commitChainScan(BASE, { payments: [payment('4', '1000', 1, { payTo: '0x9999999999999999999999999999999999999999' })] })
  await app.store.commitChainScan('eip155:84532', { payments: [payment('5', '1000', 1, { network: 'eip155:84532' })] })

  const status = await statusOf(app, id)
  t.match(status, {
    txCount: 5,
    totalRevenue: 0.0065,
    uniquePayers: 3,
    lastPaymentAt: payments[4]?.at,
    txCount30d: 4,
    revenue30d: 0.0055,
    uniquePayers30d: 3,
    revenueSource: 'chain',
    revenueScope: 'service'
  })
  t.equal(typeof status.totalRevenue, 'number', 'a JSON number')
  t.equal((await app.store.getService(id))?.usage, null, 'the status computes fresh; stored figures wait for a refresh')
})

test('/payments: newest first, paged with X-Total-Count, amounts in USDC; 400 names a bad field, 404 for no service', async (t) => {
  const app = await build(t, { seed: 'none' }, { chainNetworks: [BASE] })
  const id = await registered(app, '0.001')
  const payments = [payment('1', '1000', 3), payment('2', '1234567', 2), payment('3', '9007199254740993', 1)]
  await app.store.commitChainScan(BASE, { payments })
  const all = await app.inject(`/api/services/${id}/payments`)
  t.equal(all.statusCode, 200)
  t.equal(all.headers['x-total-count'], '3')
  const newest = payments[2] as PaymentRecord
  t.same(all.json()[0], {
    txHash: newest.txHash, logIndex: newest.logIndex, blockNumber: newest.blockNumber, at: newest.at, payer: newest.payer, amount: '9007199254.740993', network: BASE
  }, 'each payment names what a block explorer needs; an amount past 2^53 atomic units stays exact')
  t.same(all.json().map((p: { amount: string }) => p.amount), ['9007199254.740993', '1.234567', '0.001'], 'newest first')
  const page = await app.inject(`/api/services/${id}/payments?limit=1&offset=1`)
  t.same([page.json().map((p: { txHash: string }) => p.txHash), page.headers['x-total-count']], [[payments[1]?.txHash], '3'])
  t.same((await app.inject(`/api/services/${id}/payments?offset=3`)).json(), [], 'past the end: empty')
  for (const query of ['limit=0', 'limit=abc', 'offset=-1', 'since=2026']) {
    const bad = await app.inject(`/api/services/${id}/payments?${query}`)
    t.equal(bad.statusCode, 400, query)
    t.match(bad.json(), { code: 'VALIDATION_ERROR', field: query.split('=')[0] }, `${query}: names the field`)
  }
  for (const missing of ['svc_aaaaaaaaaaaaaaaaaaaaaaaa', 'nope']) {
    const res = await app.inject(`/api/services/${missing}/payments`)
    t.equal(res.statusCode, 404)
    t.equal(res.json().code, 'NOT_FOUND')
  }
})

test('a shared payTo: payments go to the one sharer whose price they pay, until one cannot be told apart', async (t) => {
  const app = await build(t, { seed: 'none' }, { chainNetworks: [BASE] })
  const cheap = await registered(app, '0.001')
  const dear = await registered(app, '0.002', { x402Config: { paymentAddress: PAY_TO.toLowerCase(), network: 'eip155:8453' } })
  await app.store.commitChainScan(BASE, { payments: [payment('1', '1000', 2), payment('2', '1000', 1), payment('3', '2000', 1)] })
  t.match(await statusOf(app, cheap), { txCount: 2, totalRevenue: 0.002, uniquePayers: 2, revenueScope: 'service' }, 'the payTo in another case is the same payTo')
  t.match(await statusOf(app, dear), { txCount: 1, totalRevenue: 0.002, uniquePayers: 1, revenueScope: 'service' })
  const cheapPayments = await app.inject(`/api/services/${cheap}/payments`)
  t.same([cheapPayments.headers['x-total-count'], cheapPayments.json().map((p: { amount: string }) => p.amount)], ['2', ['0.001', '0.001']], 'only the payments of its price')

  await app.store.commitChainScan(BASE, { payments: [payment('4', '3000', 0.5)] })
  for (const id of [cheap, dear]) {
    t.match(await statusOf(app, id), { txCount: 4, totalRevenue: 0.007, uniquePayers: 4, revenueScope: 'shared' }, 'an amount neither charges: both report the payTo\'s figures')
    t.equal((await app.inject(`/api/services/${id}/payments`)).headers['x-total-count'], '4', 'and list all of its payments')
  }
})

test('revenueSource is none for a network nobody watches and for Solana services', async (t) => {
  const app = await build(t, { seed: 'none' }, { chainNetworks: [BASE, SOLANA] })
  const sepolia = await registered(app, '0.001', { x402Config: { paymentAddress: PAY_TO, network: 'base-sepolia' } })
  const solana = await registered(app, '0.001', { x402Config: { paymentAddress: 'So11111111111111111111111111111111111111112', network: 'solana' } })
  t.match(await statusOf(app, sepolia), { revenueSource: 'none', txCount: 0 })
  t.match(await statusOf(app, solana), { revenueSource: 'none', txCount: 0 }, 'no Solana watcher yet, whatever is configured')
  const unwatched = await build(t, { seed: 'none' })
  const base = await registered(unwatched, '0.001')
  t.match(await statusOf(unwatched, base), { revenueSource: 'none' }, 'nothing watched by default')
})

test('refreshUsage stores the figures: trust, lists, export and the official Bazaar client follow', async (t) => {
  const app = await build(t, { seed: 'none' }, { chainNetworks: [BASE] })
  const paid = await registered(app, '0.001')
  const unpaid = await registered(app, '0.001', { x402Config: { paymentAddress: '0x1111111111111111111111111111111111111111', network: 'base' } })
  await app.store.commitChainScan(BASE, { payments: [payment('1', '1000', 40), payment('1', '1000', 2), payment('2', '1000', 1)] })
  const trustBefore = (await app.store.getService(paid))?.trustScore ?? 0

  const stored = await refreshUsage(app.store, BASE, PAY_TO.toUpperCase().replace(/^0X/, '0x'), new Date())
  t.same(stored.map((r) => r.id), [paid], 'every service listed with the payTo, named in any case')
  const record = await app.store.getService(paid)
  t.match(record?.usage, { txCount: 3, uniquePayers: 2, txCount30d: 2, uniquePayers30d: 2, scope: 'service' })
  t.ok((record?.trustScore ?? 0) > trustBefore, 'measured payers raise the trust score')
  app.searchIndex.indexer.notify()
  await app.searchReady()

  const listed = (await app.inject('/api/services?sortBy=trustScore')).json()
  t.equal(listed[0].id, paid, 'sorting by trust sees it')
  const exported = (await app.inject('/api/export')).json().items as Array<{ metadata: { id: string }, quality?: unknown, resource: string }>
  const item = exported.find((i) => i.metadata.id === paid)
  t.same(item?.quality, { l30DaysTotalCalls: 2, l30DaysUniquePayers: 2, lastCalledAt: record?.usage?.lastPaymentAt }, 'Coinbase discovery field names, 30-day figures')
  t.ok(ResourceInfoSchema.safeParse({ url: item?.resource, ...item }).success, 'the item still passes @x402/core ResourceInfoSchema')
  t.notOk('quality' in (exported.find((i) => i.metadata.id === unpaid) ?? {}), 'never measured: no quality rather than a 0 that looks measured')

  await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const bazaar = withBazaar(new HTTPFacilitatorClient({ url })).extensions.bazaar
  const resources = await bazaar.listResources({ payTo: PAY_TO })
  t.same((resources.items[0] as unknown as { quality: unknown }).quality, item?.quality, 'listResources carries quality')
  const found = await bazaar.search({ query: 'weather' })
  t.same(found.resources.map((r) => (r as unknown as { quality?: unknown }).quality), [item?.quality, undefined], 'search too, most trusted first')
})

test('a registration on a paid payTo re-attributes its payments; a deletion gives them back', async (t) => {
  const app = await build(t, { seed: 'none' }, { chainNetworks: [BASE] })
  const first = await registered(app, '0.001')
  await app.store.commitChainScan(BASE, { payments: [payment('1', '1000', 1), payment('2', '1000', 1)] })
  await refreshUsage(app.store, BASE, PAY_TO, new Date())
  t.match((await app.store.getService(first))?.usage, { txCount: 2, scope: 'service' })

  const second = await registered(app, '0.001')
  t.match((await app.store.getService(first))?.usage, { txCount: 2, scope: 'shared' }, 'same price on the same payTo: no longer its own')
  t.match((await app.store.getService(second))?.usage, { txCount: 2, scope: 'shared' }, 'the newcomer shows the payTo\'s figures at once')
  const patched = await app.inject({ method: 'PATCH', url: `/api/services/${second}`, headers: { authorization: `Bearer ${API_KEY}` }, payload: { pricing: { pricePerRequest: '0.005' } } })
  t.equal(patched.statusCode, 200)
  t.match((await app.store.getService(first))?.usage, { txCount: 2, scope: 'service' }, 'a price change tells them apart again')
  t.match((await app.store.getService(second))?.usage, { txCount: 0, scope: 'service' })

  const moved = await app.inject({ method: 'PATCH', url: `/api/services/${first}`, headers: { authorization: `Bearer ${API_KEY}` }, payload: { x402Config: { paymentAddress: '0x1111111111111111111111111111111111111111' } } })
  t.equal(moved.statusCode, 200)
  t.match((await app.store.getService(first))?.usage, { txCount: 0 }, 'a service that left the payTo keeps none of its figures')
  t.match((await app.store.getService(second))?.usage, { txCount: 2, scope: 'service' }, 'the one left on it has them all')
  const deleted = await app.inject({ method: 'DELETE', url: `/api/services/${second}`, headers: { authorization: `Bearer ${API_KEY}` } })
  t.equal(deleted.statusCode, 204)
  t.equal((await app.inject(`/api/services/${second}/payments`)).statusCode, 404)
})
