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
