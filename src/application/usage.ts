/**
 * The usage rule (src/domain/usage.ts) over a CatalogStore: figures computed fresh for the
 * status route, a service's attributed payments for the payments route, and refreshUsage,
 * which stores new figures on every service sharing a (network, payTo). The chain watcher
 * calls refreshUsage after it stores or deletes payments of that payTo; the routes call it
 * after a write that changes who shares a payTo or at what price.
 */
import { payToKey } from '../domain/pay-to.js'
import type { PaymentPage, ServiceUsage } from '../domain/payment.js'
import type { ServiceRecord } from '../domain/service.js'
import { attributeUsage, computeUsage, type Attribution } from '../domain/usage.js'
import type { Page } from '../domain/catalog-query.js'
import type { CatalogStore } from '../store/catalog-store.js'

type UsageStore = Pick<CatalogStore, 'servicesByPayTo' | 'summarizePayments' | 'listPayments' | 'recordUsage'>

const summarizer = (store: UsageStore) => store.summarizePayments.bind(store)

/** The service's usage figures from the payments stored now (not the figures kept on the record). */
export async function currentUsage (store: UsageStore, record: ServiceRecord, now: Date): Promise<ServiceUsage> {
  const sharers = await store.servicesByPayTo(record.network, record.paymentAddress)
  return await computeUsage(record, sharers, summarizer(store), now)
}

/** How the service's payments are attributed now (which payments its figures count). */
export async function currentAttribution (store: UsageStore, record: ServiceRecord): Promise<Attribution> {
  const sharers = await store.servicesByPayTo(record.network, record.paymentAddress)
  return await attributeUsage(record, sharers, summarizer(store))
}

/** The payments the service's figures count, newest first. */
export async function attributedPayments (store: UsageStore, record: ServiceRecord, page: Page): Promise<PaymentPage> {
  const { filter } = await currentAttribution(store, record)
  return await store.listPayments(filter, page)
}

/**
 * Recomputes and stores (recordUsage: trust score with it) the figures of every service listed
 * with this (network, payTo). Returns the services as stored now. Call it after payments of
 * the pair were stored or deleted, or after the pair's sharers or their prices changed.
 */
export async function refreshUsage (store: UsageStore, network: string, payTo: string, now: Date): Promise<ServiceRecord[]> {
  const sharers = await store.servicesByPayTo(network, payToKey(payTo))
  const stored: ServiceRecord[] = []
  for (const sharer of sharers) {
    const usage = await computeUsage(sharer, sharers, summarizer(store), now)
    const record = await store.recordUsage(sharer.id, usage)
    // Deleted in between: nothing to keep figures on.
    if (record !== null) stored.push(record)
  }
  return stored
}

/** A (network, payTo) whose sharers may have changed. */
export interface PayToPair {
  network: string
  payTo: string
  /** Refresh even without payments: a sharer holds figures from a pair it left. */
  always?: boolean
}

/**
 * After a registration, change or removal: refreshes the figures of each pair's sharers when
 * the pair has payments (who shares it, and at what price, decides attribution). A pair
 * without payments is left alone, so a plain registration costs one indexed count. Answers
 * the services whose figures were stored.
 */
export async function refreshUsageOfPairs (store: UsageStore, pairs: readonly PayToPair[], now: Date): Promise<ServiceRecord[]> {
  const seen = new Set<string>()
  const stored: ServiceRecord[] = []
  for (const pair of pairs) {
    const key = `${pair.network} ${payToKey(pair.payTo)}`
    if (seen.has(key)) continue
    seen.add(key)
    const paid = pair.always === true || (await store.summarizePayments({ network: pair.network, payTo: payToKey(pair.payTo) })).count > 0
    if (paid) stored.push(...await refreshUsage(store, pair.network, pair.payTo, now))
  }
  return stored
}
