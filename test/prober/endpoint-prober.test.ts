/** The HTTP prober against real x402 servers (official middleware) and broken ones, on 127.0.0.1. */
import { test, type Test } from 'tap'
import { encodePaymentRequiredHeader } from '@x402/core/http'
import { HttpEndpointProber, PROBER_USER_AGENT } from '../../src/prober/endpoint-prober.js'
import type { ProbeTarget } from '../../src/domain/probe.js'
import { classifyAddress } from '../../src/prober/address-guard.js'
import { startHttpServer, startX402Server, x402V1Available, X402_V1_SKIP } from '../support/x402-servers.js'

const PAY_TO = '0x1111111111111111111111111111111111111111'
const OTHER = '0x2222222222222222222222222222222222222222'
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'

function target (endpoint: string, overrides: Partial<ProbeTarget> = {}): ProbeTarget {
  return { endpoint, method: 'GET', network: 'eip155:8453', paymentAddress: PAY_TO, priceAtomic: 1000, ...overrides }
}

function prober (t: Test, options: { allowPrivate?: boolean, timeoutMs?: number } = {}): HttpEndpointProber {
  const p = new HttpEndpointProber({ allowPrivate: options.allowPrivate ?? true, timeoutMs: options.timeoutMs ?? 5000 })
  t.teardown(async () => { await p.close() })
  return p
}

test('v2 (@x402/express): match, and each mismatch named', async (t) => {
  const server = await startX402Server({ payTo: PAY_TO, price: '$0.001', network: 'base' })
  t.teardown(server.close)
  const p = prober(t)
  const ok = await p.probe(target(server.url))
  t.match(ok, { httpStatus: 402, x402Version: 2, answered402: true, matched: true, reason: 'matches the registration' })
  t.match(ok.accepts, [{ network: 'eip155:8453', amount: '1000', asset: BASE_USDC, payTo: PAY_TO }])
  t.ok(typeof ok.latencyMs === 'number' && ok.latencyMs >= 0)
  t.ok(!Number.isNaN(Date.parse(ok.checkedAt)))

  t.match(await p.probe(target(server.url, { paymentAddress: OTHER })), { answered402: true, matched: false, reason: 'payTo 0x1111…1111 differs from registered 0x2222…2222' })
  t.match(await p.probe(target(server.url, { priceAtomic: 2000 })), { matched: false, reason: 'price 0.001 USDC differs from registered 0.002 USDC' })
  t.match(await p.probe(target(server.url, { network: 'eip155:84532' })), { matched: false, reason: 'network eip155:8453 differs from registered eip155:84532' })
})

test('v2 on Solana: exact payTo', async (t) => {
  const sol = 'So11111111111111111111111111111111111111112'
  const server = await startX402Server({ payTo: sol, network: 'solana' })
  t.teardown(server.close)
  const p = prober(t)
  t.match(await p.probe(target(server.url, { network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', paymentAddress: sol })), { matched: true })
})

test('POST-only route: probed with the registered method', async (t) => {
  const server = await startX402Server({ payTo: PAY_TO, method: 'POST' })
  t.teardown(server.close)
  const p = prober(t)
  t.match(await p.probe(target(server.url, { method: 'POST' })), { matched: true, httpStatus: 402 })
  t.match(await p.probe(target(server.url)), { matched: false, answered402: false, httpStatus: 404, reason: 'answered 404, not 402' }, 'a GET on a POST route is a 404')
})

if (!x402V1Available()) console.error(`\n*** ${X402_V1_SKIP} ***\n`)
test('v1 (x402-express): match and mismatch', { skip: x402V1Available() ? false : X402_V1_SKIP }, async (t) => {
  const server = await startX402Server({ version: 1, payTo: PAY_TO, network: 'base' })
  t.teardown(server.close)
  const p = prober(t)
  t.match(await p.probe(target(server.url)), { x402Version: 1, matched: true, accepts: [{ network: 'eip155:8453', amount: '1000' }] })
  t.match(await p.probe(target(server.url, { priceAtomic: 5 })), { x402Version: 1, matched: false, reason: /price 0\.001 USDC differs from registered 0\.000005 USDC/ })
})

test('requests like a paying client: method, Accept JSON, catalog user agent', async (t) => {
  const seen: Array<Record<string, unknown>> = []
  const server = await startHttpServer((req, res) => {
    seen.push({ method: req.method, accept: req.headers.accept, ua: req.headers['user-agent'] })
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"free":true}')
  })
  t.teardown(server.close)
  const p = prober(t)
  t.match(await p.probe(target(server.origin + '/x', { method: 'PUT' })), { httpStatus: 200, answered402: false, matched: false, reason: 'answered 200, not 402', accepts: null })
  t.same(seen, [{ method: 'PUT', accept: 'application/json', ua: PROBER_USER_AGENT }])
  t.match(PROBER_USER_AGENT, /^x402-service-catalog-prober\/\d+\.\d+\.\d+ \(\+/)
})

test('broken answers: garbage header, no requirements, timeout, refused', async (t) => {
  const server = await startHttpServer((req, res) => {
    if (req.url === '/garbage') res.writeHead(402, { 'payment-required': 'not%base64!' }).end()
    else if (req.url === '/invalid') res.writeHead(402, { 'payment-required': Buffer.from('{"x402Version":2,"accepts":"no"}').toString('base64') }).end()
    else if (req.url === '/html') res.writeHead(402, { 'content-type': 'text/html' }).end('<html>pay</html>')
    else if (req.url === '/slow') setTimeout(() => { if (!res.destroyed) res.writeHead(402).end() }, 3000)
  })
  t.teardown(server.close)
  // Only the slow answer meets the short budget: the others must not, however loaded the machine.
  const p = prober(t)
  t.match(await p.probe(target(server.origin + '/garbage')), { httpStatus: 402, answered402: false, reason: /^invalid PAYMENT-REQUIRED header/ })
  t.match(await p.probe(target(server.origin + '/invalid')), { httpStatus: 402, answered402: false, reason: /^invalid PAYMENT-REQUIRED header: / })
  t.match(await p.probe(target(server.origin + '/html')), { answered402: false, reason: /body is not JSON/ })
  const slow = await prober(t, { timeoutMs: 400 }).probe(target(server.origin + '/slow'))
  t.match(slow, { httpStatus: null, answered402: false, reason: 'timeout after 0.4 s' })
  const port = server.port
  await server.close()
  t.match(await p.probe(target(`http://127.0.0.1:${port}/gone`)), { httpStatus: null, reason: 'connection refused' })
})

test('large headers: a legal 100 KiB PAYMENT-REQUIRED parses; beyond the cap is a clear reason', async (t) => {
  const big = {
    x402Version: 2,
    resource: { url: 'http://127.0.0.1/x', description: 'd'.repeat(100 * 1024), mimeType: '' },
    accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: BASE_USDC, payTo: PAY_TO, maxTimeoutSeconds: 60 }]
  }
  const header = encodePaymentRequiredHeader(big as never)
  t.ok(header.length > 64 * 1024, 'the header is over 64 KiB')
  const server = await startHttpServer((req, res) => {
    if (req.url === '/big') res.writeHead(402, { 'payment-required': header }).end()
    else res.writeHead(402, { 'payment-required': header, 'x-padding': 'p'.repeat(300 * 1024) }).end()
  }, { maxHeaderSize: 1024 * 1024 })
  t.teardown(server.close)
  const p = prober(t)
  t.match(await p.probe(target(server.origin + '/big')), { matched: true, x402Version: 2 })
  t.match(await p.probe(target(server.origin + '/huge')), { httpStatus: null, reason: /^response headers too large/ })
})

test('redirects: followed and re-checked, at most 3', async (t) => {
  const paid = await startX402Server({ payTo: PAY_TO })
  t.teardown(paid.close)
  const server = await startHttpServer((req, res) => {
    const hops = Number(/\/hop\/(\d+)/.exec(req.url ?? '')?.[1] ?? 0)
    if (req.url === '/to-paid') res.writeHead(302, { location: paid.url }).end()
    else if (req.url === '/to-private') res.writeHead(307, { location: 'http://10.0.0.1/paid' }).end()
    else if (req.url === '/to-file') res.writeHead(302, { location: 'file:///etc/passwd' }).end()
    else res.writeHead(302, { location: `/hop/${hops + 1}` }).end()
  })
  t.teardown(server.close)
  const open = prober(t)
  t.match(await open.probe(target(server.origin + '/to-paid')), { matched: true }, 'a redirect to the paid route is followed')
  t.match(await open.probe(target(server.origin + '/hop/0')), { httpStatus: null, reason: 'more than 3 redirects' })
  t.match(await open.probe(target(server.origin + '/to-file')), { reason: /^blocked: file URL/ })
})

test('SSRF guard on: every blocked form refused at connect time, on every hop', async (t) => {
  const paid = await startX402Server({ payTo: PAY_TO })
  t.teardown(paid.close)
  const guarded = prober(t, { allowPrivate: false, timeoutMs: 2000 })
  const port = paid.port
  const forms: Array<[string, RegExp]> = [
    [`http://127.0.0.1:${port}/paid`, /^blocked: loopback address 127\.0\.0\.1$/],
    [`http://localhost:${port}/paid`, /^blocked: loopback address (127\.0\.0\.1|::1) \(localhost\)$/],
    [`http://2130706433:${port}/paid`, /loopback address 127\.0\.0\.1/],
    [`http://0x7f.1:${port}/paid`, /loopback address 127\.0\.0\.1/],
    [`http://0177.0.0.1:${port}/paid`, /loopback address 127\.0\.0\.1/],
    [`http://127.1:${port}/paid`, /loopback address 127\.0\.0\.1/],
    [`http://[::1]:${port}/paid`, /loopback address ::1/],
    [`http://[::ffff:127.0.0.1]:${port}/paid`, /loopback address ::ffff:7f00:1 \(127\.0\.0\.1\)/],
    ['http://169.254.169.254/latest/meta-data/', /cloud metadata address 169\.254\.169\.254/],
    ['http://[fd00:ec2::254]/', /cloud metadata address fd00:ec2::254/],
    ['http://10.1.2.3/', /private address 10\.1\.2\.3/],
    ['http://100.64.1.1/', /carrier-grade NAT/],
    ['http://0.0.0.0/', /unspecified/],
    ['http://224.0.0.1/', /multicast/],
    ['http://[64:ff9b::a00:1]/', /private.*10\.0\.0\.1/],
    ['http://[2002:c0a8:101::1]/', /private.*192\.168\.1\.1/]
  ]
  for (const [url, reason] of forms) {
    const result = await guarded.probe(target(url))
    t.match(result, { httpStatus: null, answered402: false, reason }, url)
  }
  t.match(await guarded.probe(target('ftp://example.com/x')), { reason: /^blocked: ftp URL/ })

  // A redirector the policy lets through (standing in for a public host) cannot lead to a private address.
  const redirector = await startHttpServer((_req, res) => { res.writeHead(302, { location: `http://[::ffff:10.0.0.1]:${port}/paid` }).end() })
  t.teardown(redirector.close)
  const onlyRedirector = new HttpEndpointProber({
    allowPrivate: false,
    timeoutMs: 2000,
    classify: (address) => address === '127.0.0.1' ? { allowed: true } : classifyAddress(address)
  })
  t.teardown(async () => { await onlyRedirector.close() })
  t.match(await onlyRedirector.probe(target(redirector.origin + '/start')), { httpStatus: null, reason: /^blocked: private address ::ffff:a00:1 \(10\.0\.0\.1\)/ })

  // A name resolving to a mapped loopback address (which would reach the listener) is refused at connect time.
  const mapped = new HttpEndpointProber({
    allowPrivate: false,
    timeoutMs: 2000,
    lookup: (_host, _opts, cb) => { cb(null, [{ address: '::ffff:127.0.0.1', family: 6 }]) }
  })
  t.teardown(async () => { await mapped.close() })
  t.match(await mapped.probe(target(`http://mapped.test:${port}/paid`)), { httpStatus: null, reason: 'blocked: loopback address ::ffff:7f00:1 (127.0.0.1) (mapped.test)' })

  // DNS rebinding: the name is checked when the connection is made, with whatever it resolves to then.
  let answers = ['127.0.0.1', '10.0.0.7']
  const rebinding = new HttpEndpointProber({
    allowPrivate: false,
    timeoutMs: 2000,
    classify: (address) => address === '127.0.0.1' ? { allowed: true } : classifyAddress(address),
    lookup: (_host, _opts, cb) => { const address = answers.shift() ?? '10.0.0.7'; cb(null, [{ address, family: 4 }]) }
  })
  t.teardown(async () => { await rebinding.close() })
  t.match(await rebinding.probe(target(`http://paid.rebind.test:${port}/paid`)), { matched: true }, 'first resolution is allowed')
  answers = ['10.0.0.7']
  t.match(await rebinding.probe(target(`http://other.rebind.test:${port}/paid`)), { httpStatus: null, reason: 'blocked: private address 10.0.0.7 (other.rebind.test)' })
})

test('what a probe keeps of the accepts is bounded: the matching entry, extra of at most 1 KiB', async (t) => {
  // Within the prober's header cap (256 KiB) with three or ten entries, far over what is kept.
  const huge = { name: 'USD Coin', version: '2', blob: 'x'.repeat(4 * 1024), nested: { deep: 'y'.repeat(1000) } }
  const entry = (overrides: Record<string, unknown>): Record<string, unknown> =>
    ({ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: BASE_USDC, payTo: PAY_TO, maxTimeoutSeconds: 60, extra: huge, ...overrides })
  const answer = (accepts: unknown[]): string => encodePaymentRequiredHeader({ x402Version: 2, resource: { url: 'http://127.0.0.1/x', description: '', mimeType: '' }, accepts } as never)
  const matching = answer([entry({ network: 'eip155:1' }), entry({ scheme: 's'.repeat(300) }), entry({})])
  const mismatching = answer(Array.from({ length: 10 }, (_, i) => entry({ amount: String(2000 + i) })))
  const server = await startHttpServer((req, res) => {
    res.writeHead(402, { 'payment-required': req.url === '/match' ? matching : mismatching }).end()
  }, { maxHeaderSize: 2 * 1024 * 1024 })
  t.teardown(server.close)
  const p = prober(t)

  const matched = await p.probe(target(server.origin + '/match'))
  t.equal(matched.matched, true)
  t.same(matched.accepts, [{ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: BASE_USDC, payTo: PAY_TO, maxTimeoutSeconds: 60, extra: { name: 'USD Coin', version: '2' } }],
    'only the matching entry, its extra cut to the small scalar fields')
  t.ok(JSON.stringify(matched.accepts).length < 1024)

  const unmatched = await p.probe(target(server.origin + '/other'))
  t.equal(unmatched.matched, false)
  t.equal(unmatched.accepts?.length, 4, 'at most four entries of an answer that matched nothing')
  t.ok(JSON.stringify(unmatched.accepts).length < 4 * 1024)
  t.match(unmatched.reason, /price 0\.002 USDC, 0\.002001 USDC, 0\.002002 USDC and 7 more differs/, 'the reason still names what the endpoint asked')
})

test('an answer whose every entry has an oversized field has no usable requirement', async (t) => {
  const header = encodePaymentRequiredHeader({
    x402Version: 2,
    resource: { url: 'http://127.0.0.1/x', description: '', mimeType: '' },
    accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: BASE_USDC, payTo: PAY_TO + 'f'.repeat(300), maxTimeoutSeconds: 60 }]
  } as never)
  const server = await startHttpServer((_req, res) => { res.writeHead(402, { 'payment-required': header }).end() })
  t.teardown(server.close)
  t.match(await prober(t).probe(target(server.origin + '/x')), { answered402: false, accepts: null, reason: /every accepts entry has a field over 256 characters/ })
})
