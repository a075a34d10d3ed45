import { test } from 'tap'
import type { PaymentFilter, PaymentSummary } from '../../src/domain/payment.js'
import { attributeUsage, computeUsage, distinctPrices, revenueSourceOf, type UsageSubject } from '../../src/domain/usage.js'

const NETWORK = 'eip155:8453'
const PAY_TO = '0xAbCdEf0000000000000000000000000000000001'
const NOW = new Date('2026-03-01T00:00:00.000Z')
const DAY = 24 * 60 * 60 * 1000

interface Paid { payer: string, amount: string, at: string, payTo?: string, network?: string }

/** summarizePayments over an array, as the port documents it. */
function summarizer (payments: readonly Paid[]): (filter: PaymentFilter) => Promise<PaymentSummary> {
  return async (filter) => {
    const matching = payments.filter((p) => (p.network ?? NETWORK) === filter.network && (p.payTo ?? PAY_TO.toLowerCase()) === filter.payTo &&
      (filter.since === undefined || p.at >= filter.since) && (filter.amount === undefined || p.amount === filter.amount) &&
      !(filter.excludeAmounts ?? []).includes(p.amount))
    return {
      count: matching.length,
      totalAtomic: String(matching.reduce((sum, p) => sum + BigInt(p.amount), 0n)),
      uniquePayers: new Set(matching.map((p) => p.payer)).size,
      lastAt: matching.map((p) => p.at).sort().at(-1) ?? null
    }
  }
}

const service = (id: string, priceAtomic: number): UsageSubject => ({ id, network: NETWORK, paymentAddress: PAY_TO, priceAtomic })
const daysAgo = (n: number): string => new Date(NOW.getTime() - n * DAY).toISOString()

test('a payTo listed once: every payment of it is the service\'s, all-time and over 30 days', async (t) => {
  const a = service('svc_a', 1000)
  const payments: Paid[] = [
    { payer: '0x01', amount: '1000', at: daysAgo(40) },
    { payer: '0x01', amount: '1000', at: daysAgo(3) },
    { payer: '0x02', amount: '2500', at: daysAgo(1) }
  ]
  const usage = await computeUsage(a, [a], summarizer(payments), NOW)
  t.same(usage, {
    txCount: 3,
    revenueAtomic: '4500',
    uniquePayers: 2,
    lastPaymentAt: daysAgo(1),
    txCount30d: 2,
    revenue30dAtomic: '3500',
    uniquePayers30d: 2,
    scope: 'service',
    computedAt: NOW.toISOString()
  }, 'an amount other than the price still counts: the payTo is the service\'s alone')
  t.equal((await computeUsage(a, [], summarizer(payments), NOW)).txCount, 3, 'a subject missing from the sharers counts as listed')
})

test('no payments: zeros and no last payment', async (t) => {
  const a = service('svc_a', 1000)
  const usage = await computeUsage(a, [a], summarizer([]), NOW)
  t.same({ ...usage, computedAt: undefined }, {
    txCount: 0, revenueAtomic: '0', uniquePayers: 0, lastPaymentAt: null, txCount30d: 0, revenue30dAtomic: '0', uniquePayers30d: 0, scope: 'service', computedAt: undefined
  })
})

test('a shared payTo with distinct prices: each sharer counts the payments of its price', async (t) => {
  const a = service('svc_a', 1000)
  const b = service('svc_b', 2000)
  const payments: Paid[] = [
    { payer: '0x01', amount: '1000', at: daysAgo(2) },
    { payer: '0x02', amount: '1000', at: daysAgo(1) },
    { payer: '0x01', amount: '2000', at: daysAgo(5) }
  ]
  const ua = await computeUsage(a, [a, b], summarizer(payments), NOW)
  const ub = await computeUsage(b, [a, b], summarizer(payments), NOW)
  t.match(ua, { txCount: 2, revenueAtomic: '2000', uniquePayers: 2, scope: 'service', lastPaymentAt: daysAgo(1) })
  t.match(ub, { txCount: 1, revenueAtomic: '2000', uniquePayers: 1, scope: 'service', lastPaymentAt: daysAgo(5) })
})

test('one ambiguous payment makes every sharer report the payTo\'s figures, scope shared', async (t) => {
  const a = service('svc_a', 1000)
  const b = service('svc_b', 2000)
  const payments: Paid[] = [
    { payer: '0x01', amount: '1000', at: daysAgo(2) },
    { payer: '0x02', amount: '2000', at: daysAgo(1) },
    { payer: '0x03', amount: '3000', at: daysAgo(60) }
  ]
  for (const subject of [a, b]) {
    t.match(await computeUsage(subject, [a, b], summarizer(payments), NOW),
      { txCount: 3, revenueAtomic: '6000', uniquePayers: 3, txCount30d: 2, revenue30dAtomic: '3000', scope: 'shared' },
      `${subject.id}: an amount nobody charges, even outside the 30 days, cannot be told apart`)
  }
})

test('sharers with the same price: their payments are ambiguous; a sharer with its own price is not, until then', async (t) => {
  const a = service('svc_a', 1000)
  const b = service('svc_b', 1000)
  const c = service('svc_c', 5000)
  t.same(distinctPrices([a, b, c]), ['5000'])
  const onlyC: Paid[] = [{ payer: '0x09', amount: '5000', at: daysAgo(1) }]
  t.match(await computeUsage(c, [a, b, c], summarizer(onlyC), NOW), { txCount: 1, scope: 'service' })
  t.match(await computeUsage(a, [a, b, c], summarizer(onlyC), NOW), { txCount: 0, scope: 'service' },
    'no payment could be a\'s: its exact figure is 0, and c\'s payments are not shown as its')
  const withA = [...onlyC, { payer: '0x01', amount: '1000', at: daysAgo(1) }]
  for (const subject of [a, b, c]) {
    t.match(await computeUsage(subject, [a, b, c], summarizer(withA), NOW), { txCount: 2, revenueAtomic: '6000', scope: 'shared' },
      `${subject.id}: a payment of a price two sharers charge belongs to neither alone`)
  }
})

test('a sharer with a dynamic price may be paid any amount: every sharer reports the payTo\'s figures', async (t) => {
  const fixed = service('svc_a', 1000)
  const dynamic = { ...service('svc_d', 1000), priceAtomic: null }
  const paid: Paid[] = [{ payer: '0x01', amount: '1000', at: daysAgo(1) }, { payer: '0x02', amount: '7777', at: daysAgo(2) }]
  t.same(distinctPrices([fixed, dynamic]), ['1000'], 'a dynamic price is no price of its own')
  for (const subject of [fixed, dynamic]) {
    t.match(await computeUsage(subject, [fixed, dynamic], summarizer(paid), NOW), { txCount: 2, revenueAtomic: '8777', scope: 'shared' }, subject.id)
  }
  t.match(await computeUsage(dynamic, [dynamic], summarizer(paid), NOW), { txCount: 2, scope: 'service' }, 'alone with its payTo, every payment is its')
})

test('attribution names the payments counted: the payTo compares as payToKey', async (t) => {
  const a = service('svc_a', 1000)
  const b = service('svc_b', 2000)
  t.same(await attributeUsage(a, [a], summarizer([])), { scope: 'service', filter: { network: NETWORK, payTo: PAY_TO.toLowerCase() } })
  t.same(await attributeUsage(a, [a, b], summarizer([])), { scope: 'service', filter: { network: NETWORK, payTo: PAY_TO.toLowerCase(), amount: '1000' } })
  const solana = { id: 'svc_s', network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', paymentAddress: 'So1anaCaseMatters111111111111111111111111111', priceAtomic: 1 }
  t.equal((await attributeUsage(solana, [solana], summarizer([]))).filter.payTo, solana.paymentAddress, 'base58 keeps its case')
})

test('amounts beyond 2^53 add up exactly', async (t) => {
  const a = service('svc_a', 1000)
  const big = '9007199254740993'
  const usage = await computeUsage(a, [a], summarizer([{ payer: '0x01', amount: big, at: daysAgo(1) }, { payer: '0x01', amount: big, at: daysAgo(1) }]), NOW)
  t.equal(usage.revenueAtomic, '18014398509481986')
})

test('revenueSource: chain only for a watched network of a family a watcher exists for', async (t) => {
  const watched = new Set(['eip155:8453', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'])
  t.equal(revenueSourceOf('eip155:8453', watched), 'chain')
  t.equal(revenueSourceOf('eip155:84532', watched), 'none', 'not watched')
  t.equal(revenueSourceOf('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', watched), 'none', 'Solana settlements are not read yet')
  t.equal(revenueSourceOf('eip155:8453', new Set()), 'none', 'nothing configured')
})
