/**
 * The CatalogStore contract, written once and run against every adapter whose server is
 * configured (catalog-store.test.ts). It checks the port's documented behaviour with the
 * demo catalog, comparing every list against a reference computed here.
 */
import type { Test } from 'tap'
import { readSeedFile, seedRecords } from '../../src/domain/seed.js'
import { toServiceJson, type ServiceRecord } from '../../src/domain/service.js'
import type { ProbeOutcome } from '../../src/domain/probe.js'
import { DuplicateEndpointError } from '../../src/errors.js'
import type { CatalogStore } from '../../src/store/catalog-store.js'
import { SORT_FIELDS, type CatalogFilter, type ServiceSort } from '../../src/domain/catalog-query.js'
import { nameSortKey } from '../../src/domain/sort-keys.js'
import { payToKey } from '../../src/domain/pay-to.js'
import { computeTrustScore } from '../../src/domain/trust.js'
import { openCatalogStore } from '../../src/adapters.js'
import { FeedTail, missedChanges, startWriter, type StoreOpening } from '../support/feed-order.js'

/** Opens a fresh, empty store, closed and removed when `t` ends. */
export type OpenStore = (t: Test) => Promise<CatalogStore>
/** Names a fresh, empty store for openCatalogStore (so other processes can open it too), removed when `t` ends. */
export type NameStore = (t: Test) => Promise<StoreOpening>

/** Services each writer process of the concurrency check inserts (with half as many updates and a fifth as many deletions). */
const WRITER_SERVICES = 60

const NOW = '2025-03-04T05:06:07.089Z'
export const demoRecords = (): ServiceRecord[] => seedRecords(readSeedFile('demo'), NOW)

function sortValue (record: ServiceRecord, sort: ServiceSort): string | number {
  switch (sort.field) {
    case 'price': return record.priceAtomic
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
      (filter.maxPriceAtomic === undefined || r.priceAtomic <= filter.maxPriceAtomic) &&
      (filter.payTo === undefined || payToKey(r.paymentAddress) === payToKey(filter.payTo)))
    .sort((a, b) => direction * (compare(sortValue(a, sort), sortValue(b, sort)) || compare(a.id, b.id)))
    .map((r) => r.id)
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
    await t.resolves(store.ping())
  })

  t.test('a taken endpoint is a DuplicateEndpointError and changes nothing', async (t) => {
    const store = await open(t)
    const [first, second] = demoRecords() as [ServiceRecord, ServiceRecord]
    await store.insertService(first)
    const latest = await store.latestSeq()
    const clash = { ...second, endpoint: first.endpoint }
    await t.rejects(store.insertService(clash), DuplicateEndpointError)
    t.equal(await store.getService(clash.id), null)
    t.equal(await store.latestSeq(), latest, 'a refused write takes no sequence')
    t.same(await store.getService(first.id), first, 'the registered service is untouched')
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
    await t.rejects(store.insertService({ ...a, endpoint: b.endpoint }), DuplicateEndpointError, 'the same id at another service\'s endpoint: that endpoint is taken')
    t.same(await store.getService(a.id), a, 'nothing changed')
    t.equal(await store.latestSeq(), latest)
  })

  t.test('insertServices is all or nothing', async (t) => {
    const store = await open(t)
    const [a, b, c] = demoRecords() as [ServiceRecord, ServiceRecord, ServiceRecord]
    await store.insertService(a)
    await t.rejects(store.insertServices([b, { ...c, endpoint: a.endpoint }]), DuplicateEndpointError)
    t.equal(await store.getService(b.id), null, 'the valid record of a refused batch is not stored')
    t.equal(await store.countServices(), 1)
  })

  t.test('listServices: every filter × sort × order against the reference, with paging', async (t) => {
    const store = await open(t)
    const records = demoRecords()
    await store.insertServices(records)
    const chains = [...new Set(records.flatMap((r) => r.supportedChains))]
    const prices = records.map((r) => r.priceAtomic).sort((a, b) => a - b)
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
      { category: 'no-such-category' }
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
    await store.insertService({ ...a })
    t.same(await store.getService(a.id), a, 'a deleted endpoint can be registered again')
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
    await t.rejects(store.updateService({ ...b, endpoint: a.endpoint }), DuplicateEndpointError, 'an update cannot take another service\'s endpoint')
    t.equal(await store.updateService({ ...a, id: 'svc_nobody' }), false, 'no service, no update')
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
    const records = demoRecords()
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
    for (const filter of [{ status: 'verified' as const }, { category: 'weather' }, { chain: 'eip155:8453' }, { payTo }, { payTo: payTo.toUpperCase().replace('0X', '0x') }]) {
      t.same(await walk(filter, 5), sortedIds(filter), JSON.stringify(filter))
    }
    t.same(await walk({ category: 'no-such-category' }, 5), [])
  })

  t.test('listServiceJson: the same page as listServices, as the JSON array of each toServiceJson, after every kind of write', async (t) => {
    const store = await open(t)
    const records = demoRecords()
    await store.insertServices(records)
    const sorts: ServiceSort[] = [{ field: 'createdAt', order: 'desc' }, { field: 'price', order: 'asc' }, { field: 'name', order: 'asc' }]
    const same = async (why: string): Promise<void> => {
      for (const filter of [{}, { status: 'verified' as const }, { maxPriceAtomic: (records[3] as ServiceRecord).priceAtomic }]) {
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

  t.test('findServiceByEndpoint and displaceService', async (t) => {
    const store = await open(t)
    const [holder, other] = demoRecords() as [ServiceRecord, ServiceRecord]
    await store.insertServices([holder, other])
    t.same(await store.findServiceByEndpoint(holder.endpoint), holder)
    t.equal(await store.findServiceByEndpoint('https://nobody.example/x'), null)
    const newcomer: ServiceRecord = { ...other, id: 'svc_zzzzzzzzzzzzzzzzzzzzzzzz', endpoint: holder.endpoint, paymentAddress: '0x2222222222222222222222222222222222222222' }
    const displacement = { id: holder.id, displacedBy: newcomer.id, endpoint: holder.endpoint, ownerId: holder.ownerId, reason: 'the live payTo matched', at: '2025-03-05T00:00:00.000Z' }
    const stale = { ...holder, updatedAt: '2024-01-01T00:00:00.000Z' }
    t.equal(await store.displaceService(stale, newcomer, displacement), false, 'a holder changed since it was read is not displaced')
    t.same(await store.getService(holder.id), holder)
    t.equal(await store.getService(newcomer.id), null)
    t.equal(await store.getDisplacement(holder.id), null)

    const before = await store.latestSeq()
    t.equal(await store.displaceService(holder, newcomer, displacement), true)
    t.equal(await store.getService(holder.id), null)
    t.same(await store.findServiceByEndpoint(holder.endpoint), newcomer)
    t.same(await store.getDisplacement(holder.id), displacement)
    t.equal(await store.getDisplacement(other.id), null)
    const changes = await store.changesSince(before, 10)
    t.same(changes.map((c) => [c.id, c.service === null]), [[holder.id, true], [newcomer.id, false]], 'a tombstone, then the newcomer, both new changes')
    t.equal(await store.displaceService(holder, { ...newcomer, id: 'svc_yyyyyyyyyyyyyyyyyyyyyyyy' }, displacement), false, 'gone holder')
  })

  t.test('deleting the newest service is a change after it', async (t) => {
    const store = await open(t)
    const records = demoRecords().slice(0, 3)
    await store.insertServices(records)
    const seen = await store.latestSeq()
    await store.deleteService((records[2] as ServiceRecord).id)
    t.same((await store.changesSince(seen, 10)).map((c) => [c.id, c.service]), [[(records[2] as ServiceRecord).id, null]], 'an indexer at the old head sees the deletion')
  })
}
