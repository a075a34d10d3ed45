/** Decimal prices and atomic units (src/domain/money.ts). */
import { test } from 'tap'
import { formatAtomic, parseDecimal, parseUpperBound } from '../../src/domain/money.js'

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
