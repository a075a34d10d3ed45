/**
 * The CatalogStore contract, written once and run against every adapter whose server is
 * configured (catalog-store.test.ts). It checks the port's documented behaviour with the
 * demo catalog, comparing every list against a reference computed here.
 */
import type { Test } from 'tap'
import { readSeedFile, seedRecords } from '../../src/domain/seed.js'
import { toServiceJson, type ServiceRecord } from '../../src/domain/service.js'
import type { ProbeOutcome } from '../../src/domain/probe.js'
import { declaredExtensions, type CallSchema } from '../../src/domain/call-schema.js'
import { DuplicateEndpointError, DuplicateSourceError, OriginClaimedError } from '../../src/errors.js'
import type { CatalogStore } from '../../src/store/catalog-store.js'
import { SORT_FIELDS, type CatalogFilter, type ServiceSort } from '../../src/domain/catalog-query.js'
import { nameSortKey } from '../../src/domain/sort-keys.js'
import { isTestListing } from '../../src/domain/networks.js'
import { payToKey } from '../../src/domain/pay-to.js'
import { computeTrustScore } from '../../src/domain/trust.js'
import { usageChangesListing } from '../../src/domain/lifecycle.js'
import { CHAIN_CHECKPOINT_HISTORY, type PaymentRecord, type ServiceUsage } from '../../src/domain/payment.js'
import { openCatalogStore } from '../../src/adapters.js'
import { CategoryInference } from '../../src/search/category-inference.js'
import { loadTokenizer } from '../../src/search/analysis/tokenizer.js'
import { newSourceId, type SourceRecord, type SyncReport } from '../../src/domain/sources.js'
import { serviceIdForEndpoint } from '../../src/domain/ids.js'
import { firstProbeAt } from '../../src/domain/probe-schedule.js'
import { FeedTail, missedChanges, startWriter, type StoreOpening } from '../support/feed-order.js'
import { bazaarDeclaration, someDeclaring } from '../support/discovery-declarations.js'

/** Opens a fresh, empty store, closed and removed when `t` ends. */
export type OpenStore = (t: Test) => Promise<CatalogStore>
/** Names a fresh, empty store for openCatalogStore (so other processes can open it too), removed when `t` ends. */
export type NameStore = (t: Test) => Promise<StoreOpening>

/** Services each writer process of the concurrency check inserts (with half as many updates and a fifth as many deletions). */
const WRITER_SERVICES = 60

const NOW = '2025-03-04T05:06:07.089Z'
export const demoRecords = (): ServiceRecord[] => seedRecords(readSeedFile('demo'), NOW)

/** The demo records, every fifth with a dynamic price (null), as a source lists one with no fixed amount. */
export const withDynamicPrices = (records: ServiceRecord[]): ServiceRecord[] =>
  records.map((record, i) => i % 5 === 2 ? { ...record, priceAtomic: null } : record)

/** A price as the catalog orders it: a dynamic one above every fixed one (docs/api.md). */
const priceOrder = (record: ServiceRecord): number => record.priceAtomic ?? Infinity
/** Whether the price filter admits a listing: a dynamic price never is. */
const withinPrice = (record: ServiceRecord, bound: number): boolean => record.priceAtomic !== null && record.priceAtomic <= bound

function sortValue (record: ServiceRecord, sort: ServiceSort): string | number {
  switch (sort.field) {
    case 'price': return priceOrder(record)
    case 'trustScore': return record.trustScore
    case 'name': return nameSortKey(record.name)
    case 'createdAt': return record.createdAt
  }
}

const compare = (a: string | number, b: string | number): number => (a < b ? -1 : a > b ? 1 : 0)

/** What listServices must return: filtered, ordered by the field then the id, both in the sort's direction. */
export function referenceList (records: readonly ServiceRecord[], filter: CatalogFilter, sort: ServiceSort): string[] {
  const direction = sort.order === 'asc' ? 1 : -1
  return records
    .filter((r) => (filter.category === undefined || r.category === filter.category) &&
      (filter.status === undefined || r.status === filter.status) &&
      (filter.chain === undefined || r.supportedChains.includes(filter.chain)) &&
      (filter.maxPriceAtomic === undefined || withinPrice(r, filter.maxPriceAtomic)) &&
      (filter.payTo === undefined || payToKey(r.paymentAddress) === payToKey(filter.payTo)) &&
      (filter.extension === undefined || declaredExtensions(r).includes(filter.extension)) &&
      (filter.testnet === undefined || isTestListing(r.supportedChains) === filter.testnet))
    .sort((a, b) => direction * (compare(sortValue(a, sort), sortValue(b, sort)) || compare(a.id, b.id)))
    .map((r) => r.id)
}

/** Facet counts over the services a filter admits, each chain of a service counted once. */
function facetsOf (admitted: readonly ServiceRecord[]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = { category: {}, status: {}, network: {} }
  const add = (field: string, value: string): void => { const counts = out[field] as Record<string, number>; counts[value] = (counts[value] ?? 0) + 1 }
  for (const r of admitted) {
    add('category', r.category)
    add('status', r.status)
    for (const chain of new Set(r.supportedChains)) add('network', chain)
  }
  return out
}

/**
 * The contract, run on stores `open` opens. With `name`, also the feed's ordering under
 * writer processes sharing one store (each opens it through src/adapters.ts).
 */
export function catalogStoreContract (t: Test, open: OpenStore, name?: NameStore): void {
  t.test('insert, get and getServices', async (t) => {
    const store = await open(t)
    const records = demoRecords()
    t.equal(await store.countServices(), 0, 'a fresh store is empty')
    await store.insertService(records[0] as ServiceRecord)
    await store.insertServices(records.slice(1))
    for (const record of records) t.same(await store.getService(record.id), record, `${record.id} round-trips field for field`)
    t.equal(await store.getService('svc_aaaaaaaaaaaaaaaaaaaaaaaa'), null, 'unknown id → null')
    const ids = [records[5], records[2], records[9]].map((r) => (r as ServiceRecord).id)
    t.same((await store.getServices([ids[0] as string, 'svc_missing', ...ids.slice(1)])).map((r) => r.id), ids, 'in the order asked, unknown ids left out')
    t.same(await store.getServices([]), [])
    t.equal(await store.countServices(), records.length)
    const byCategory = new Map<string, number>()
    for (const r of records) byCategory.set(r.category, (byCategory.get(r.category) ?? 0) + 1)
    t.same(Object.fromEntries(await store.countByCategory()), Object.fromEntries(byCategory))
    t.same(await store.countFacets({}), facetsOf(records), 'facets of the whole catalog')
    const chain = (records[0] as ServiceRecord).supportedChains[0] as string
    const bound = (records[3] as ServiceRecord).priceAtomic as number
    t.same(await store.countFacets({ chain, maxPriceAtomic: bound }), facetsOf(records.filter((r) => r.supportedChains.includes(chain) && withinPrice(r, bound))), 'facets after a filter')
    t.same(await store.countFacets({ category: 'no-such-category' }), { category: {}, status: {}, network: {} })
    // The demo catalog lists three services on test networks alone, and two that also accept a real one.
    t.equal(records.filter((r) => isTestListing(r.supportedChains)).length, 3, 'the demo catalog has test-network listings')
    for (const testnet of [false, true]) {
      t.same(await store.countFacets({ testnet }), facetsOf(records.filter((r) => isTestListing(r.supportedChains) === testnet)), `facets of the ${testnet ? 'test-network' : 'other'} listings`)
    }
    await t.resolves(store.ping())
  })

  t.test('a taken identity (resource and method) is a DuplicateEndpointError and changes nothing', async (t) => {
    const store = await open(t)
    const [first, second, third] = demoRecords() as [ServiceRecord, ServiceRecord, ServiceRecord]
    await store.insertService(first)
    const latest = await store.latestSeq()
    // Another spelling of the endpoint, answering as the same resource.
    const clash = { ...second, endpoint: `${first.endpoint}/`, resource: first.resource, method: first.method }
    await t.rejects(store.insertService(clash), DuplicateEndpointError)
    t.equal(await store.getService(clash.id), null)
    t.equal(await store.latestSeq(), latest, 'a refused write takes no sequence')
    t.same(await store.getService(first.id), first, 'the registered service is untouched')
    // The same URL with another method is another listing.
    const post = { ...third, endpoint: first.endpoint, resource: first.resource, method: first.method === 'POST' ? 'GET' as const : 'POST' as const }
    await store.insertService(post)
    t.same(await store.getService(post.id), post)
    t.same(await store.findServiceByResource(first.resource, first.method), first)
    t.same(await store.findServiceByResource(post.resource, post.method), post)
  })

  t.test('only a clash on the endpoint is a DuplicateEndpointError', async (t) => {
    const store = await open(t)
    const [a, b] = demoRecords() as [ServiceRecord, ServiceRecord]
    await store.insertServices([a, b])
    const latest = await store.latestSeq()
    // The same id again, at its own endpoint: the id clashes, and no other service holds the endpoint.
    for (const again of [a, { ...a, endpoint: 'https://elsewhere.example/x' }]) {
      const err = await store.insertService(again).then(() => null, (err: unknown) => err)
      t.ok(err instanceof Error, `${again.endpoint}: refused`)
      t.notOk(err instanceof DuplicateEndpointError, `${again.endpoint}: not reported as a taken endpoint`)
    }
    await t.rejects(store.insertService({ ...a, endpoint: b.endpoint, resource: b.resource, method: b.method }), DuplicateEndpointError, 'the same id with another service\'s identity: that identity is taken')
    t.same(await store.getService(a.id), a, 'nothing changed')
    t.equal(await store.latestSeq(), latest)
  })

  t.test('insertServices is all or nothing', async (t) => {
    const store = await open(t)
    const [a, b, c] = demoRecords() as [ServiceRecord, ServiceRecord, ServiceRecord]
    await store.insertService(a)
    await t.rejects(store.insertServices([b, { ...c, endpoint: a.endpoint, resource: a.resource, method: a.method }]), DuplicateEndpointError)
    t.equal(await store.getService(b.id), null, 'the valid record of a refused batch is not stored')
    t.equal(await store.countServices(), 1)
  })

  t.test('listServices: every filter × sort × order against the reference, with paging', async (t) => {
    const store = await open(t)
    const records = withDynamicPrices(someDeclaring(demoRecords()))
    await store.insertServices(records)
    const chains = [...new Set(records.flatMap((r) => r.supportedChains))]
    const prices = records.flatMap((r) => r.priceAtomic ?? []).sort((a, b) => a - b)
    const median = prices[Math.floor(prices.length / 2)] as number
    const filters: CatalogFilter[] = [
      {},
      { category: (records[0] as ServiceRecord).category },
      { status: 'verified' },
      { status: 'inactive' },
      { chain: chains[0] as string },
      { chain: chains.at(-1) as string },
      { maxPriceAtomic: median },
      { maxPriceAtomic: prices[0] as number },
      { category: 'weather', status: 'verified', maxPriceAtomic: median },
      { category: 'no-such-category' },
      { extension: 'bazaar' },
      { extension: 'bazaar', status: 'verified' },
      { extension: 'bazaar', maxPriceAtomic: median },
      { extension: 'bazaar', chain: chains[0] as string },
      { testnet: false },
      { testnet: true },
      { testnet: false, status: 'verified', maxPriceAtomic: median },
      { testnet: true, chain: 'eip155:84532' },
      { testnet: false, chain: 'eip155:84532' }
    ]
    for (const filter of filters) {
      for (const field of SORT_FIELDS) {
        for (const order of ['asc', 'desc'] as const) {
          const sort = { field, order }
          const expected = referenceList(records, filter, sort)
          const all = await store.listServices(filter, sort, { limit: 100, offset: 0 })
          const label = `${JSON.stringify(filter)} by ${field} ${order}`
          t.same(all.items.map((r) => r.id), expected, label)
          t.equal(all.total, expected.length, `${label}: total`)
          // A page past the first, in the same order (ties by id), with the full total.
          const deeper = await store.listServices(filter, sort, { limit: 3, offset: 2 })
          t.same(deeper.items.map((r) => r.id), expected.slice(2, 5), `${label}: page at offset 2`)
          t.equal(deeper.total, expected.length)
        }
      }
    }
    // Pages of 7 walk the same order, each with the full total.
    const sort: ServiceSort = { field: 'price', order: 'asc' }
    const walked: string[] = []
    for (let offset = 0; ; offset += 7) {
      const page = await store.listServices({}, sort, { limit: 7, offset })
      t.equal(page.total, records.length)
      walked.push(...page.items.map((r) => r.id))
      if (page.items.length < 7) break
    }
    t.same(walked, referenceList(records, {}, sort), 'paging is stable')
    t.same((await store.listServices({}, sort, { limit: 5, offset: 10_000 })).items, [], 'past the end: an empty page')
    // At and past the end of a filtered list: an empty page that still carries the exact total.
    for (const filter of [{ maxPriceAtomic: median }, { status: 'verified' as const }, { category: (records[0] as ServiceRecord).category, maxPriceAtomic: median }]) {
      const total = referenceList(records, filter, { field: 'trustScore', order: 'desc' }).length
      for (const offset of [total, total + 1, 1_000_000]) {
        t.same(await store.listServices(filter, { field: 'trustScore', order: 'desc' }, { limit: 5, offset }), { items: [], total }, `${JSON.stringify(filter)} at offset ${offset}`)
      }
    }
  })

  t.test('the change feed: every change once, in order, from any checkpoint', async (t) => {
    const store = await open(t)
    t.equal(await store.latestSeq(), 0)
    t.same(await store.changesSince(0, 10), [])
    const records = demoRecords()
    await store.insertServices(records.slice(0, 30))
    for (const record of records.slice(30, 35)) await store.insertService(record)
    const latest = await store.latestSeq()
    const feed = await store.changesSince(0, 1000)
    t.equal(feed.length, 35)
    t.same(feed.map((c) => c.service?.id).sort(), records.slice(0, 35).map((r) => r.id).sort(), 'every service once')
    t.ok(feed.every((c, i) => i === 0 || c.seq > (feed[i - 1] as { seq: number }).seq), 'strictly increasing sequences')
    t.equal(feed.at(-1)?.seq, latest, 'latestSeq is the last change')
    t.same(feed.at(-1)?.service, records[34], 'with the service as it is now')
    const walked: number[] = []
    let checkpoint = 0
    for (;;) {
      const batch = await store.changesSince(checkpoint, 8)
      t.ok(batch.length <= 8, 'at most limit changes')
      if (batch.length === 0) break
      walked.push(...batch.map((c) => c.seq))
      checkpoint = batch.at(-1)?.seq ?? checkpoint
    }
    t.same(walked, feed.map((c) => c.seq), 'walking in batches from each checkpoint sees the same feed')
    t.same(await store.changesSince(latest, 10), [], 'nothing after the latest')
    await store.insertService(records[35] as ServiceRecord)
    const next = await store.changesSince(latest, 10)
    t.same(next.map((c) => c.service?.id), [(records[35] as ServiceRecord).id], 'a new write appears after the old checkpoint')
    t.ok((next[0]?.seq ?? 0) > latest)
  })

  if (name !== undefined) {
    t.test('the change feed under concurrent writer processes: a tail from its checkpoint misses no final state', async (t) => {
      const opening = await name(t)
      const store = await openCatalogStore(opening)
      t.teardown(() => store.close())
      const writers = ['alpha', 'bravo'].map((writer) => startWriter(t, opening, writer, WRITER_SERVICES))
      await Promise.all(writers.map((writer) => writer.ready))
      const tail = new FeedTail(store, 7)
      const run = { writing: true }
      const exits = Promise.all(writers.map((writer) => writer.exited)).finally(() => { run.writing = false })
      for (const writer of writers) writer.go()
      // Tails while they write, as the indexer does; a pause when nothing is new lets them on.
      while (run.writing) if (await tail.step() === 0) await new Promise((resolve) => setTimeout(resolve, 1))
      const codes = await exits
      t.same(codes, [0, 0], 'both writers finished')
      if (codes.some((code) => code !== 0)) t.comment(writers.map((writer) => writer.output()).join('\n'))
      await tail.catchUp()
      t.same(await missedChanges(store, tail), [], 'every service\'s final state was seen by the tail')
      const deleted = Math.floor(WRITER_SERVICES / 5)
      t.equal(await store.countServices(), 2 * (WRITER_SERVICES - deleted), 'every write of both writers is stored')
    })
  }

  t.test('deletions are tombstones in the feed', async (t) => {
    const store = await open(t)
    const [a, b] = demoRecords() as [ServiceRecord, ServiceRecord]
    await store.insertServices([a, b])
    const before = await store.latestSeq()
    t.equal(await store.deleteService(a.id), true)
    t.equal(await store.deleteService(a.id), false, 'deleting twice: nothing to delete')
    t.equal(await store.getService(a.id), null)
    t.equal(await store.countServices(), 1)
    const changes = await store.changesSince(before, 10)
    t.same(changes.map((c) => [c.id, c.service]), [[a.id, null]], 'a tombstone: the id, no service')
    t.ok((changes[0]?.seq ?? 0) > before)
    const all = await store.changesSince(0, 10)
    t.same(all.map((c) => [c.id, c.service?.id ?? null]), [[b.id, b.id], [a.id, null]], 'from the start: b live, a deleted (its newest state)')
    t.same((await store.changesSince(0, 1)).map((c) => c.id), [b.id], 'the limit counts tombstones and services alike')
    await store.insertService({ ...a })
    t.same(await store.getService(a.id), a, 'a deleted endpoint can be registered again')
    t.same((await store.changesSince(before, 10)).map((c) => [c.id, c.service?.id ?? null]), [[a.id, a.id]], 'live again in the feed: its newest state replaces the tombstone')
  })

  t.test('updates replace the service as a new change', async (t) => {
    const store = await open(t)
    const [a, b] = demoRecords() as [ServiceRecord, ServiceRecord]
    await store.insertServices([a, b])
    const before = await store.latestSeq()
    const changed: ServiceRecord = { ...a, name: 'Renamed service', method: 'POST', supportedChains: [a.network, 'eip155:999999'], paymentRequirements: [{ scheme: 'exact', network: a.network, amount: '1000', asset: '0xasset', payTo: a.paymentAddress, maxTimeoutSeconds: 60, extra: { name: 'USDC' } }] }
    t.equal(await store.updateService(changed), true)
    t.same(await store.getService(a.id), changed, 'every field is replaced, method and payment requirements included')
    t.same((await store.listServices({ chain: 'eip155:999999' }, { field: 'name', order: 'asc' }, { limit: 10, offset: 0 })).items.map((r) => r.id), [a.id], 'chain filters follow the update')
    const changes = await store.changesSince(before, 10)
    t.same(changes.map((c) => [c.id, c.service?.name]), [[a.id, 'Renamed service']], 'the update is one new change')
    await t.rejects(store.updateService({ ...b, endpoint: a.endpoint, resource: a.resource, method: changed.method }), DuplicateEndpointError, 'an update cannot take another service\'s identity')
    t.equal(await store.updateService({ ...a, id: 'svc_nobody' }), false, 'no service, no update')
    // Onto a test network alone: it leaves the default lists (testnet: false) and joins the test side.
    const listed = async (testnet: boolean): Promise<string[]> => (await store.listServices({ testnet }, { field: 'name', order: 'asc' }, { limit: 10, offset: 0 })).items.map((r) => r.id)
    t.same(await listed(true), [], 'no test-network listing yet')
    t.equal(await store.updateService({ ...changed, network: 'eip155:84532', supportedChains: ['eip155:84532'] }), true)
    t.same([await listed(true), await listed(false)], [[a.id], [b.id]], 'the testnet filter follows the update')
  })

  t.test('API keys: hashes only, revocation at once', async (t) => {
    const store = await open(t)
    const key = (n: number): { id: string, name: string, hash: string, createdAt: string, revokedAt: null } =>
      ({ id: `key_${String(n).padStart(16, '0')}`, name: `owner ${n}`, hash: String(n).repeat(64).slice(0, 64), createdAt: `2025-01-0${n}T00:00:00.000Z`, revokedAt: null })
    await store.insertApiKey(key(2))
    await store.insertApiKey(key(1))
    t.same(await store.listApiKeys(), [key(1), key(2)], 'listed by creation time')
    t.same(await store.findActiveApiKeyByHash(key(1).hash), key(1))
    t.equal(await store.findActiveApiKeyByHash('f'.repeat(64)), null)
    t.equal(await store.revokeApiKey(key(1).id, '2025-02-01T00:00:00.000Z'), true)
    t.equal(await store.revokeApiKey(key(1).id, '2025-02-02T00:00:00.000Z'), false, 'an already revoked key')
    t.equal(await store.revokeApiKey('key_unknown', '2025-02-02T00:00:00.000Z'), false)
    t.equal(await store.findActiveApiKeyByHash(key(1).hash), null, 'a revoked key no longer authenticates')
    t.same((await store.listApiKeys())[0], { ...key(1), revokedAt: '2025-02-01T00:00:00.000Z' })
  })

  t.test('probes: recorded with the new state, newest first, bounded; the due queue and the lease', async (t) => {
    const store = await open(t)
    const [a, b] = demoRecords() as [ServiceRecord, ServiceRecord]
    const owned = { ...a, ownerId: 'key_owner' }
    await store.insertServices([owned, b])
    const probe = (n: number, matched: boolean): ProbeOutcome => ({
      checkedAt: new Date(Date.parse(NOW) + n * 1000).toISOString(),
      httpStatus: 402,
      x402Version: 2,
      latencyMs: 12,
      answered402: true,
      matched,
      reason: matched ? 'matches' : `payTo differs ${n}`,
      accepts: [{ scheme: 'exact', network: a.network, amount: String(a.priceAtomic), asset: '0xasset', payTo: a.paymentAddress, maxTimeoutSeconds: 60, extra: {} }]
    })
    t.same((await store.dueForProbe(NOW, 10, false)).map((c) => c.id), [owned.id], 'a new owned service is due; seeded ones only when asked')
    t.same((await store.dueForProbe(NOW, 10, true)).map((c) => c.id).sort(), [owned.id, b.id].sort())
    t.match((await store.dueForProbe(NOW, 10, false))[0], { endpoint: a.endpoint, method: a.method, network: a.network, paymentAddress: a.paymentAddress, priceAtomic: a.priceAtomic })

    // Probes spaced by `policy` over a long failure period: three failures do not make it inactive here.
    const policy = { failurePeriodMs: 3_600_000 }
    const seqBefore = await store.latestSeq()
    const next = new Date(Date.parse(NOW) + 3_600_000).toISOString()
    const updated = await store.recordProbe(owned.id, probe(1, true), policy, next)
    const verified = { status: 'verified', uptimeScore: 100, trustScore: computeTrustScore({ status: 'verified', uptimeScore: 100, usage: owned.usage }), lastChecked: probe(1, true).checkedAt, paymentRequirements: probe(1, true).accepts }
    t.match(updated, { id: owned.id, ...verified }, 'the lifecycle applied, the new probe in its history (uptime 100, not unknown)')
    t.same(await store.getService(owned.id), updated, 'and stored')
    t.ok(await store.latestSeq() > seqBefore, 'a visible change is a change-feed event')
    t.same(await store.dueForProbe(NOW, 10, false), [], 'not due before its next probe time')
    t.same((await store.dueForProbe(next, 10, false)).map((c) => c.id), [owned.id], 'due once the time comes')
    t.equal(await store.updateService({ ...updated as ServiceRecord, description: 'A new description.' }), true)
    t.same(await store.dueForProbe(NOW, 10, false), [], 'an update keeps the probe schedule (a source pass updates thousands: they stay spread)')

    const seqAfter = await store.latestSeq()
    t.match(await store.recordProbe(owned.id, probe(2, true), policy, next), { status: 'verified', trustScore: verified.trustScore })
    t.equal(await store.latestSeq(), seqAfter, 'a probe that changes nothing search or export reads is no change-feed event')
    t.match(await store.recordProbe(owned.id, probe(3, false), policy, next), { status: 'unverified', trustScore: computeTrustScore({ status: 'unverified', uptimeScore: 100, usage: owned.usage }) })
    t.ok(await store.latestSeq() > seqAfter, 'a status change is a change-feed event')

    const page = await store.listProbes(owned.id, { limit: 2, offset: 0 })
    t.equal(page.total, 3)
    t.same(page.items.map((p) => p.reason), ['payTo differs 3', 'matches'], 'newest first, paged')
    t.same(await store.lastProbe(owned.id), probe(3, false), 'the last probe round-trips field for field')
    t.equal(await store.lastProbe(b.id), null)
    t.equal(await store.recordProbe('svc_nobody', probe(4, true), policy, null), null, 'no service, nothing stored')
    t.equal((await store.listProbes('svc_nobody', { limit: 10, offset: 0 })).total, 0)

    t.equal(await store.markProbeDue(owned.id), true)
    t.same((await store.dueForProbe(NOW, 10, false)).map((c) => c.id), [owned.id], 'asked for: due now')
    t.equal(await store.markProbeDue('svc_nobody'), false)

    t.equal(await store.deleteService(owned.id), true)
    t.equal((await store.listProbes(owned.id, { limit: 10, offset: 0 })).total, 0, 'a deleted service\'s probes go with it')

    t.equal(await store.acquireLease('prober', 'one', 10_000, 1_000), true)
    t.equal(await store.acquireLease('prober', 'two', 10_000, 2_000), false, 'held by another')
    t.equal(await store.acquireLease('prober', 'one', 10_000, 5_000), true, 'renewed by its holder')
    t.equal(await store.acquireLease('prober', 'two', 10_000, 15_001), true, 'taken over once expired')
    await store.releaseLease('prober', 'one')
    t.equal(await store.acquireLease('prober', 'one', 10_000, 16_000), false, 'only the holder releases')
    await store.releaseLease('prober', 'two')
    t.equal(await store.acquireLease('prober', 'one', 10_000, 16_000), true, 'released: free at once')
  })

  t.test('recordProbe: the call schema the endpoint declares is kept with the service, replaced by a new one, cleared when it declares none', async (t) => {
    const store = await open(t)
    const [a] = demoRecords() as [ServiceRecord]
    await store.insertServices([a])
    const bazaar = bazaarDeclaration
    const callSchema = (field: string): CallSchema => ({
      declaredIn: 'extensions.bazaar',
      method: 'GET',
      inputKind: 'query',
      bodyType: null,
      inputSchema: { type: 'object', properties: { [field]: { type: 'string' } } },
      inputExample: { [field]: 'Tokyo' },
      outputSchema: null,
      outputExample: { temperature: 21.5, list: [1, null, 'x'] },
      mcpTool: null
    })
    const probe = (n: number, discovery: ProbeOutcome['discovery']): ProbeOutcome => ({
      checkedAt: new Date(Date.parse(NOW) + n * 1000).toISOString(), httpStatus: 402, x402Version: 2, latencyMs: 5, answered402: true, matched: true, reason: 'matches', accepts: null, discovery
    })
    const policy = { failurePeriodMs: 0 }
    await store.recordProbe(a.id, probe(1, { kind: 'none' }), policy, null)
    const seq = await store.latestSeq()
    const stored = await store.recordProbe(a.id, probe(2, { kind: 'declared', callSchema: callSchema('city'), bazaar: bazaar('city') }), policy, null)
    t.same(stored?.callSchema, callSchema('city'))
    t.same(stored?.bazaarExtension, bazaar('city'), 'the declaration exactly as sent, $schema and all')
    t.same(await store.getService(a.id), stored, 'stored as returned')
    t.ok(await store.latestSeq() > seq, 'a new schema is a change-feed event (search and export show it)')
    const changes = await store.changesSince(seq, 10)
    t.same(changes.map((c) => c.service?.callSchema), [callSchema('city')], 'the feed carries it')

    const same = await store.latestSeq()
    await store.recordProbe(a.id, probe(3, { kind: 'declared', callSchema: callSchema('city'), bazaar: bazaar('city') }), policy, null)
    t.equal(await store.latestSeq(), same, 'the same declaration again: no change')
    await store.recordProbe(a.id, probe(4, { kind: 'refused', reason: 'too large' }), policy, null)
    t.same((await store.getService(a.id))?.callSchema, callSchema('city'), 'a refused declaration leaves the last good one')
    t.same((await store.recordProbe(a.id, probe(5, undefined), policy, null))?.callSchema, callSchema('city'), 'so does a probe without a 402')

    const replaced = await store.recordProbe(a.id, probe(6, { kind: 'declared', callSchema: callSchema('town'), bazaar: bazaar('town') }), policy, null)
    t.same([replaced?.callSchema, replaced?.bazaarExtension], [callSchema('town'), bazaar('town')], 'a new declaration replaces it')
    t.same(await store.getService(a.id), replaced)

    const cleared = await store.recordProbe(a.id, probe(7, { kind: 'none' }), policy, null)
    t.same(cleared, await store.getService(a.id))
    t.notOk(cleared !== null && ('callSchema' in cleared || 'bazaarExtension' in cleared), 'an answer declaring none clears both (absent, as for a service never declaring one)')

    const updated = { ...a, callSchema: callSchema('village'), bazaarExtension: bazaar('village'), updatedAt: NOW }
    t.equal(await store.updateService(updated), true)
    t.same(await store.getService(a.id), updated, 'updateService writes them too')
  })

  t.test('the extension filter follows what the last probe read: declared, refused, none, then an update', async (t) => {
    const store = await open(t)
    const records = demoRecords()
    await store.insertServices(records)
    const [a, b] = records as [ServiceRecord, ServiceRecord]
    const policy = { failurePeriodMs: 0 }
    const probe = (n: number, discovery: ProbeOutcome['discovery']): ProbeOutcome => ({
      checkedAt: new Date(Date.parse(NOW) + n * 1000).toISOString(), httpStatus: 402, x402Version: 2, latencyMs: 5, answered402: true, matched: true, reason: 'matches', accepts: null, discovery
    })
    const declared = (field: string): ProbeOutcome['discovery'] => ({
      kind: 'declared',
      callSchema: { declaredIn: 'extensions.bazaar', method: 'GET', inputKind: 'query', bodyType: null, inputSchema: null, inputExample: { [field]: 'x' }, outputSchema: null, outputExample: null, mcpTool: null },
      bazaar: bazaarDeclaration(field)
    })
    const sort = { field: 'trustScore', order: 'desc' } as const
    const listed = async (filter: CatalogFilter = { extension: 'bazaar' }): Promise<{ ids: string[], total: number }> => {
      const page = await store.listServices(filter, sort, { limit: 100, offset: 0 })
      return { ids: page.items.map((r) => r.id), total: page.total }
    }
    t.same(await listed(), { ids: [], total: 0 }, 'nothing declared yet: an empty page')

    await store.recordProbe(a.id, probe(1, declared('city')), policy, null)
    t.same(await listed(), { ids: [a.id], total: 1 }, 'a declaring probe lists the service')
    t.same(await listed({ extension: 'bazaar', category: a.category }), { ids: [a.id], total: 1 }, 'with another filter too')
    t.same(await listed({ extension: 'bazaar', category: 'no-such-category' }), { ids: [], total: 0 })
    await store.recordProbe(a.id, probe(2, { kind: 'refused', reason: 'too large' }), policy, null)
    t.same(await listed(), { ids: [a.id], total: 1 }, 'a refused declaration keeps the last good one, and the listing')
    await store.recordProbe(b.id, probe(3, declared('town')), policy, null)
    t.same((await listed()).ids.sort(), [a.id, b.id].sort(), 'a second service')
    t.same(await store.countFacets({ extension: 'bazaar' }), facetsOf(await store.getServices([a.id, b.id])), 'countFacets counts only the declaring services')
    const streamed: string[] = []
    for await (const record of store.streamServices({ extension: 'bazaar' }, 1)) streamed.push(record.id)
    t.same(streamed, [a.id, b.id].sort(), 'streamServices too, in id order')

    await store.recordProbe(a.id, probe(4, { kind: 'none' }), policy, null)
    t.same(await listed(), { ids: [b.id], total: 1 }, 'an answer declaring none removes it')
    const current = await store.getService(a.id) as ServiceRecord
    t.equal(await store.updateService({ ...current, bazaarExtension: bazaarDeclaration('village'), updatedAt: NOW }), true)
    t.same((await listed()).ids.sort(), [a.id, b.id].sort(), 'updateService brings it back')
    t.same((await listed({})).total, records.length, 'without the filter: every service')
  })

  t.test('recordProbe: failures make a service inactive once they span the failure period it is given', async (t) => {
    const store = await open(t)
    const [a, b] = demoRecords().map((r): ServiceRecord => ({ ...r, status: 'verified' })) as [ServiceRecord, ServiceRecord]
    await store.insertServices([a, b])
    const failure = (minute: number): ProbeOutcome => ({
      checkedAt: new Date(Date.parse(NOW) + minute * 60_000).toISOString(), httpStatus: null, x402Version: null, latencyMs: null, answered402: false, matched: false, reason: 'connection refused', accepts: null
    })
    for (const minute of [0, 1]) {
      await store.recordProbe(a.id, failure(minute), { failurePeriodMs: 120_000 }, null)
      await store.recordProbe(b.id, failure(minute), { failurePeriodMs: 180_000 }, null)
    }
    t.match(await store.getService(a.id), { status: 'verified', uptimeScore: 0 }, 'two failures: still verified')
    t.match(await store.recordProbe(a.id, failure(2), { failurePeriodMs: 120_000 }, null), { status: 'inactive', trustScore: computeTrustScore({ status: 'inactive', uptimeScore: 0, usage: a.usage }) }, 'three over two minutes, the period: inactive')
    t.match(await store.recordProbe(b.id, failure(2), { failurePeriodMs: 180_000 }, null), { status: 'verified' }, 'three over two minutes, a three-minute period: not yet')
    t.match(await store.getService(a.id), { status: 'inactive' })
  })

  t.test('streamServices: every match once, in id order, across batch boundaries', async (t) => {
    const store = await open(t)
    const records = someDeclaring(demoRecords())
    await store.insertServices(records)
    const walk = async (filter: CatalogFilter, batch: number): Promise<string[]> => {
      const ids: string[] = []
      for await (const record of store.streamServices(filter, batch)) ids.push(record.id)
      return ids
    }
    const byId = { field: 'createdAt', order: 'asc' } as const
    const sortedIds = (filter: CatalogFilter): string[] => referenceList(records, filter, byId).sort()
    t.same(await walk({}, 7), sortedIds({}), 'batches of 7')
    t.same(await walk({}, records.length), sortedIds({}), 'one exact batch')
    t.same(await walk({}, 1000), sortedIds({}))
    const payTo = (records[3] as ServiceRecord).paymentAddress
    for (const filter of [{ status: 'verified' as const }, { category: 'weather' }, { chain: 'eip155:8453' }, { payTo }, { payTo: payTo.toUpperCase().replace('0X', '0x') }, { extension: 'bazaar' as const }, { extension: 'bazaar' as const, status: 'verified' as const }, { testnet: false }, { testnet: true }, { testnet: false, category: 'ai-llm' }]) {
      t.same(await walk(filter, 5), sortedIds(filter), JSON.stringify(filter))
    }
    t.same(await walk({ category: 'no-such-category' }, 5), [])
  })

  t.test('listServiceJson: the same page as listServices, as the JSON array of each toServiceJson, after every kind of write', async (t) => {
    const store = await open(t)
    const records = withDynamicPrices(demoRecords())
    await store.insertServices(records)
    const sorts: ServiceSort[] = [{ field: 'createdAt', order: 'desc' }, { field: 'price', order: 'asc' }, { field: 'price', order: 'desc' }, { field: 'name', order: 'asc' }]
    const same = async (why: string): Promise<void> => {
      for (const filter of [{}, { status: 'verified' as const }, { maxPriceAtomic: (records[3] as ServiceRecord).priceAtomic as number }]) {
        for (const sort of sorts) {
          for (const page of [{ limit: 100, offset: 0 }, { limit: 4, offset: 3 }, { limit: 5, offset: 10_000 }]) {
            const listed = await store.listServices(filter, sort, page)
            const { json, total } = await store.listServiceJson(filter, sort, page)
            t.same({ text: Buffer.from(json).toString(), total }, { text: `[${listed.items.map(toServiceJson).join(',')}]`, total: listed.total }, `${why}: ${JSON.stringify([filter, sort, page])}`)
          }
        }
      }
    }
    await same('as inserted')
    const [a, b, c] = records as [ServiceRecord, ServiceRecord, ServiceRecord]
    await store.updateService({ ...a, name: 'Renamed "quoted" \\ サービス', priceAtomic: 1, updatedAt: '2025-03-05T00:00:00.000Z' })
    await store.recordProbe(b.id, { checkedAt: NOW, httpStatus: 402, x402Version: 2, latencyMs: 3, answered402: true, matched: true, reason: 'matches', accepts: null },
      { failurePeriodMs: 0 }, null)
    const trustScore = computeTrustScore({ status: 'verified', uptimeScore: 100, usage: b.usage })
    await store.deleteService(c.id)
    const json = JSON.parse(Buffer.from((await store.listServiceJson({}, sorts[0] as ServiceSort, { limit: 100, offset: 0 })).json).toString()) as Array<{ id: string }>
    t.match(json.find((item) => item.id === a.id), { name: 'Renamed "quoted" \\ サービス', pricing: { pricePerRequest: '0.000001' } }, 'an update shows')
    t.match(json.find((item) => item.id === b.id), { status: 'verified', trustScore }, 'a probe\'s verdict shows')
    t.notOk(json.some((item) => item.id === c.id), 'a deleted service is gone')
    await same('after an update, a probe and a delete')
  })

  t.test('getServiceJson: getServices\' services as toServiceJson with their uptime, in the order asked, after every kind of write', async (t) => {
    const store = await open(t)
    const records = demoRecords()
    await store.insertServices(records)
    const expected = async (ids: readonly string[]): Promise<Array<{ id: string, json: string, uptimeScore: number | null }>> =>
      (await store.getServices(ids)).map((record) => ({ id: record.id, json: toServiceJson(record), uptimeScore: record.uptimeScore }))
    // The JSON as text, to compare and to read: the port gives its UTF-8 bytes.
    const read = async (ids: readonly string[]): Promise<Array<{ id: string, json: string, uptimeScore: number | null }>> =>
      (await store.getServiceJson(ids)).map((item) => ({ ...item, json: new TextDecoder('utf-8', { fatal: true }).decode(item.json) }))
    const [a, b, c, d] = records as [ServiceRecord, ServiceRecord, ServiceRecord, ServiceRecord]
    const asked = [d.id, 'svc_missing', b.id, a.id, c.id]
    const same = async (why: string): Promise<void> => {
      t.same(await read(asked), await expected(asked), `${why}: a search page`)
      // More ids than a page holds (unknown ones among them): the same answer.
      const many = [...Array.from({ length: 150 }, (_, i) => `svc_unknown${i}`), ...records.map((r) => r.id).reverse()]
      t.same(await read(many), await expected(many), `${why}: more ids than a page`)
    }
    t.same(await store.getServiceJson([]), [])
    t.same((await store.getServiceJson(asked)).map((item) => item.id), [d.id, b.id, a.id, c.id], 'in the order asked, unknown ids left out')
    await same('as inserted')
    await store.updateService({ ...a, name: 'Renamed "quoted" \\ サービス', priceAtomic: 1, updatedAt: '2025-03-05T00:00:00.000Z' })
    await store.recordProbe(b.id, { checkedAt: NOW, httpStatus: 402, x402Version: 2, latencyMs: 3, answered402: true, matched: true, reason: 'matches', accepts: null },
      { failurePeriodMs: 0 }, null)
    await store.deleteService(c.id)
    const [renamed, probed] = await read([a.id, b.id, c.id])
    t.match(JSON.parse(renamed?.json ?? '{}'), { name: 'Renamed "quoted" \\ サービス', pricing: { pricePerRequest: '0.000001' } }, 'an update shows')
    t.match({ ...probed, json: JSON.parse(probed?.json ?? '{}') }, { uptimeScore: 100, json: { status: 'verified' } }, 'a probe\'s uptime and verdict show')
    t.equal((await store.getServiceJson([c.id])).length, 0, 'a deleted service is skipped')
    await same('after an update, a probe and a delete')
  })

  t.test('listServices filters by payTo: EVM case-insensitively, others exactly', async (t) => {
    const store = await open(t)
    const records = demoRecords()
    await store.insertServices(records)
    const sort = { field: 'createdAt', order: 'desc' } as const
    for (const record of records.slice(0, 12)) {
      for (const payTo of [record.paymentAddress, record.paymentAddress.toLowerCase(), record.paymentAddress.toUpperCase().replace(/^0X/, '0x')]) {
        const page = await store.listServices({ payTo }, sort, { limit: 100, offset: 0 })
        t.same(page.items.map((r) => r.id), referenceList(records, { payTo }, sort), `${payTo}`)
      }
    }
    t.equal((await store.listServices({ payTo: '0x.*' }, sort, { limit: 10, offset: 0 })).total, 0, 'a pattern is not a wildcard')
  })

  t.test('claims: one token per owner and origin; a proof moves the origin\'s listings, each a change, with a transfer', async (t) => {
    const store = await open(t)
    const [a, b, c] = demoRecords() as [ServiceRecord, ServiceRecord, ServiceRecord]
    const origin = 'https://claimed.example'
    const onOrigin = { ...a, endpoint: `${origin}/x`, resource: `${origin}/x`, ownerId: 'key_squatter' }
    const alsoOnOrigin = { ...b, endpoint: `${origin}/y?q=1`, resource: `${origin}/y?q=1`, ownerId: 'key_provider' }
    // A longer host that starts with the origin's text is another origin.
    const lookalike = { ...c, endpoint: 'https://claimed.example.evil.example/x', resource: 'https://claimed.example.evil.example/x', ownerId: 'key_squatter' }
    await store.insertServices([onOrigin, alsoOnOrigin, lookalike])
    const claim = { origin, ownerId: 'key_provider', token: 'x402c_token', createdAt: NOW, provenAt: null }
    t.same(await store.issueClaim(claim), claim)
    t.same(await store.issueClaim({ ...claim, token: 'x402c_other', createdAt: '2026-01-01T00:00:00.000Z' }), claim, 'asking again keeps the first token')
    t.same(await store.getClaim(origin, 'key_provider'), claim)
    t.equal(await store.getClaim(origin, 'key_nobody'), null)
    t.equal(await store.provenClaim(origin), null)
    t.equal(await store.proveClaim(origin, 'key_nobody', NOW, 'x'), null, 'no claim, no proof')

    const before = await store.latestSeq()
    const at = '2026-02-01T00:00:00.000Z'
    const moved = await store.proveClaim(origin, 'key_provider', at, 'published the token')
    t.same(moved?.map((record) => record.id), [onOrigin.id], 'the listings another key held, as they were')
    t.match(await store.getService(onOrigin.id), { ownerId: 'key_provider', claimed: true, updatedAt: at })
    t.match(await store.getService(alsoOnOrigin.id), { ownerId: 'key_provider', claimed: true }, 'the prover\'s own listing is claimed too')
    t.match(await store.getService(lookalike.id), { ownerId: 'key_squatter', claimed: false }, 'another origin is untouched')
    t.same((await store.changesSince(before, 10)).map((change) => change.id).sort(), [onOrigin.id, alsoOnOrigin.id].sort(), 'each a new change')
    t.match(await store.getTransfer(onOrigin.id), { serviceId: onOrigin.id, fromOwnerId: 'key_squatter', toOwnerId: 'key_provider', origin, reason: 'published the token', at })
    t.equal(await store.getTransfer(alsoOnOrigin.id), null)
    t.match(await store.provenClaim(origin), { ownerId: 'key_provider', provenAt: at })

    // A newer proof by another owner wins.
    await store.issueClaim({ origin, ownerId: 'key_buyer', token: 'x402c_buyer', createdAt: at, provenAt: null })
    t.same((await store.proveClaim(origin, 'key_buyer', '2026-03-01T00:00:00.000Z', 'bought the domain'))?.map((record) => record.id).sort(), [onOrigin.id, alsoOnOrigin.id].sort())
    t.match(await store.provenClaim(origin), { ownerId: 'key_buyer' })
    t.match(await store.getClaim(origin, 'key_provider'), { provenAt: null })
  })

  t.test('tags and prefilled fields are kept; a probe with a valid 402 refreshes the prefilled text only, as a change', async (t) => {
    const store = await open(t)
    const [a, b, c] = demoRecords() as [ServiceRecord, ServiceRecord, ServiceRecord]
    const prefilled: ServiceRecord = { ...a, ownerId: 'key_owner', tags: ['old'], prefill: { fields: ['name', 'tags', 'price'], importedFrom: 'https://x.example/.well-known/x402' } }
    const retired: ServiceRecord = { ...b, status: 'inactive', prefill: { fields: ['description'], removed: { reason: 'removed from /.well-known/x402', at: NOW } } }
    await store.insertServices([prefilled, retired, c])
    t.same(await store.getService(prefilled.id), prefilled, 'tags and prefill round-trip')
    t.same(await store.getService(c.id), c, 'a record with nothing prefilled round-trips as null')
    const probe = (text: ProbeOutcome['text'], answered402 = true): ProbeOutcome => ({
      checkedAt: NOW, httpStatus: answered402 ? 402 : 200, x402Version: 2, latencyMs: 5, answered402, matched: answered402, reason: 'r', accepts: null, ...(text === undefined ? {} : { text })
    })
    const policy = { failurePeriodMs: 0 }
    const before = await store.latestSeq()
    const after = await store.recordProbe(prefilled.id, probe({ description: 'A new description', serviceName: 'New Name', tags: ['fresh', 'tags'] }), policy, null)
    t.match(after, { name: 'New Name', description: a.description, tags: ['fresh', 'tags'] }, 'the prefilled name and tags follow; the given description stays')
    t.same(await store.getService(prefilled.id), after)
    t.ok(await store.latestSeq() > before, 'new text is a change-feed event')
    const changes = await store.changesSince(before, 10)
    t.equal(changes.find((change) => change.id === prefilled.id)?.service?.name, 'New Name')
    t.same((await store.listServices({}, { field: 'name', order: 'asc' }, { limit: 100, offset: 0 })).items.find((s) => s.id === prefilled.id)?.name, 'New Name', 'lists show it')
    t.match(await store.recordProbe(prefilled.id, probe({ serviceName: 'Failed' }, false), policy, null), { name: 'New Name' }, 'an answer that is not a valid 402 changes no text')
    t.match(await store.recordProbe(retired.id, probe({ description: 'Back' }), policy, null), { status: 'inactive', description: 'Back' }, 'a listing its origin dropped stays inactive')
  })

  t.test('recordProbe with category inference: an inferred category follows the refreshed text in the same write; a given one stays', async (t) => {
    const store = await open(t)
    const inference = new CategoryInference(await loadTokenizer())
    const inferCategory = (text: string): string => inference.infer(text)
    const [a, b] = demoRecords() as [ServiceRecord, ServiceRecord]
    const weather = { name: 'Feed', description: 'Hourly weather forecasts', category: 'weather', tags: [] }
    const inferred: ServiceRecord = { ...a, ...weather, prefill: { fields: ['name', 'description', 'category'] } }
    const given: ServiceRecord = { ...b, ...weather, prefill: { fields: ['name', 'description'] } }
    await store.insertServices([inferred, given])
    const text = { description: 'Translate text between 100 languages', serviceName: 'Feed' }
    const probe: ProbeOutcome = { checkedAt: NOW, httpStatus: 402, x402Version: 2, latencyMs: 5, answered402: true, matched: true, reason: 'r', accepts: null, text }
    const before = await store.latestSeq()
    const after = await store.recordProbe(inferred.id, probe, { failurePeriodMs: 0 }, null, inferCategory)
    t.match(after, { description: 'Translate text between 100 languages', category: 'translation' }, 'inferred again from the new text')
    t.same(await store.getService(inferred.id), after)
    t.equal((await store.changesSince(before, 10)).find((change) => change.id === inferred.id)?.service?.category, 'translation', 'the change feed carries it')
    t.same((await store.listServices({ category: 'translation' }, { field: 'name', order: 'asc' }, { limit: 100, offset: 0 })).items.map((s) => s.id), [inferred.id], 'the category filter finds it')
    t.same(Object.fromEntries(await store.countByCategory()), { translation: 1, weather: 1 }, 'and category counts')
    t.match(await store.recordProbe(given.id, probe, { failurePeriodMs: 0 }, null, inferCategory), { description: 'Translate text between 100 languages', category: 'weather' }, 'a given category stays')
  })

  t.test('servicesOnOrigin: the listings under an origin only, in id order', async (t) => {
    const store = await open(t)
    const [a, b, c, d] = demoRecords() as [ServiceRecord, ServiceRecord, ServiceRecord, ServiceRecord]
    const on = (record: ServiceRecord, endpoint: string): ServiceRecord => ({ ...record, endpoint, resource: endpoint })
    await store.insertServices([on(a, 'https://api.example.com/a'), on(b, 'https://api.example.com/b/c?x=1'), on(c, 'https://api.example.com.evil.test/a'), on(d, 'https://api.example.com:8443/a')])
    t.same((await store.servicesOnOrigin('https://api.example.com', 10)).map((s) => s.id), [a.id, b.id].sort())
    t.equal((await store.servicesOnOrigin('https://api.example.com', 1)).length, 1, 'at most `limit`')
    t.same(await store.servicesOnOrigin('https://nobody.example', 10), [])
  })

  t.test('a write racing a proof of its origin: the proven owner ends up holding every listing, whichever commits first', async (t) => {
    const store = await open(t)
    const [a, b, c, d] = demoRecords() as [ServiceRecord, ServiceRecord, ServiceRecord, ServiceRecord]
    const origin = 'https://raced.example'
    const on = (record: ServiceRecord, path: string, ownerId: string | null): ServiceRecord =>
      ({ ...record, endpoint: `${origin}${path}`, resource: `${origin}${path}`, ownerId })
    await store.issueClaim({ origin, ownerId: 'key_provider', token: 'x402c_token', createdAt: NOW, provenAt: null })
    const at = '2026-02-01T00:00:00.000Z'

    // Proof first: a registration checked the origin before the proof, and writes after it
    // (the interleaving of POST /api/services, which probes the endpoint in between).
    t.equal(await store.provenClaim(origin), null, 'the registration\'s check: nobody has proven control yet')
    t.same(await store.proveClaim(origin, 'key_provider', at, 'published the token'), [], 'the proof: nothing to move yet')
    const squat = on(a, '/squat', 'key_squatter')
    await t.rejects(store.insertService(squat), OriginClaimedError, 'the squatter\'s insert is refused')
    const unowned = on(b, '/seeded', null)
    await t.rejects(store.insertServices([on(c, '/fine', 'key_provider'), unowned]), OriginClaimedError, 'a batch with one such listing...')
    t.equal(await store.countServices(), 0, '...stores none of it')
    await store.insertService(on(c, '/own', 'key_provider'))
    t.match(await store.getService(c.id), { ownerId: 'key_provider', claimed: true }, 'the owner\'s own write, checked before the proof, is claimed')

    // Other writes racing the proof: a takeover and an update that move a listing to another key.
    const displacement = { id: c.id, displacedBy: d.id, endpoint: `${origin}/own`, ownerId: 'key_provider', reason: 'payTo', at }
    const held = await store.getService(c.id) as ServiceRecord
    await t.rejects(store.displaceService(held, { ...on(d, '/own', 'key_squatter') }, displacement), OriginClaimedError, 'a takeover by another key is refused')
    await t.rejects(store.updateService({ ...held, ownerId: 'key_squatter' }), OriginClaimedError, 'an update to another key is refused')
    t.same(await store.getService(c.id), held, 'the owner\'s listing is unchanged')

    // Insert first: a squatter's listing stored before the proof moves with it.
    const other = 'https://raced-too.example'
    await store.issueClaim({ origin: other, ownerId: 'key_provider', token: 'x402c_token2', createdAt: NOW, provenAt: null })
    await store.insertService({ ...squat, endpoint: `${other}/squat`, resource: `${other}/squat` })
    t.same((await store.proveClaim(other, 'key_provider', at, 'published the token'))?.map((r) => r.id), [squat.id])
    t.match(await store.getService(squat.id), { ownerId: 'key_provider', claimed: true })
  })

  t.test('findServiceByResource and displaceService', async (t) => {
    const store = await open(t)
    const [holder, other] = demoRecords() as [ServiceRecord, ServiceRecord]
    await store.insertServices([holder, other])
    t.same(await store.findServiceByResource(holder.resource, holder.method), holder)
    t.equal(await store.findServiceByResource('https://nobody.example/x', 'GET'), null)
    const newcomer: ServiceRecord = { ...other, id: 'svc_zzzzzzzzzzzzzzzzzzzzzzzz', endpoint: holder.endpoint, resource: holder.resource, method: holder.method, paymentAddress: '0x2222222222222222222222222222222222222222' }
    const displacement = { id: holder.id, displacedBy: newcomer.id, endpoint: holder.endpoint, ownerId: holder.ownerId, reason: 'the live payTo matched', at: '2025-03-05T00:00:00.000Z' }
    const stale = { ...holder, updatedAt: '2024-01-01T00:00:00.000Z' }
    t.equal(await store.displaceService(stale, newcomer, displacement), false, 'a holder changed since it was read is not displaced')
    t.same(await store.getService(holder.id), holder)
    t.equal(await store.getService(newcomer.id), null)
    t.equal(await store.getDisplacement(holder.id), null)

    const before = await store.latestSeq()
    t.equal(await store.displaceService(holder, newcomer, displacement), true)
    t.equal(await store.getService(holder.id), null)
    t.same(await store.findServiceByResource(holder.resource, holder.method), newcomer)
    t.same(await store.getDisplacement(holder.id), displacement)
    t.equal(await store.getDisplacement(other.id), null)
    const changes = await store.changesSince(before, 10)
    t.same(changes.map((c) => [c.id, c.service === null]), [[holder.id, true], [newcomer.id, false]], 'a tombstone, then the newcomer, both new changes')
    t.equal(await store.displaceService(holder, { ...newcomer, id: 'svc_yyyyyyyyyyyyyyyyyyyyyyyy' }, displacement), false, 'gone holder')
  })

  t.test('deleting the newest service is a change after it, and the next write comes after that', async (t) => {
    const store = await open(t)
    const [a, b, newest, next] = demoRecords() as [ServiceRecord, ServiceRecord, ServiceRecord, ServiceRecord]
    await store.insertServices([a, b, newest])
    const seen = await store.latestSeq()
    await store.deleteService(newest.id)
    t.same((await store.changesSince(seen, 10)).map((c) => [c.id, c.service]), [[newest.id, null]], 'an indexer at the old head sees the deletion')
    const deletedAt = await store.latestSeq()
    t.ok(deletedAt > seen)
    await store.insertService(next)
    t.same((await store.changesSince(deletedAt, 10)).map((c) => [c.id, c.service?.id]), [[next.id, next.id]], 'the numbers move on from the tombstone, not from the highest live service')
  })

  paymentsContract(t, open)
  sourcesContract(t, open)
  originProofsContract(t, open)
}

const SOURCE_NOW = '2026-11-01T00:00:00.000Z'

function sourceRecord (url: string, createdAt = SOURCE_NOW): SourceRecord {
  return { id: newSourceId(), kind: 'bazaar', url, createdAt, lastSync: null, lastCompleteAt: null }
}

/** Sources and provenance: what source sync and a listing's detail rely on. */
function sourcesContract (t: Test, open: OpenStore): void {
  t.test('sources: stored once per kind and URL, oldest first; a pass\'s report kept, the complete time only for a complete pass', async (t) => {
    const store = await open(t)
    const older = sourceRecord('https://facilitator.example.com', '2026-01-01T00:00:00.000Z')
    const newer = sourceRecord('https://other.example.com')
    await store.insertSource(newer)
    await store.insertSource(older)
    await t.rejects(store.insertSource({ ...sourceRecord(older.url), id: newSourceId() }), DuplicateSourceError, 'the same kind and URL again')
    t.same(await store.listSources(), [older, newer])
    t.same(await store.getSource(older.id), older)
    t.equal(await store.getSource('src_0000000000000000'), null)

    const report: SyncReport = { startedAt: SOURCE_NOW, finishedAt: SOURCE_NOW, complete: true, seen: 3, added: 2, updated: 0, unchanged: 1, retired: 0, refusedCount: 1, refused: [{ item: 'https://x.example.com/a', reason: 'no fixed price' }], error: null }
    t.equal(await store.recordSourceSync(older.id, report, SOURCE_NOW), true)
    const failed: SyncReport = { ...report, complete: false, startedAt: '2026-11-02T00:00:00.000Z', finishedAt: '2026-11-02T00:00:00.000Z', error: 'https://facilitator.example.com: the page at offset 100 failed: answered 503, not 200' }
    await store.recordSourceSync(older.id, failed, null)
    t.same(await store.getSource(older.id), { ...older, lastSync: failed, lastCompleteAt: SOURCE_NOW }, 'an incomplete pass leaves the complete time')
    t.equal(await store.recordSourceSync('src_0000000000000000', report, null), false)

    // A catalog source's feed position comes back as written: the next pass follows from it.
    const followed: SyncReport = { ...report, feed: { since: '0', next: '41', wholeAt: SOURCE_NOW } }
    await store.recordSourceSync(newer.id, followed, SOURCE_NOW)
    t.same((await store.getSource(newer.id))?.lastSync, followed)
    const caughtUp: SyncReport = { ...report, seen: 0, feed: { since: '41', next: '41', wholeAt: null } }
    await store.recordSourceSync(newer.id, caughtUp, SOURCE_NOW)
    t.same((await store.getSource(newer.id))?.lastSync, caughtUp)
  })

  t.test('provenance: added once per source and listing, each gain and loss a change; removing a source takes its entries', async (t) => {
    const store = await open(t)
    const [a, b, c] = demoRecords() as [ServiceRecord, ServiceRecord, ServiceRecord]
    await store.insertServices([a, b, c])
    const one = sourceRecord('https://one.example.com')
    const two = sourceRecord('https://two.example.com')
    await store.insertSource(one)
    await store.insertSource(two)

    const dueIds = async (): Promise<string[]> => (await store.dueForProbe('2100-01-01T00:00:00.000Z', 10, false)).map((candidate) => candidate.id).sort()
    t.same(await dueIds(), [], 'seeded listings (no owner, no source) are not probed on schedule')
    let head = await store.latestSeq()
    t.equal(await store.addProvenance(one.id, [a.id, b.id, 'svc_aaaaaaaaaaaaaaaaaaaaaaaa'], '2026-11-01T00:00:00.000Z'), 2, 'unknown listings are skipped')
    t.same(await dueIds(), [a.id, b.id].sort(), 'a listing a source lists is')
    t.same((await store.changesSince(head, 10)).map((change) => change.id).sort(), [a.id, b.id].sort(), 'each listing that gained it is a change')
    head = await store.latestSeq()
    t.equal(await store.addProvenance(one.id, [a.id, b.id], '2026-11-05T00:00:00.000Z'), 0)
    t.equal(await store.latestSeq(), head, 'adding what is there changes nothing')
    await store.addProvenance(two.id, [b.id, c.id], '2026-11-03T00:00:00.000Z')
    t.same(await store.servicesOfSource(one.id), [a.id, b.id].sort())
    const provenance = await store.provenanceOf([b.id, c.id, a.id])
    t.same(provenance.get(b.id), [{ sourceId: one.id, firstSeenAt: '2026-11-01T00:00:00.000Z' }, { sourceId: two.id, firstSeenAt: '2026-11-03T00:00:00.000Z' }], 'oldest first, first seen kept')
    t.same(provenance.get(c.id), [{ sourceId: two.id, firstSeenAt: '2026-11-03T00:00:00.000Z' }])
    t.equal((await store.provenanceOf([])).size, 0)

    head = await store.latestSeq()
    await store.removeProvenance(one.id, [a.id, c.id])
    t.same((await store.changesSince(head, 10)).map((change) => change.id), [a.id], 'only a listing that had it changes')
    t.equal((await store.provenanceOf([a.id])).has(a.id), false)

    head = await store.latestSeq()
    t.same(await store.deleteSource(two.id), [b.id, c.id].sort(), 'the listings that lost it')
    t.same((await store.changesSince(head, 10)).map((change) => change.id).sort(), [b.id, c.id].sort())
    t.same(await store.servicesOfSource(two.id), [])
    t.same(await store.provenanceOf([b.id, c.id]), new Map([[b.id, [{ sourceId: one.id, firstSeenAt: '2026-11-01T00:00:00.000Z' }]]]))
    t.equal(await store.deleteSource(two.id), null)
    t.same((await store.listSources()).map((source) => source.id), [one.id])

    await store.deleteService(b.id)
    t.same(await store.servicesOfSource(one.id), [], 'a deleted listing leaves no provenance behind')
  })

  t.test('insertServices under a source: each new listing carries it within its one change; an unknown source adds nothing', async (t) => {
    const store = await open(t)
    const [a, b, c] = demoRecords() as [ServiceRecord, ServiceRecord, ServiceRecord]
    const source = sourceRecord('https://bazaar.example.com')
    await store.insertSource(source)
    const head = await store.latestSeq()
    await store.insertServices([a, b], undefined, { sourceId: source.id, at: '2026-11-02T00:00:00.000Z' })
    t.same((await store.changesSince(head, 10)).map((change) => change.id).sort(), [a.id, b.id].sort(), 'one change per listing')
    t.same(await store.servicesOfSource(source.id), [a.id, b.id].sort())
    t.same((await store.provenanceOf([a.id])).get(a.id), [{ sourceId: source.id, firstSeenAt: '2026-11-02T00:00:00.000Z' }])
    const after = await store.latestSeq()
    t.equal(await store.addProvenance(source.id, [a.id, b.id], '2026-11-03T00:00:00.000Z'), 0, 'adding it again gains nothing')
    t.equal(await store.latestSeq(), after, 'and moves no feed')
    await store.insertServices([c], undefined, { sourceId: 'src_missing', at: '2026-11-02T00:00:00.000Z' })
    t.equal((await store.provenanceOf([c.id])).has(c.id), false, 'a source not stored is no provenance')
    t.ok(await store.getService(c.id), 'the listing is stored all the same')
  })

  t.test('first probes: a listing a source adds is first due at its spread time, within one interval; an owned one at once', async (t) => {
    const store = await open(t)
    const [base, other] = demoRecords() as [ServiceRecord, ServiceRecord]
    const intervalMs = 3_600_000
    const sourced = Array.from({ length: 200 }, (_, i): ServiceRecord => {
      const endpoint = `https://spread.example.com/r/${i}`
      return { ...base, id: serviceIdForEndpoint(endpoint), endpoint, resource: endpoint, ownerId: null }
    })
    const owned = { ...other, ownerId: 'key_owner' }
    await store.insertServices([...sourced, owned], (record) => firstProbeAt(record, intervalMs))
    const source = sourceRecord('https://spread.example.com')
    await store.insertSource(source)
    await store.addProvenance(source.id, sourced.map((record) => record.id), SOURCE_NOW)
    const dueAfter = async (ms: number): Promise<string[]> => (await store.dueForProbe(new Date(Date.parse(base.createdAt) + ms).toISOString(), 1000, false)).map((c) => c.id)

    t.same(await dueAfter(0), [owned.id], 'the owned listing at once, none of the sourced ones')
    const counts: number[] = []
    for (let tenth = 1; tenth <= 10; tenth++) counts.push((await dueAfter(tenth * intervalMs / 10)).length - 1)
    t.ok(counts.every((count, i) => count > (counts[i - 1] ?? 0)), `every tenth of the interval brings some due (${counts.join(', ')})`)
    t.equal(counts[9], sourced.length, 'and every one is due one interval after it was added')

    const endpoint = 'https://spread.example.com/at-once'
    const plain = { ...base, id: serviceIdForEndpoint(endpoint), endpoint, resource: endpoint, ownerId: null }
    await store.insertService(plain)
    await store.addProvenance(source.id, [plain.id], SOURCE_NOW)
    t.ok((await dueAfter(0)).includes(plain.id), 'inserted without a first-probe time: due at once, as before')
  })
}

const BASE = 'eip155:8453'
const PAY_TO_A = '0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'
const PAY_TO_B = '0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'

/** A payment to PAY_TO_A on BASE unless overridden; txHash from block and logIndex. */
function payment (blockNumber: number, logIndex: number, overrides: Partial<PaymentRecord> = {}): PaymentRecord {
  return {
    network: BASE,
    txHash: `0x${blockNumber.toString(16).padStart(32, '0')}${logIndex.toString(16).padStart(32, '0')}`,
    logIndex,
    blockNumber,
    blockHash: `0x${blockNumber.toString(16).padStart(64, 'b')}`,
    at: new Date(Date.UTC(2026, 0, 1) + blockNumber * 60_000).toISOString(),
    payer: '0x1000000000000000000000000000000000000001',
    payTo: PAY_TO_A,
    amount: '1000',
    serviceId: null,
    ...overrides
  }
}

const keyOf = (p: PaymentRecord): string => `${p.blockNumber}:${p.logIndex}`

/** Payments, checkpoints and usage: what the chain watcher and the usage figures rely on. */
/** Ownership proofs: what a listing's detail shows of its origin's proofs. */
function originProofsContract (t: Test, open: OpenStore): void {
  t.test('origin proofs: replaced per origin, the first check time kept for an unchanged proof, each change a change of the origin\'s listings', async (t) => {
    const store = await open(t)
    const origin = 'https://proven.example.com'
    const [a, b, c] = demoRecords() as [ServiceRecord, ServiceRecord, ServiceRecord]
    const onOrigin = { ...a, endpoint: `${origin}/x`, resource: `${origin}/x` }
    const alsoOnOrigin = { ...b, endpoint: `${origin}/y?q=1`, resource: `${origin}/y?q=1` }
    // A longer host sharing the prefix is another origin.
    const elsewhere = { ...c, endpoint: `${origin}.evil.example/z`, resource: `${origin}.evil.example/z` }
    await store.insertServices([onOrigin, alsoOnOrigin, elsewhere])
    const evm = { address: '0xAbCdEf0000000000000000000000000000000001', document: `${origin}/openapi.json`, checkedAt: '2026-11-01T00:00:00.000Z' }
    const sol = { address: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV', document: `${origin}/openapi.json`, checkedAt: '2026-11-01T00:00:00.000Z' }

    t.same(await store.originProofs([origin]), new Map(), 'none before a read records one')
    let head = await store.latestSeq()
    await store.recordOriginProofs(origin, [sol, evm])
    t.same(await store.originProofs([origin, 'https://other.example.com']), new Map([[origin, [evm, sol]]]), 'by address; origins without any absent')
    t.same((await store.changesSince(head, 10)).map((change) => change.id).sort(), [onOrigin.id, alsoOnOrigin.id].sort(), 'each listing of the origin is a change, no other')

    head = await store.latestSeq()
    await store.recordOriginProofs(origin, [{ ...evm, checkedAt: '2026-11-02T00:00:00.000Z' }, { ...sol, checkedAt: '2026-11-02T00:00:00.000Z' }])
    t.same((await store.originProofs([origin])).get(origin), [evm, sol], 'a proof read again keeps when it was first found valid')
    t.equal(await store.latestSeq(), head, 'and changes nothing a listing shows')

    const moved = { ...evm, document: `${origin}/.well-known/x402`, checkedAt: '2026-11-03T00:00:00.000Z' }
    await store.recordOriginProofs(origin, [moved])
    t.same((await store.originProofs([origin])).get(origin), [moved], 'replaced: a proof no longer found is gone, one from another document is new')
    t.ok(await store.latestSeq() > head)

    head = await store.latestSeq()
    await store.recordOriginProofs(origin, [])
    t.equal((await store.originProofs([origin])).has(origin), false, 'an empty list clears them')
    t.equal((await store.changesSince(head, 10)).length, 2)
    t.same(await store.originProofs([]), new Map())

    await store.recordOriginProofs('https://empty.example.com', [evm])
    t.same((await store.originProofs(['https://empty.example.com'])).get('https://empty.example.com'), [evm], 'an origin without listings keeps its proofs too')
  })
}

function paymentsContract (t: Test, open: OpenStore): void {
  t.test('commitChainScan stores each (network, txHash, logIndex) once and returns how many were new', async (t) => {
    const store = await open(t)
    t.equal(await store.getChainScanState(BASE), null, 'nothing scanned yet')
    const first = [payment(10, 0), payment(10, 1), payment(11, 0, { serviceId: 'svc_aaaaaaaaaaaaaaaaaaaaaaaa' })]
    t.equal(await store.commitChainScan(BASE, { payments: first }), 3)
    t.equal(await store.commitChainScan(BASE, { payments: first }), 0, 'a re-scan of the same range adds nothing')
    const changed = { ...payment(10, 0), amount: '999', payer: '0x2000000000000000000000000000000000000002' }
    t.equal(await store.commitChainScan(BASE, { payments: [changed, payment(12, 3)] }), 1, 'only the new one counts')
    const page = await store.listPayments({ network: BASE, payTo: PAY_TO_A }, { limit: 10, offset: 0 })
    t.equal(page.total, 4)
    t.same(page.items.find((p) => keyOf(p) === '10:0'), payment(10, 0), 'a stored payment is left as it was, field for field')
    t.same(page.items.find((p) => keyOf(p) === '11:0'), first[2], 'serviceId round-trips')
    t.equal(await store.commitChainScan('eip155:84532', { payments: [{ ...payment(10, 0), network: 'eip155:84532' }] }), 1, 'the same tx hash and log index on another network is another payment')
  })

  t.test('checkpoints: newest first, at most CHAIN_CHECKPOINT_HISTORY; scanned payTos per network', async (t) => {
    const store = await open(t)
    const total = CHAIN_CHECKPOINT_HISTORY + 5
    for (let block = 1; block <= total; block++) {
      await store.commitChainScan(BASE, { payments: [], checkpoint: { blockNumber: block * 10, blockHash: `0x${block.toString(16).padStart(64, '0')}` } })
    }
    const state = await store.getChainScanState(BASE)
    t.equal(state?.network, BASE)
    t.equal(state?.checkpoints.length, CHAIN_CHECKPOINT_HISTORY, 'older checkpoints trimmed')
    t.same(state?.checkpoints[0], { blockNumber: total * 10, blockHash: `0x${total.toString(16).padStart(64, '0')}` }, 'the tip first')
    t.same(state?.checkpoints.map((c) => c.blockNumber), Array.from({ length: CHAIN_CHECKPOINT_HISTORY }, (_, i) => (total - i) * 10), 'newest first, no gap')
    t.same(state?.payTos, {}, 'no payTo scanned yet')

    await store.commitChainScan(BASE, { payments: [], scanned: { payTos: [PAY_TO_A, PAY_TO_B], block: 100 } })
    await store.commitChainScan(BASE, { payments: [], scanned: { payTos: [PAY_TO_A], block: 150 } })
    t.same((await store.getChainScanState(BASE))?.payTos, { [PAY_TO_A]: 150, [PAY_TO_B]: 100 }, 'each payTo keeps its own scanned-through block')
    t.equal(await store.getChainScanState('eip155:84532'), null, 'another network has its own state')
    await store.commitChainScan('eip155:84532', { payments: [], scanned: { payTos: [PAY_TO_B], block: 7 } })
    t.same(await store.getChainScanState('eip155:84532'), { network: 'eip155:84532', checkpoints: [], payTos: { [PAY_TO_B]: 7 } }, 'scanned payTos alone are a state')
  })

  t.test('rewindChain drops what was scanned above a block and names the payTos that lost payments', async (t) => {
    const store = await open(t)
    const payToC = '0xcccccccccccccccccccccccccccccccccccccccc'
    const payToD = '0xdddddddddddddddddddddddddddddddddddddddd'
    await store.commitChainScan(BASE, {
      payments: [payment(10, 0), payment(30, 0), payment(20, 0, { payTo: PAY_TO_B }), payment(25, 1, { payTo: payToC })],
      scanned: { payTos: [PAY_TO_A, PAY_TO_B, payToC], block: 30 }
    })
    await store.commitChainScan(BASE, { payments: [], scanned: { payTos: [payToD], block: 15 } })
    for (const block of [10, 20, 30]) await store.commitChainScan(BASE, { payments: [], checkpoint: { blockNumber: block, blockHash: `0x${String(block).padStart(64, '0')}` } })
    const other = { ...payment(30, 0), network: 'eip155:84532' }
    await store.commitChainScan('eip155:84532', { payments: [other], checkpoint: { blockNumber: 30, blockHash: '0x30' } })

    t.same((await store.rewindChain(BASE, 20)).sort(), [PAY_TO_A, payToC].sort(), 'payTos whose payments above block 20 were deleted')
    const state = await store.getChainScanState(BASE)
    t.same(state?.checkpoints.map((c) => c.blockNumber), [20, 10], 'checkpoints above the block are gone')
    t.same(state?.payTos, { [PAY_TO_A]: 20, [PAY_TO_B]: 20, [payToC]: 20, [payToD]: 15 }, 'scanned blocks lowered to it, lower ones kept')
    t.same((await store.listPayments({ network: BASE, payTo: PAY_TO_A }, { limit: 10, offset: 0 })).items.map(keyOf), ['10:0'])
    t.equal((await store.listPayments({ network: BASE, payTo: PAY_TO_B }, { limit: 10, offset: 0 })).total, 1, 'a payment at the block itself stays')
    t.equal((await store.listPayments({ network: BASE, payTo: payToC }, { limit: 10, offset: 0 })).total, 0)
    t.equal((await store.listPayments({ network: 'eip155:84532', payTo: PAY_TO_A }, { limit: 10, offset: 0 })).total, 1, 'another network is untouched')
    t.same(await store.rewindChain(BASE, 20), [], 'nothing left above it')
    t.equal(await store.commitChainScan(BASE, { payments: [payment(30, 0)] }), 1, 'a payment rewound away can be stored again when re-scanned')
  })

  t.test('listPayments: one (network, payTo), newest first by block then log index, paged, with the total', async (t) => {
    const store = await open(t)
    const mine = [payment(5, 2), payment(7, 0), payment(5, 9), payment(9, 1, { amount: '2000' }), payment(7, 4)]
    await store.commitChainScan(BASE, { payments: [...mine, payment(8, 0, { payTo: PAY_TO_B })] })
    await store.commitChainScan('eip155:84532', { payments: [{ ...payment(6, 0), network: 'eip155:84532' }] })
    const all = await store.listPayments({ network: BASE, payTo: PAY_TO_A }, { limit: 10, offset: 0 })
    t.same(all.items.map(keyOf), ['9:1', '7:4', '7:0', '5:9', '5:2'])
    t.equal(all.total, 5, 'another payTo and another network are not counted')
    const page = await store.listPayments({ network: BASE, payTo: PAY_TO_A }, { limit: 2, offset: 1 })
    t.same(page.items.map(keyOf), ['7:4', '7:0'])
    t.equal(page.total, 5, 'the total of the filter, not of the page')
    t.same((await store.listPayments({ network: BASE, payTo: PAY_TO_A }, { limit: 2, offset: 5 })).items, [], 'past the end: empty')
    const priced = await store.listPayments({ network: BASE, payTo: PAY_TO_A, amount: '1000' }, { limit: 10, offset: 0 })
    t.same([priced.items.map(keyOf), priced.total], [['7:4', '7:0', '5:9', '5:2'], 4], 'amount filter')
    const excluded = await store.listPayments({ network: BASE, payTo: PAY_TO_A, excludeAmounts: ['1000'] }, { limit: 10, offset: 0 })
    t.same([excluded.items.map(keyOf), excluded.total], [['9:1'], 1], 'excludeAmounts filter')
  })

  t.test('summarizePayments: count, exact total, distinct payers and the newest time, under every filter', async (t) => {
    const store = await open(t)
    const big = '9007199254740993' // 2^53 + 1: a double would round it
    const payerX = '0x1000000000000000000000000000000000000001'
    const payerY = '0x2000000000000000000000000000000000000002'
    await store.commitChainScan(BASE, {
      payments: [
        payment(1, 0, { payer: payerX, amount: big, at: '2026-01-01T00:00:00.000Z' }),
        payment(2, 0, { payer: payerX, amount: big, at: '2026-01-10T00:00:00.000Z' }),
        payment(3, 0, { payer: payerY, amount: '1000', at: '2026-01-20T00:00:00.000Z' }),
        payment(4, 0, { payer: payerY, amount: '2500', at: '2026-01-30T00:00:00.000Z' }),
        payment(5, 0, { payTo: PAY_TO_B, amount: '7', at: '2026-02-01T00:00:00.000Z' })
      ]
    })
    const filter = { network: BASE, payTo: PAY_TO_A }
    t.same(await store.summarizePayments(filter), { count: 4, totalAtomic: '18014398509485486', uniquePayers: 2, lastAt: '2026-01-30T00:00:00.000Z' }, 'beyond 2^53, summed exactly')
    t.same(await store.summarizePayments({ ...filter, since: '2026-01-10T00:00:00.000Z' }), { count: 3, totalAtomic: '9007199254744493', uniquePayers: 2, lastAt: '2026-01-30T00:00:00.000Z' }, 'since is inclusive')
    t.same(await store.summarizePayments({ ...filter, amount: big }), { count: 2, totalAtomic: '18014398509481986', uniquePayers: 1, lastAt: '2026-01-10T00:00:00.000Z' }, 'an amount beyond 2^53 is matched exactly')
    t.same(await store.summarizePayments({ ...filter, amount: '9007199254740992' }), { count: 0, totalAtomic: '0', uniquePayers: 0, lastAt: null }, '2^53 is not 2^53 + 1')
    t.same(await store.summarizePayments({ ...filter, excludeAmounts: [big, '2500'] }), { count: 1, totalAtomic: '1000', uniquePayers: 1, lastAt: '2026-01-20T00:00:00.000Z' })
    t.same(await store.summarizePayments({ ...filter, excludeAmounts: [] }), await store.summarizePayments(filter), 'no amounts excluded: all')
    t.same(await store.summarizePayments({ network: BASE, payTo: '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee' }), { count: 0, totalAtomic: '0', uniquePayers: 0, lastAt: null }, 'none: zeros and no time')
    t.same(await store.summarizePayments({ network: BASE, payTo: PAY_TO_A.toUpperCase().replace(/^0X/, '0x') }), await store.summarizePayments(filter), 'an EVM payTo in any case')
  })

  t.test('payTosOn and servicesByPayTo: the services listed with a (network, payTo), EVM case-insensitively', async (t) => {
    const store = await open(t)
    const [a, b, c, d] = demoRecords().filter((r) => r.network === BASE) as [ServiceRecord, ServiceRecord, ServiceRecord, ServiceRecord]
    t.ok(d !== undefined, 'the demo has four services on Base')
    const shared = '0xAbCdEf00000000000000000000000000000000aA'
    await store.insertServices([
      { ...a, paymentAddress: shared, createdAt: '2025-01-02T00:00:00.000Z' },
      { ...b, paymentAddress: shared.toLowerCase(), createdAt: '2025-01-01T00:00:00.000Z' },
      { ...c, paymentAddress: PAY_TO_B },
      { ...d, paymentAddress: shared, network: 'eip155:84532', supportedChains: ['eip155:84532'] }
    ])
    t.same((await store.payTosOn(BASE)).sort(), [shared.toLowerCase(), PAY_TO_B].sort(), 'distinct, as payToKey')
    t.same(await store.payTosOn('eip155:1'), [])
    for (const asked of [shared, shared.toLowerCase(), shared.toUpperCase().replace(/^0X/, '0x')]) {
      t.same((await store.servicesByPayTo(BASE, asked)).map((r) => r.id), [b.id, a.id], `${asked}: oldest first, the other network's left out`)
    }
    t.same((await store.servicesByPayTo(BASE, shared))[1], { ...a, paymentAddress: shared, createdAt: '2025-01-02T00:00:00.000Z' }, 'whole records')
    t.same(await store.servicesByPayTo(BASE, '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee'), [])
  })

  t.test('recordUsage: figures kept with the trust score they give; a change-feed event only when the listing shows it', async (t) => {
    const store = await open(t)
    const [a, b] = demoRecords() as [ServiceRecord, ServiceRecord]
    const verified: ServiceRecord = { ...a, status: 'verified', uptimeScore: 100, trustScore: computeTrustScore({ status: 'verified', uptimeScore: 100, usage: null }) }
    await store.insertServices([verified, b])
    const usage: ServiceUsage = {
      txCount: 120,
      revenueAtomic: '9007199254740993',
      uniquePayers: 30,
      lastPaymentAt: '2026-01-30T00:00:00.000Z',
      txCount30d: 12,
      revenue30dAtomic: '12000',
      uniquePayers30d: 4,
      scope: 'service',
      computedAt: '2026-02-01T00:00:00.000Z'
    }
    const trustScore = computeTrustScore({ status: 'verified', uptimeScore: 100, usage })
    t.ok(trustScore > verified.trustScore, 'the figures raise the score')
    const before = await store.latestSeq()
    const stored = await store.recordUsage(a.id, usage)
    t.same(stored, { ...verified, usage, trustScore }, 'answers the service as stored')
    t.same(await store.getService(a.id), { ...verified, usage, trustScore }, 'usage round-trips field for field, revenue beyond 2^53 included')
    const changes = await store.changesSince(before, 10)
    t.same(changes.map((c) => [c.id, c.service?.trustScore]), [[a.id, trustScore]], 'first figures: one change-feed event')
    t.equal(usageChangesListing({ ...verified, usage, trustScore }, { usage: { ...usage, revenueAtomic: '1', computedAt: '2026-02-02T00:00:00.000Z' }, trustScore }), false)
    const head = await store.latestSeq()
    await store.recordUsage(a.id, { ...usage, revenueAtomic: '1', computedAt: '2026-02-02T00:00:00.000Z' })
    t.equal(await store.latestSeq(), head, 'revenue and computedAt alone move nothing search or export shows: no event')
    t.equal((await store.getService(a.id))?.usage?.revenueAtomic, '1', 'but they are stored')
    await store.recordUsage(a.id, { ...usage, txCount30d: 13 })
    t.ok(await store.latestSeq() > head, '30-day calls are exported: an event')
    const listed = await store.listServiceJson({}, { field: 'trustScore', order: 'desc' }, { limit: 1, offset: 0 })
    t.equal((JSON.parse(Buffer.from(listed.json).toString()) as Array<{ id: string, trustScore: number }>)[0]?.trustScore, trustScore, 'lists show the new score')
    t.equal(await store.recordUsage('svc_aaaaaaaaaaaaaaaaaaaaaaaa', usage), null, 'no such service')
  })
}
