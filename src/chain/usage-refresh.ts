/**
 * Recomputes the usage figures of the services listed with one (network, payTo) from its
 * stored payments. The simple rule: one service gets all the payTo's payments; several
 * sharing it each report the payTo's totals with scope "shared". A refinement (attribution by
 * price, src/domain/usage.ts) plugs in through the watcher's `refreshUsage` option.
 */
import type { ServiceUsage } from '../domain/payment.js'
import type { CatalogStore } from '../store/catalog-store.js'

export type RefreshUsage = (store: CatalogStore, network: string, payTo: string, now: Date) => Promise<void>

const DAY_MS = 24 * 3600 * 1000

export const refreshUsage: RefreshUsage = async (store, network, payTo, now) => {
  const services = await store.servicesByPayTo(network, payTo)
  if (services.length === 0) return
  const since = new Date(now.getTime() - 30 * DAY_MS).toISOString()
  const [all, recent] = await Promise.all([
    store.summarizePayments({ network, payTo }),
    store.summarizePayments({ network, payTo, since })
  ])
  const usage: ServiceUsage = {
    txCount: all.count,
    revenueAtomic: all.totalAtomic,
    uniquePayers: all.uniquePayers,
    lastPaymentAt: all.lastAt,
    txCount30d: recent.count,
    revenue30dAtomic: recent.totalAtomic,
    uniquePayers30d: recent.uniquePayers,
    scope: services.length > 1 ? 'shared' : 'service',
    computedAt: now.toISOString()
  }
  for (const service of services) await store.recordUsage(service.id, usage)
}
