/**
 * Which stored payments a service's usage figures count (attribution), and the figures
 * themselves. Store-neutral: the caller hands in the services sharing the payTo and a
 * function that summarizes payments (CatalogStore.summarizePayments), so the rule lives here
 * once and the status route, the payments route and the chain watcher's refresh agree.
 *
 * Attribution (docs/api.md, "Status, trust score and usage"): a payment belongs to the service listed
 * with its (network, payTo). When several services share that pair, a payment whose amount
 * is the price of exactly one of them belongs to that one; any other payment (an amount no
 * sharer charges, or a price two sharers charge) is ambiguous. While the pair has no
 * ambiguous payment, each sharer counts the payments of its own price (scope 'service');
 * once it has one, every sharer reports the whole payTo's figures (scope 'shared'). A sharer
 * whose price is dynamic may be paid any amount: beside one, every payment is ambiguous.
 */
import { payToKey } from './pay-to.js'
import type { PaymentFilter, PaymentSummary, ServiceUsage } from './payment.js'
import type { ServiceRecord } from './service.js'

/** The usage figures' recent window. */
export const USAGE_WINDOW_MS = 30 * 24 * 60 * 60 * 1000

/** What attribution reads of a service. */
export type UsageSubject = Pick<ServiceRecord, 'id' | 'network' | 'paymentAddress' | 'priceAtomic'>

export type SummarizePayments = (filter: PaymentFilter) => Promise<PaymentSummary>

/** The payments counted for a service (without a time bound) and how far they are its own. */
export interface Attribution {
  scope: ServiceUsage['scope']
  filter: PaymentFilter
}

/** Prices (atomic, as payment amounts are written) charged by exactly one of the sharers. */
export function distinctPrices (sharers: readonly UsageSubject[]): string[] {
  const counts = new Map<string, number>()
  for (const sharer of sharers) {
    if (sharer.priceAtomic === null) continue
    const price = String(sharer.priceAtomic)
    counts.set(price, (counts.get(price) ?? 0) + 1)
  }
  return [...counts].filter(([, n]) => n === 1).map(([price]) => price).sort()
}

/**
 * `sharers`: the services listed with the subject's (network, payTo), the subject among them
 * (CatalogStore.servicesByPayTo). A subject missing from them is counted as one more sharer,
 * so a caller holding a fresher record than the store still gets the rule's answer.
 */
export async function attributeUsage (service: UsageSubject, sharers: readonly UsageSubject[], summarize: SummarizePayments): Promise<Attribution> {
  const payTo: PaymentFilter = { network: service.network, payTo: payToKey(service.paymentAddress) }
  const all = sharers.some((s) => s.id === service.id) ? sharers : [...sharers, service]
  if (all.length <= 1) return { scope: 'service', filter: payTo }
  if (all.some((s) => s.priceAtomic === null)) return { scope: 'shared', filter: payTo }
  const distinct = distinctPrices(all)
  // One count over the indexed (network, payTo) rows decides the scope for every window.
  const ambiguous = await summarize({ ...payTo, excludeAmounts: distinct })
  if (ambiguous.count > 0) return { scope: 'shared', filter: payTo }
  // No ambiguous payment: a sharer with a price another sharer charges too has none of its own.
  return { scope: 'service', filter: { ...payTo, amount: String(service.priceAtomic as number) } }
}

/** The service's usage figures at `now`: all-time and over the last 30 days. */
export async function computeUsage (service: UsageSubject, sharers: readonly UsageSubject[], summarize: SummarizePayments, now: Date): Promise<ServiceUsage> {
  const { scope, filter } = await attributeUsage(service, sharers, summarize)
  const since = new Date(now.getTime() - USAGE_WINDOW_MS).toISOString()
  const [all, recent] = await Promise.all([summarize(filter), summarize({ ...filter, since })])
  return {
    txCount: all.count,
    revenueAtomic: all.totalAtomic,
    uniquePayers: all.uniquePayers,
    lastPaymentAt: all.lastAt,
    txCount30d: recent.count,
    revenue30dAtomic: recent.totalAtomic,
    uniquePayers30d: recent.uniquePayers,
    scope,
    computedAt: now.toISOString()
  }
}

/** Network families a chain watcher exists for: a Solana service's figures are not measured yet. */
const WATCHABLE_FAMILIES = ['eip155:']

/**
 * Where a service's figures come from: 'chain' when its network is watched, 'none' otherwise,
 * so an unmeasured 0 never looks measured.
 */
export function revenueSourceOf (network: string, watched: ReadonlySet<string>): 'chain' | 'none' {
  return watched.has(network) && WATCHABLE_FAMILIES.some((family) => network.startsWith(family)) ? 'chain' : 'none'
}
