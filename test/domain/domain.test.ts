import { test } from 'tap'
import { readFileSync } from 'node:fs'
import { buildNetworkTable, NETWORK_TABLE_PATH } from '../../scripts/networks.js'
import { formatAtomic, parseDecimal, parseUpperBound } from '../../src/domain/money.js'
import { isValidPaymentAddress, resolveNetwork } from '../../src/domain/networks.js'
import { computeTrustScore } from '../../src/domain/trust.js'

test('the committed network table matches the installed x402 packages', async (t) => {
  const committed = JSON.parse(readFileSync(NETWORK_TABLE_PATH, 'utf8'))
  t.same(committed, buildNetworkTable(), 'run `npm run networks:generate` after upgrading @x402/*')
  t.equal(resolveNetwork('base')?.usdc, '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'USDC on Base comes from the packages')
})

test('decimal prices round-trip exactly through atomic units', async (t) => {
  for (const [text, atomic, canonical] of [['0.001', 1000, '0.001'], ['0.000001', 1, '0.000001'], ['1', 1_000_000, '1'], ['12.340000', 12_340_000, '12.34'], ['007.5', 7_500_000, '7.5'], ['1000000', 1e12, '1000000']] as const) {
    const parsed = parseDecimal(text, 6)
    t.same(parsed, { ok: true, atomic }, text)
    t.equal(formatAtomic(atomic, 6), canonical)
  }
  t.match(parseDecimal('0.1234567', 6), { ok: false, reason: /6 decimal/ })
  t.match(parseDecimal('1000000.5', 6), { ok: false, reason: /at most/ })
  t.same(parseUpperBound('0.0000019', 6), { ok: true, atomic: 1 }, 'bounds floor to the atomic unit')
})

test('payment addresses per family', async (t) => {
  t.ok(isValidPaymentAddress('evm', '0x' + 'aB'.repeat(20)))
  t.notOk(isValidPaymentAddress('evm', '0x' + 'a'.repeat(39)))
  t.ok(isValidPaymentAddress('svm', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'), 'USDC mint is a valid 32-byte key')
  t.ok(isValidPaymentAddress('svm', '11111111111111111111111111111111'), 'the system program (32 zero bytes)')
  t.notOk(isValidPaymentAddress('svm', '1111111111111111111111111111111'), '31 zero bytes')
  t.notOk(isValidPaymentAddress('svm', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'.replace('E', '0')), '0 is not base58')
})

test('trust score', async (t) => {
  t.equal(computeTrustScore({ status: 'unverified', uptimeScore: null, usage: null }), 10, 'a new registration')
  t.equal(computeTrustScore({ status: 'verified', uptimeScore: 100, usage: { txCount: 1e9, uniquePayers: 1e6 } }), 100)
  t.equal(computeTrustScore({ status: 'inactive', uptimeScore: null, usage: null }), 0)
  t.ok(computeTrustScore({ status: 'verified', uptimeScore: 99, usage: { txCount: 10, uniquePayers: 2 } }) > computeTrustScore({ status: 'unverified', uptimeScore: 99, usage: { txCount: 10, uniquePayers: 2 } }))
  t.ok(computeTrustScore({ status: 'verified', uptimeScore: 99.9, usage: { txCount: 10, uniquePayers: 2 } }) > computeTrustScore({ status: 'verified', uptimeScore: 80, usage: { txCount: 10, uniquePayers: 2 } }))
  t.equal(computeTrustScore({ status: 'unverified', uptimeScore: 100, usage: null }), computeTrustScore({ status: 'unverified', uptimeScore: null, usage: null }),
    'an unverified listing earns nothing for uptime: a copy of someone else\'s live endpoint must not outrank an honest new listing')
})
