/** Bit counting for the 32-bit masks of ranking (one bit per query word) and typo pruning (letter sets). */

/** Set bits of a 32-bit integer. Math.imul keeps the product an integer (a plain * would overflow into a double). */
export function popcount (x: number): number {
  x = x - ((x >>> 1) & 0x55555555)
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  return Math.imul((x + (x >>> 4)) & 0x0F0F0F0F, 0x01010101) >>> 24
}
