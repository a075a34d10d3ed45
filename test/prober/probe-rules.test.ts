/** Pure probe rules: address guard, 402 parsing, matching, lifecycle, scheduling times. */
import { test } from 'tap'
import { encodePaymentRequiredHeader } from '@x402/core/http'
import { classifyAddress, ipLiteral } from '../../src/prober/address-guard.js'
import { parsePaymentAnswer } from '../../src/prober/payment-answer.js'
import { matchRequirements, shortAddress } from '../../src/domain/probe-match.js'
import { applyProbe, failurePeriodFor, uptimeOf, FAILURES_FOR_INACTIVE, MAX_FAILURE_PERIOD_MS, type ProbeSummary } from '../../src/domain/lifecycle.js'
import { nextProbeTime } from '../../src/prober/monitor.js'
import type { PaymentRequirement, ProbeOutcome, ProbeTarget } from '../../src/domain/probe.js'

const PAY_TO = '0x1111111111111111111111111111111111111111'
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const TARGET: ProbeTarget = { endpoint: 'https://api.example.com/x', method: 'GET', network: 'eip155:8453', paymentAddress: PAY_TO, priceAtomic: 1000 }
const ENTRY: PaymentRequirement = { scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: BASE_USDC, payTo: PAY_TO, maxTimeoutSeconds: 60 }

test('address guard: only public unicast passes', async (t) => {
  for (const ok of ['8.8.8.8', '1.1.1.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1']) {
    t.same(classifyAddress(ok), { allowed: true }, `${ok} is public`)
  }
  const blocked: Array<[string, RegExp]> = [
    ['127.0.0.1', /loopback address 127\.0\.0\.1/],
    ['10.0.0.1', /private/], ['172.16.5.4', /private/], ['192.168.1.1', /private/],
    ['169.254.169.254', /cloud metadata/], ['169.254.1.1', /link-local/],
    ['100.64.0.1', /carrier-grade NAT/], ['224.0.0.1', /multicast/], ['0.0.0.0', /unspecified/],
    ['255.255.255.255', /broadcast/], ['240.0.0.1', /reserved/], ['192.0.2.1', /reserved/],
    ['::1', /loopback/], ['::', /unspecified/], ['fe80::1', /link-local/], ['fd00:ec2::254', /cloud metadata/],
    ['fc00::1', /unique local/], ['ff02::1', /multicast/], ['2001:db8::1', /reserved/],
    ['::ffff:127.0.0.1', /loopback.*127\.0\.0\.1/], ['::ffff:a00:1', /private.*10\.0\.0\.1/], ['::ffff:0:7f00:1', /loopback/],
    ['64:ff9b::7f00:1', /loopback/], ['64:ff9b:1::1', /blocked/], ['2002:7f00:1::', /loopback/], ['2002:a9fe:a9fe::', /metadata|link-local/],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/], ['100::1', /blocked/],
    ['not-an-ip', /not an IP/], ['127.1', /not an IP/]
  ]
  for (const [address, reason] of blocked) {
    const verdict = classifyAddress(address)
    t.equal(verdict.allowed, false, `${address} is refused`)
    if (!verdict.allowed) t.match(verdict.reason, reason)
  }
  t.equal(ipLiteral('[::1]'), '::1')
})

test('address guard: an allowlist of global unicast, table by table', async (t) => {
  // Public IPv4, global IPv6 in 2000::/3, and IPv6 forms whose embedded IPv4 is public.
  const allowed = [
    '8.8.8.8', '1.0.0.1', '9.255.255.255', '11.0.0.0', '100.63.255.255', '100.128.0.0', '172.15.255.255', '172.32.0.0',
    '192.167.255.255', '192.169.0.0', '198.17.255.255', '198.20.0.0', '223.255.255.255',
    '2606:4700::1111', '2a00:1450:4001::200e', '2001:200::1', '2c0f:f248::1', '3ffe:ffff::1',
    '::ffff:8.8.8.8', '::ffff:0:808:808', '64:ff9b::808:808', '2002:808:808::1'
  ]
  for (const address of allowed) t.same(classifyAddress(address), { allowed: true }, `${address} is allowed`)
  const refused: Array<[string, RegExp]> = [
    // IPv4 special-purpose ranges
    ['0.1.2.3', /unspecified/], ['127.255.255.254', /loopback/], ['10.255.255.255', /private/], ['172.31.0.1', /private/],
    ['192.168.255.255', /private/], ['100.127.255.255', /carrier-grade NAT/], ['169.254.0.1', /link-local/],
    ['192.0.0.8', /reserved/], ['192.0.2.200', /reserved/], ['198.18.0.1', /reserved/], ['198.51.100.7', /reserved/],
    ['203.0.113.9', /reserved/], ['192.88.99.1', /reserved/], ['239.255.255.250', /multicast/], ['250.1.1.1', /reserved/],
    ['192.31.196.1', /as112/], ['192.52.193.1', /amt/],
    // IPv4-compatible IPv6 (::/96): refused whatever it embeds
    ['::7f00:1', /IPv4-compatible address ::7f00:1 \(127\.0\.0\.1\)/], ['::a9fe:a9fe', /IPv4-compatible.*169\.254\.169\.254/],
    ['::808:808', /IPv4-compatible/], ['::2', /IPv4-compatible|unspecified|non-global/],
    // Embedding forms judged by the IPv4 inside
    ['::ffff:127.0.0.1', /loopback address ::ffff:7f00:1 \(127\.0\.0\.1\)/], ['::ffff:10.0.0.1', /private/],
    ['::ffff:169.254.169.254', /cloud metadata/], ['::ffff:0:a00:1', /private/], ['64:ff9b::a9fe:a9fe', /cloud metadata/],
    ['64:ff9b::c0a8:1', /private/], ['2002:7f00:1::1', /loopback/], ['2002:a00:1::', /private/], ['2002:6440::1', /carrier-grade NAT/],
    // Outside 2000::/3
    ['::1', /loopback/], ['::', /unspecified/], ['64:ff9b:1::808:808', /NAT64 local-use/], ['100::1', /discard/],
    ['fc00::1', /unique local/], ['fd12:3456::1', /unique local/], ['fe80::1', /link-local/], ['febf::1', /link-local/],
    ['fec0::1', /site-local/], ['ff0e::1', /multicast/], ['5f00::1', /blocked/], ['1::1', /non-global/], ['4000::1', /non-global/],
    ['e000::1', /non-global/],
    // Special ranges inside 2000::/3
    ['2001::1', /Teredo/], ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/], ['2001:2::1', /IETF special-purpose/],
    ['2001:10::1', /IETF special-purpose/], ['2001:20::1', /IETF special-purpose/], ['2001:1ff::1', /IETF special-purpose/],
    ['2001:db8:85a3::8a2e:370:7334', /documentation/], ['3fff:fff::1', /documentation/], ['2620:4f:8000::1', /AS112/]
  ]
  for (const [address, reason] of refused) {
    const verdict = classifyAddress(address)
    t.equal(verdict.allowed, false, `${address} is refused`)
    if (!verdict.allowed) t.match(verdict.reason, reason, `${address}: ${verdict.reason}`)
  }
  t.equal(ipLiteral('127.0.0.1'), '127.0.0.1')
  t.equal(ipLiteral('example.com'), null)
})

test('parsing: v2 header, v1 body, and clear reasons for broken answers', async (t) => {
  const v2 = { x402Version: 2, error: 'Payment required', resource: { url: 'https://a.example/x', description: '', mimeType: '' }, accepts: [{ ...ENTRY, extra: { name: 'USD Coin', version: '2' } }] }
  const header = encodePaymentRequiredHeader(v2 as never)
  t.same(parsePaymentAnswer(header, null), { ok: true, x402Version: 2, accepts: [{ ...ENTRY, extra: { name: 'USD Coin', version: '2' } }], resource: 'https://a.example/x', declaring: v2 }, 'the answer as sent is kept for reading its discovery declaration')

  const v1 = { x402Version: 1, error: 'X-PAYMENT header is required', accepts: [{ scheme: 'exact', network: 'base', maxAmountRequired: '1000', resource: 'https://a.example/x', description: '', mimeType: '', payTo: PAY_TO, maxTimeoutSeconds: 60, asset: BASE_USDC }] }
  t.same(parsePaymentAnswer(undefined, JSON.stringify(v1)), { ok: true, x402Version: 1, accepts: [ENTRY], resource: 'https://a.example/x', declaring: v1 }, 'v1 network names become CAIP-2, maxAmountRequired becomes amount')

  t.match(parsePaymentAnswer('!!not base64!!', null), { ok: false, reason: /invalid PAYMENT-REQUIRED header: not base64/ })
  t.match(parsePaymentAnswer(Buffer.from('{"x402Version":2}').toString('base64'), null), { ok: false, reason: /^invalid PAYMENT-REQUIRED header: / })
  t.match(parsePaymentAnswer(Buffer.from(JSON.stringify({ ...v2, accepts: [] })).toString('base64'), null), { ok: false, reason: /invalid PAYMENT-REQUIRED header/ })
  t.match(parsePaymentAnswer(undefined, ''), { ok: false, reason: /empty body/ })
  t.match(parsePaymentAnswer(undefined, '<html>pay me</html>'), { ok: false, reason: /body is not JSON/ })
  t.match(parsePaymentAnswer(undefined, '{"hello":1}'), { ok: false, reason: /^invalid x402 body: / })
})

test('matching: network, payTo, price and asset, each with its reason', async (t) => {
  t.match(matchRequirements(TARGET, [ENTRY]), { matched: true, requirement: ENTRY })
  t.match(matchRequirements(TARGET, [{ ...ENTRY, payTo: PAY_TO.toUpperCase().replace('0X', '0x') }]), { matched: true }, 'EVM addresses compare case-insensitively')
  t.match(matchRequirements(TARGET, [{ ...ENTRY, network: 'eip155:84532' }]), { matched: false, reason: 'network eip155:84532 differs from registered eip155:8453' })
  t.match(matchRequirements(TARGET, [{ ...ENTRY, payTo: '0xabcdef0000000000000000000000000000001234' }]), { matched: false, reason: 'payTo 0xabcd…1234 differs from registered 0x1111…1111' })
  t.match(matchRequirements(TARGET, [{ ...ENTRY, amount: '2000' }]), { matched: false, reason: 'price 0.002 USDC differs from registered 0.001 USDC' })
  t.match(matchRequirements(TARGET, [{ ...ENTRY, amount: '1e3' }, { ...ENTRY, amount: '' }]), { matched: false, reason: 'price "1e3", "" differs from registered 0.001 USDC' }, 'an amount that is not a whole number is shown as it came')
  t.match(matchRequirements(TARGET, [{ ...ENTRY, asset: '0x0000000000000000000000000000000000000001' }]), { matched: false, reason: /asset 0x0000…0001 is not USDC on eip155:8453/ })
  t.match(matchRequirements(TARGET, [{ ...ENTRY, amount: '5' }, ENTRY]), { matched: true }, 'one matching entry among several is enough')
  const dynamic = { ...TARGET, priceAtomic: null }
  for (const entry of [{ ...ENTRY, amount: '' }, { ...ENTRY, amount: '0' }, { ...ENTRY, scheme: 'upto', amount: '50000' }, ENTRY]) {
    t.match(matchRequirements(dynamic, [entry]), { matched: true, requirement: entry }, `a dynamic price matches any amount (${entry.scheme} ${JSON.stringify(entry.amount)})`)
  }
  t.match(matchRequirements(dynamic, [{ ...ENTRY, amount: '', payTo: '0xabcdef0000000000000000000000000000001234' }]), { matched: false, reason: /payTo/ }, 'but still its payTo')
  t.match(matchRequirements(dynamic, [{ ...ENTRY, amount: '', asset: '0x0000000000000000000000000000000000000001' }]), { matched: false, reason: /is not USDC/ }, 'and its asset')
  const solTarget = { ...TARGET, network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', paymentAddress: 'So11111111111111111111111111111111111111112' }
  const solEntry = { ...ENTRY, network: solTarget.network, payTo: solTarget.paymentAddress, asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' }
  t.match(matchRequirements(solTarget, [solEntry]), { matched: true })
  t.match(matchRequirements(solTarget, [{ ...solEntry, payTo: solTarget.paymentAddress.toLowerCase() }]), { matched: false, reason: /payTo/ }, 'Solana addresses compare exactly')
  t.match(matchRequirements(TARGET, ['a', 'b', 'c', 'd'].map((n) => ({ ...ENTRY, network: `eip155:${n}` }))), { reason: /and 1 more/ })
  t.equal(shortAddress('0x12'), '0x12')
})

function outcome (at: number, kind: 'match' | 'mismatch' | 'fail'): ProbeOutcome {
  return {
    checkedAt: new Date(at).toISOString(),
    httpStatus: kind === 'fail' ? null : 402,
    x402Version: kind === 'fail' ? null : 2,
    latencyMs: 5,
    answered402: kind !== 'fail',
    matched: kind === 'match',
    reason: kind,
    accepts: kind === 'fail' ? null : [ENTRY]
  }
}

/** Applies probes one after another, as the store does, and returns the states. */
function run (kinds: Array<'match' | 'mismatch' | 'fail'>, stepMs: number, failurePeriodMs: number) {
  let service = { status: 'unverified' as const as 'unverified' | 'verified' | 'inactive', usage: null, paymentRequirements: null as PaymentRequirement[] | null }
  const history: ProbeSummary[] = []
  const states = []
  const start = Date.parse('2026-01-01T00:00:00Z')
  for (const [i, kind] of kinds.entries()) {
    const latest = outcome(start + i * stepMs, kind)
    history.unshift(latest)
    const update = applyProbe(service, latest, history, { failurePeriodMs })
    service = { ...service, status: update.status, paymentRequirements: update.paymentRequirements }
    states.push(update)
  }
  return states
}

test('lifecycle: verified on a match, unverified on a mismatch, inactive after failures over the period, back again', async (t) => {
  const hour = 3600_000
  const states = run(['match', 'fail', 'fail', 'fail', 'fail', 'match', 'mismatch', 'fail', 'match'], hour, failurePeriodFor(hour))
  t.same(states.map((s) => s.status), ['verified', 'verified', 'verified', 'inactive', 'inactive', 'verified', 'unverified', 'unverified', 'verified'])
  t.same(states[0]?.paymentRequirements, [ENTRY], 'a match keeps the real requirements')
  t.same(states[6]?.paymentRequirements, [ENTRY], 'a mismatch keeps those of the last match')
  t.equal(states[0]?.uptimeScore, 100)
  t.equal(states[3]?.uptimeScore, 25, 'one valid answer in four probes')
  t.equal(states[6]?.uptimeScore, 42.86, 'a mismatch is still a valid 402 answer (up)')
  t.ok((states[0]?.trustScore ?? 0) > (states[3]?.trustScore ?? 0), 'trust follows status and uptime')
  t.equal(states[3]?.trustScore, 0, 'inactive 0, and uptime counts only while verified')

  const quick = run(['match', 'fail', 'fail', 'fail'], 60_000, failurePeriodFor(hour))
  t.equal(quick[3]?.status, 'verified', `${FAILURES_FOR_INACTIVE} failures within minutes are not yet an outage`)
  t.equal(failurePeriodFor(hour), MAX_FAILURE_PERIOD_MS)
  t.equal(failurePeriodFor(10_000), 20_000)
  t.equal(failurePeriodFor(0), 0, 'on-demand only: the failures count alone')
})

test('uptime: a rolling 7-day window; none before the first probe', async (t) => {
  const now = Date.parse('2026-01-10T00:00:00Z')
  t.equal(uptimeOf([], now), null)
  const history: ProbeSummary[] = [
    { checkedAt: new Date(now).toISOString(), answered402: true, matched: true },
    { checkedAt: new Date(now - 86_400_000).toISOString(), answered402: false, matched: false },
    { checkedAt: new Date(now - 8 * 86_400_000).toISOString(), answered402: false, matched: false }
  ]
  t.equal(uptimeOf(history, now), 50, 'the 8-day-old failure is outside the window')
})

test('next probe time: the interval with ±10 % jitter; none when scheduling is off', async (t) => {
  const at = Date.parse('2026-01-01T00:00:00Z')
  t.equal(nextProbeTime(at, 3600_000, () => 0.5), '2026-01-01T01:00:00.000Z')
  t.equal(nextProbeTime(at, 3600_000, () => 0), '2026-01-01T00:54:00.000Z')
  t.equal(nextProbeTime(at, 3600_000, () => 1), '2026-01-01T01:06:00.000Z')
  t.equal(nextProbeTime(at, 0), null)
})
