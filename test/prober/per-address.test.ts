/**
 * Probes are capped per resolved address, whatever the host is called and whichever path
 * asks (scheduler, ownership decision, on-demand): aliases of one loopback server never get
 * more than the cap at once. The server holds each request a moment so that uncapped probes
 * would overlap; the assertions are on the maximum seen, which the cap bounds whatever the timing.
 */
import { test, type Test } from 'tap'
import type { LookupAddress } from 'node:dns'
import { AddressSlots, addressKey } from '../../src/prober/http-client.js'
import { HttpEndpointProber } from '../../src/prober/endpoint-prober.js'
import type { ProbeTarget } from '../../src/domain/probe.js'
import { startHttpServer } from '../support/x402-servers.js'
import { build, register, validBody } from '../helper.js'

const PAY_TO = '0x1111111111111111111111111111111111111111'

async function until (check: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** A loopback server answering 402 after holding each request `holdMs`; counts requests in flight. */
async function countingServer (t: Test, holdMs = 150) {
  const stats = { inFlight: 0, max: 0, served: 0 }
  const server = await startHttpServer((_req, res) => {
    stats.max = Math.max(stats.max, ++stats.inFlight)
    setTimeout(() => {
      stats.inFlight--
      stats.served++
      res.writeHead(402, { 'content-type': 'application/json' }).end('{}')
    }, holdMs)
  })
  t.teardown(server.close)
  return { ...stats, stats, port: server.port }
}

const target = (endpoint: string): ProbeTarget => ({ endpoint, method: 'GET', network: 'eip155:8453', paymentAddress: PAY_TO, priceAtomic: 1000 })

test('address keys and slots', async (t) => {
  t.equal(addressKey('::ffff:127.0.0.1'), '127.0.0.1', 'IPv4-mapped IPv6 counts as its IPv4 address')
  t.equal(addressKey('::ffff:7f00:1'), '127.0.0.1')
  t.equal(addressKey('2001:db8::1'), '2001:db8::1')
  const slots = new AddressSlots(1)
  const first = await slots.acquire('a', AbortSignal.timeout(60_000))
  let second = false
  const waiting = slots.acquire('a', AbortSignal.timeout(60_000)).then((release) => { second = true; return release })
  t.equal(slots.held('a'), 1)
  const other = await slots.acquire('b', AbortSignal.timeout(60_000))
  t.pass('another address is not held up')
  other()
  const cancelled = new AbortController()
  const gaveUp = slots.acquire('a', cancelled.signal)
  cancelled.abort(new Error('gave up'))
  await t.rejects(gaveUp, /gave up/, 'a waiter can give up')
  t.equal(second, false, 'the second waits while the first holds')
  first()
  first()
  const release = await waiting
  t.equal(second, true, 'and gets the slot once it is released (a double release counts once)')
  t.equal(slots.held('a'), 1)
  release()
  t.equal(slots.held('a'), 0)
})

test('aliases of one address share its probe slots', async (t) => {
  const server = await countingServer(t)
  const names: Record<string, string> = { localhost: '127.0.0.1', 'alias-a.test': '127.0.0.1', 'alias-b.test': '::ffff:127.0.0.1' }
  const prober = new HttpEndpointProber({
    allowPrivate: true,
    timeoutMs: 60_000,
    perAddress: 2,
    lookup: (host, _options, callback) => {
      const address = names[host]
      if (address === undefined) { callback(Object.assign(new Error(`unknown ${host}`), { code: 'ENOTFOUND' }), []); return }
      callback(null, [{ address, family: address.includes(':') ? 6 : 4 } satisfies LookupAddress])
    }
  })
  t.teardown(async () => { await prober.close() })
  const hosts = ['localhost', '127.0.0.1', '127.1', '[::ffff:127.0.0.1]', 'alias-a.test', 'alias-b.test']
  const probes = hosts.flatMap((host) => [1, 2].map(async (i) => await prober.probe(target(`http://${host}:${server.port}/paid/${i}`))))
  const outcomes = await Promise.all(probes)
  for (const outcome of outcomes) t.equal(outcome.httpStatus, 402, `answered: ${outcome.reason}`)
  t.equal(server.stats.served, 12, 'every probe was served')
  t.ok(server.stats.max <= 2, `at most 2 at once across ${hosts.length} aliases (saw ${server.stats.max})`)
})

test('every probe path shares the cap: scheduler, ownership decisions and on-demand probes', async (t) => {
  const server = await countingServer(t)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true, probePerHost: 1, probeIntervalS: 3600, probeTimeoutMs: 60_000 })
  await app.ready()
  const ids: string[] = []
  // Two listings (one address spelt two ways, which canonicalise alike: so two paths too).
  for (const [host, path] of [['127.0.0.1', '/paid/a'], ['[::ffff:127.0.0.1]', '/paid/b']] as const) {
    const res = await register(app, validBody({ endpoint: `http://${host}:${server.port}${path}`, x402Config: { paymentAddress: PAY_TO, network: 'base' } }))
    t.equal(res.statusCode, 201, `registered on ${host}`)
    ids.push(res.json().id as string)
  }
  // The scheduler probes both registrations now; on-demand and ownership probes join in.
  const onDemand = ids.map(async (id) => await app.prober.probeService(id))
  const ownership = ['127.0.0.1', '[::ffff:7f00:1]'].map(async (host) => await app.prober.probe(target(`http://${host}:${server.port}/other`)))
  const outcomes = await Promise.all([...onDemand, ...ownership])
  for (const outcome of outcomes) t.equal(outcome?.httpStatus, 402, 'answered')
  await until(() => server.stats.served >= 6, 'the scheduled probes too')
  t.equal(server.stats.max, 1, 'one probe at a time on the address (CATALOG_PROBE_PER_HOST=1), whichever path asked')
})

test('a slow resolver: a probe gives up at its deadline and holds at most the lookup cap of threads', async (t) => {
  // A resolver that answers only when told: a stand-in for getaddrinfo stuck on a slow DNS server.
  const pending: Array<() => void> = []
  const prober = new HttpEndpointProber({
    allowPrivate: true,
    timeoutMs: 5000,
    lookupsInFlight: 2,
    lookup: (_host, _options, callback) => {
      pending.push(() => { callback(Object.assign(new Error('no such host'), { code: 'ENOTFOUND' }), []) })
    }
  })
  t.teardown(async () => { await prober.close() })
  // A real lookup keeps the process alive; this one does not, and the probe deadline's timer is unref'd.
  const alive = setInterval(() => {}, 1000)
  t.teardown(() => { clearInterval(alive) })
  const outcomes = await Promise.all(['a', 'b', 'c', 'd'].map(async (host) => await prober.probe(target(`http://slow-${host}.test/paid`))))
  for (const outcome of outcomes) {
    t.equal(outcome.httpStatus, null)
    t.match(outcome.reason, /^timeout after 5 s looking up slow-[a-d]\.test \(DNS\)$/, 'each probe ended at its own deadline, the reason naming the lookup')
  }
  t.equal(pending.length, 2, 'only two lookups were started: the others waited for a slot and gave up')
  // The abandoned lookups still hold their slots (and threads) until the resolver answers them.
  const next = prober.probe(target('http://slow-e.test/paid'))
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(pending.length, 2, 'no lookup starts while the abandoned two are still running')
  for (const answer of pending.splice(0)) answer()
  await until(() => pending.length === 1, 'the waiting probe\'s lookup')
  ;(pending.pop() as () => void)()
  t.equal((await next).reason, 'host not found (DNS)', 'once they returned, the waiting probe looked its name up')
})

test('a resolver that throws gives its lookup slot back', async (t) => {
  let calls = 0
  const prober = new HttpEndpointProber({
    allowPrivate: true,
    timeoutMs: 5000,
    lookupsInFlight: 1,
    lookup: () => { calls++; throw new TypeError('resolver broke') }
  })
  t.teardown(async () => { await prober.close() })
  for (const host of ['a', 'b', 'c']) {
    const outcome = await prober.probe(target(`http://broken-${host}.test/paid`))
    t.match(outcome.reason, /resolver broke/, `probe of broken-${host} ends with the resolver's error, at once`)
  }
  t.equal(calls, 3, 'each probe got the one slot in turn')
})
