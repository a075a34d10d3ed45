/**
 * Exact decimal prices. Prices travel as decimal strings and are stored as integer
 * atomic units (USDC has 6 decimals: "0.001" = 1000), so filtering and sorting never
 * touch floating point or string order.
 */
export interface Currency {
  code: string
  decimals: number
}

/**
 * Accepted settlement currencies. x402's stablecoin of record is USDC (6 decimals on every network).
 * Null prototype: a client's "toString" or "__proto__" must never find an inherited member.
 */
export const CURRENCIES: Readonly<Record<string, Currency>> = Object.freeze(Object.assign(Object.create(null) as Record<string, Currency>, {
  USDC: { code: 'USDC', decimals: 6 }
}))

/** The currency with this code, looked up among the table's own entries only. */
export function findCurrency (code: string): Currency | undefined {
  return Object.hasOwn(CURRENCIES, code) ? CURRENCIES[code] : undefined
}

/**
 * Largest accepted price per request, in whole currency units. It keeps every atomic
 * amount far below Number.MAX_SAFE_INTEGER (1e6 × 1e6 = 1e12).
 */
export const MAX_PRICE_UNITS = 1_000_000

const DECIMAL = /^(\d+)(?:\.(\d+))?$/

export type DecimalParse =
  | { ok: true, atomic: number }
  | { ok: false, reason: string }

/** Parses a non-negative decimal string into atomic units, refusing more decimals than the currency has. */
export function parseDecimal (value: string, decimals: number): DecimalParse {
  const match = DECIMAL.exec(value)
  if (match === null) return { ok: false, reason: 'must be a decimal number such as "0.001"' }
  const whole = match[1] as string
  const fraction = match[2] ?? ''
  if (fraction.length > decimals) return { ok: false, reason: `must have at most ${decimals} decimal places` }
  const wholeUnits = Number(whole.replace(/^0+(?=\d)/, ''))
  if (wholeUnits > MAX_PRICE_UNITS) return { ok: false, reason: `must be at most ${MAX_PRICE_UNITS}` }
  const atomic = wholeUnits * 10 ** decimals + Number(fraction.padEnd(decimals, '0') || '0')
  if (atomic > MAX_PRICE_UNITS * 10 ** decimals) return { ok: false, reason: `must be at most ${MAX_PRICE_UNITS}` }
  return { ok: true, atomic }
}

/**
 * Upper bound for a price filter: the largest atomic amount not above `value`. Extra
 * decimals are allowed here (a bound of 0.0000015 USDC admits 0.000001), and a huge
 * bound simply admits everything.
 */
export function parseUpperBound (value: string, decimals: number): DecimalParse {
  const match = DECIMAL.exec(value)
  if (match === null) return { ok: false, reason: 'must be a decimal number such as "0.01"' }
  const whole = (match[1] as string).replace(/^0+(?=\d)/, '')
  // Past the highest fixed price every fixed price is admitted, and a dynamic one never is (src/domain/sort-keys.ts).
  const highest = MAX_PRICE_UNITS * 10 ** decimals
  if (whole.length > String(MAX_PRICE_UNITS).length) return { ok: true, atomic: highest }
  const fraction = (match[2] ?? '').slice(0, decimals).padEnd(decimals, '0')
  return { ok: true, atomic: Math.min(highest, Number(whole) * 10 ** decimals + Number(fraction)) }
}

/** Formats atomic units as the shortest exact decimal string ("1000" at 6 decimals → "0.001"). */
/** Atomic units as a decimal string; a bigint (payment sums, amounts past 2^53) formats exactly. */
export function formatAtomic (atomic: number | bigint, decimals: number): string {
  const digits = String(atomic).padStart(decimals + 1, '0')
  const whole = digits.slice(0, digits.length - decimals)
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '')
  return fraction === '' ? whole : `${whole}.${fraction}`
}
