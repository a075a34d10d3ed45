/**
 * How the catalog orders text, for every store and engine: names by their sort key, and
 * every string by code point, which is what SQLite's BINARY collation and MongoDB's
 * default comparison (UTF-8 bytes) do.
 */

/** Sort key for names: NFKC + lower case, so ＡＰＩ and api sort together. */
export function nameSortKey (name: string): string {
  return name.normalize('NFKC').toLowerCase()
}

/** Code-point order of two strings: UTF-16 order, except that surrogate pairs (U+10000 and up) sort above U+E000–U+FFFF. */
export function compareText (a: string, b: string): number {
  if (a === b) return 0
  const n = a.length < b.length ? a.length : b.length
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i)
    let y = b.charCodeAt(i)
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000
      }
      return x - y
    }
  }
  return a.length - b.length
}

/**
 * Price sort key for a listing whose price is not fixed (priceAtomic null: a dynamic price).
 * It sorts above every fixed price (at most MAX_PRICE_UNITS, src/domain/money.ts), as SQL's
 * NULLs sort by default: last cheapest first, first dearest first. No price bound reaches it
 * (parseUpperBound stops at the highest fixed price), so the price filter never admits one.
 * Stores and engines keep this key where they order and filter by price.
 */
export const DYNAMIC_PRICE_KEY = Number.MAX_SAFE_INTEGER

export function priceSortKey (priceAtomic: number | null): number {
  return priceAtomic ?? DYNAMIC_PRICE_KEY
}

/** The price a stored sort key stands for: null for DYNAMIC_PRICE_KEY. */
export function priceOfSortKey (key: number): number | null {
  return key === DYNAMIC_PRICE_KEY ? null : key
}
