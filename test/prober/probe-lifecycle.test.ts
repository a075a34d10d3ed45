/** Probes recorded through the app: status lifecycle, the status and probes endpoints, the store's bookkeeping, one prober per store. */
import { test } from 'tap'
import { pino } from 'pino'
import { build, register, tempDataDir, validBody } from '../helper.js'
import { startX402Server } from '../support/x402-servers.js'
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js'
import { PROBE_HISTORY_LIMIT } from '../../src/domain/lifecycle.js'
import { ProbeScheduler } from '../../src/prober/scheduler.js'
import { ServiceMonitor } from '../../src/prober/monitor.js'
import type { EndpointProber, ProbeOutcome } from '../../src/domain/probe.js'

const PAY_TO = '0x1111111111111111111111111111111111111111'

async function until (check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

test('a registration is probed soon after its 201 and becomes verified; status says why', async (t) => {
  const server = await startX402Server({ payTo: PAY_TO })
  t.teardown(server.close)
  const app = await build(t, { seed: 'none', probeIntervalS: 3600, probeAllowPrivate: true })
  await app.ready()
  const res = await register(app, validBody({ endpoint: server.url, x402Config: { paymentAddress: PAY_TO, network: 'base' } }))
  t.equal(res.statusCode, 201)
  t.equal(res.json().status, 'unverified', 'the 201 does not wait for the probe')
  const id = res.json().id as string
  await until(async () => (await app.inject(`/api/services/${id}/status`)).json().status === 'verified', 'verified')
  const status = (await app.inject(`/api/services/${id}/status`)).json()
  t.match(status, { status: 'verified', uptimeScore: 100, txCount: 0, totalRevenue: 0, revenueSource: 'none', lastProbe: { matched: true, httpStatus: 402, reason: 'matches the registration' } })
  t.equal(status.lastChecked, status.lastProbe.checkedAt)
  t.equal(status.trustScore, 75, 'verified 40 + uptime 35, no traffic')
  const detail = (await app.inject(`/api/services/${id}`)).json()
  t.equal(detail.status, 'verified')
  await app.searchReady()
  const listed = (await app.inject('/api/services?status=verified')).json()
  t.same(listed.map((s: { id: string }) => s.id), [id], 'the list filter follows')
  const record = await app.store.getService(id)
  t.match(record?.paymentRequirements, [{ payTo: PAY_TO, amount: '1000', network: 'eip155:8453' }], 'the real requirements are kept')
})

test('mismatch, outage and recovery through on-demand probes; the probes listing', async (t) => {
  const good = await startX402Server({ payTo: PAY_TO })
  const port = good.port
  const app = await build(t, { seed: 'none', probeAllowPrivate: true, probeTimeoutMs: 1000 })
  const body = validBody({ endpoint: good.url, x402Config: { paymentAddress: PAY_TO, network: 'base' } })
  const id = (await register(app, body)).json().id as string
  t.equal(await app.prober.probeService('svc_aaaaaaaaaaaaaaaaaaaaaaaa'), null, 'no such service')
  app.prober.enqueue(id) // probing off: a no-op
  t.match(await app.prober.probeService(id), { matched: true })
  t.equal((await app.inject(`/api/services/${id}/status`)).json().status, 'verified')

  // The endpoint now asks for a different payee: unverified, with the reason.
  await good.close()
  const other = await startX402Server({ payTo: '0x3333333333333333333333333333333333333333', port })
  t.match(await app.prober.probeService(id), { matched: false, answered402: true })
  let status = (await app.inject(`/api/services/${id}/status`)).json()
  t.match(status, { status: 'unverified', uptimeScore: 100, lastProbe: { matched: false, reason: 'payTo 0x3333…3333 differs from registered 0x1111…1111' } })

  // The server goes down: three failures in a row make it inactive.
  await other.close()
  for (let i = 0; i < 3; i++) t.match(await app.prober.probeService(id), { answered402: false, reason: 'connection refused' })
  status = (await app.inject(`/api/services/${id}/status`)).json()
  t.match(status, { status: 'inactive', uptimeScore: 40, lastProbe: { httpStatus: null, reason: 'connection refused' } })
  t.equal(status.trustScore, 0, 'inactive 0, and uptime counts only while verified')

  // It comes back: verified again.
  const back = await startX402Server({ payTo: PAY_TO, port })
  t.teardown(back.close)
  t.match(await app.prober.probeService(id), { matched: true })
  t.match((await app.inject(`/api/services/${id}/status`)).json(), { status: 'verified', uptimeScore: 50 })

  const page = await app.inject(`/api/services/${id}/probes?limit=2`)
  t.equal(page.statusCode, 200)
  t.equal(page.headers['x-total-count'], '6')
  const probes = page.json()
  t.equal(probes.length, 2)
  t.match(probes[0], { matched: true, httpStatus: 402, x402Version: 2, accepts: [{ payTo: PAY_TO }] })
  t.match(probes[1], { matched: false, httpStatus: null, reason: 'connection refused', accepts: null })
  t.ok(Date.parse(probes[0].checkedAt) >= Date.parse(probes[1].checkedAt), 'newest first')
  const rest = (await app.inject(`/api/services/${id}/probes?offset=2&limit=10`)).json()
  t.equal(rest.length, 4)
  t.match(rest[3], { matched: true }, 'the oldest is the first match')
  t.equal((await app.inject(`/api/services/${id}/probes?limit=0`)).statusCode, 400)
  t.equal((await app.inject(`/api/services/${id}/probes?sort=x`)).statusCode, 400)
  t.same((await app.inject(`/api/services/${id}/probes`)).headers['x-total-count'], '6')

  // app.prober.probe stores nothing.
  t.match(await app.prober.probe({ endpoint: back.url, method: 'GET', network: 'eip155:8453', paymentAddress: PAY_TO, priceAtomic: 1 }), { matched: false, reason: /price 0\.001 USDC differs from registered 0\.000001 USDC/ })
  t.equal((await app.store.listProbes(id, { limit: 100, offset: 0 })).total, 6)
})

function fakeProber (kinds: Array<'match' | 'fail'>): EndpointProber {
  return {
    probe: async () => {
      const kind = kinds.shift() ?? 'match'
      const outcome: ProbeOutcome = {
        checkedAt: new Date().toISOString(),
        httpStatus: kind === 'match' ? 402 : null,
        x402Version: kind === 'match' ? 2 : null,
        latencyMs: 1,
        answered402: kind === 'match',
        matched: kind === 'match',
        reason: kind,
        accepts: kind === 'match' ? [{ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: 'x', payTo: PAY_TO, maxTimeoutSeconds: 60 }] : null
      }
      return outcome
    }
  }
}

test('store: the change feed moves only when search or export would see a change; history is bounded', async (t) => {
  const dir = tempDataDir(t)
  const app = await build(t, { seed: 'none', dataDir: dir })
  const id = (await register(app, validBody())).json().id as string
  const store = app.store
  const monitor = new ServiceMonitor(store, fakeProber(['match', 'match', 'match', 'fail', 'fail']), 0)
  const target = { endpoint: 'x', method: 'GET' as const, network: 'eip155:8453', paymentAddress: PAY_TO, priceAtomic: 1000 }
  const seq0 = await store.latestSeq()
  await monitor.probeAndRecord(id, target)
  const seq1 = await store.latestSeq()
  t.ok(seq1 > seq0, 'unverified → verified is a change')
  await monitor.probeAndRecord(id, target)
  await monitor.probeAndRecord(id, target)
  t.equal(await store.latestSeq(), seq1, 'the same answer again changes nothing search or export sees')
  await monitor.probeAndRecord(id, target)
  t.ok(await store.latestSeq() > seq1, 'uptime falling moves the trust score: a change')
  const changes = await store.changesSince(seq0, 10)
  t.same(changes.map((c) => c.id), [id])
  t.equal(await monitor.probeAndRecord('svc_aaaaaaaaaaaaaaaaaaaaaaaa', target), null)

  const many = new ServiceMonitor(store, fakeProber([]), 0)
  for (let i = 0; i < PROBE_HISTORY_LIMIT + 5; i++) await many.probeAndRecord(id, target)
  t.equal((await store.listProbes(id, { limit: 1, offset: 0 })).total, PROBE_HISTORY_LIMIT, `at most ${PROBE_HISTORY_LIMIT} probes kept per service`)
  t.ok(await store.deleteService(id))
  t.equal((await store.listProbes(id, { limit: 1, offset: 0 })).total, 0, 'a deleted service takes its probes along')
})

test('scheduling: due services, per-host limit, and exactly one prober per store', async (t) => {
  const dir = tempDataDir(t)
  const app = await build(t, { seed: 'demo', dataDir: dir })
  const ids: string[] = []
  for (let i = 0; i < 3; i++) ids.push((await register(app, validBody({ endpoint: `https://one.example/${i}` }))).json().id)
  ids.push((await register(app, validBody({ endpoint: 'https://two.example/x' }))).json().id)

  const now = new Date().toISOString()
  const due = await app.store.dueForProbe(now, 100, false)
  t.same(due.map((c) => c.id).sort(), [...ids].sort(), 'registrations are due; demo seeds are not probed on schedule')
  t.ok((await app.store.dueForProbe(now, 1000, true)).length > ids.length, 'seeded services too when asked')

  const a = new SqliteCatalogStore(dir)
  const b = new SqliteCatalogStore(dir)
  t.teardown(async () => { await a.close(); await b.close() })
  // Which prober probed what: only the one holding the lease may probe.
  const probed: Array<{ by: string, endpoint: string }> = []
  const started: string[] = []
  let inFlight = 0
  let maxPerHostOne = 0
  const slowProber = (by: string): EndpointProber => ({
    probe: async (target) => {
      started.push(by)
      const one = target.endpoint.startsWith('https://one.')
      if (one) maxPerHostOne = Math.max(maxPerHostOne, ++inFlight)
      await new Promise((resolve) => setTimeout(resolve, 30))
      if (one) inFlight--
      probed.push({ by, endpoint: target.endpoint })
      return await fakeProber(['match']).probe(target)
    }
  })
  const logger = pino({ level: 'silent' })
  const schedulerA = new ProbeScheduler({ store: a, monitor: new ServiceMonitor(a, slowProber('A'), 3600_000), logger, concurrency: 4, perHost: 1, includeSeeded: false, pollMs: 50, holder: 'A' })
  const schedulerB = new ProbeScheduler({ store: b, monitor: new ServiceMonitor(b, slowProber('B'), 3600_000), logger, concurrency: 4, perHost: 1, includeSeeded: false, pollMs: 50, holder: 'B', leaseTtlMs: 30_000 })
  schedulerA.start()
  await until(async () => started.length > 0, 'A starts probing')
  // B starts while one.example's services still wait their turn (one probe per host at a time).
  schedulerB.start()
  await until(async () => probed.length === 4, 'all four probed')
  t.same(probed.map((p) => p.endpoint).sort(), ['https://one.example/0', 'https://one.example/1', 'https://one.example/2', 'https://two.example/x'], 'each due service probed once')
  t.equal(maxPerHostOne, 1, 'one probe at a time on one host')
  t.same([...new Set(started)], ['A'], 'the second prober on the same DATA_DIR waits: only the lease holder probes')
  t.equal((await app.store.dueForProbe(new Date().toISOString(), 100, false)).length, 0, 'nothing due until the next interval')
  for (const id of ids) t.equal((await app.inject(`/api/services/${id}/status`)).json().status, 'verified')

  // A PATCH or a re-probe request makes one due again; whichever prober holds the lease runs it.
  await schedulerA.stop()
  t.ok(await a.markProbeDue(ids[3] as string))
  t.equal(await a.markProbeDue('svc_aaaaaaaaaaaaaaaaaaaaaaaa'), false)
  await until(async () => probed.length === 5, 'B takes over once A stops')
  t.same(probed[4], { by: 'B', endpoint: 'https://two.example/x' })
  await schedulerB.stop()
  t.ok(await a.acquireLease('prober', 'C', 1000, Date.now()), 'a stopped prober gives the lease up')
  t.notOk(await b.acquireLease('prober', 'D', 1000, Date.now()), 'held by C')
  t.ok(await b.acquireLease('prober', 'D', 1000, Date.now() + 2000), 'an expired lease can be taken')
})
