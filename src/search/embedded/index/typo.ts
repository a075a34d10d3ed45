/** The embedded engine's fast typo scan over the vocabulary, under Meilisearch's rules (../match-rules.ts). */
import { typoBudget, typosBetween } from '../../match-rules.js'

const SURROGATE = /[\uD800-\uDFFF]/
let rows: Int32Array[] = [new Int32Array(0), new Int32Array(0), new Int32Array(0)]

/**
 * `boundedDistance` on UTF-16 code units, without allocating: the typo scan runs it over
 * hundreds of vocabulary terms per query word. Only valid for text without surrogate
 * pairs (where code units are characters); `typosBetween` covers the rest.
 */
function boundedUnitDistance (a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1
  if ((rows[0] as Int32Array).length <= b.length) rows = [0, 1, 2].map(() => new Int32Array(b.length + 16))
  let [before, previous, current] = rows as [Int32Array, Int32Array, Int32Array]
  for (let j = 0; j <= b.length; j++) previous[j] = j
  for (let i = 1; i <= a.length; i++) {
    current[0] = i
    let rowMin = i
    const ai = a.charCodeAt(i - 1)
    for (let j = 1; j <= b.length; j++) {
      const bj = b.charCodeAt(j - 1)
      let value = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + (ai === bj ? 0 : 1))
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) value = Math.min(value, (before[j - 2] as number) + 1)
      current[j] = value
      if (value < rowMin) rowMin = value
    }
    if (rowMin > max) return max + 1
    const spare = before
    before = previous
    previous = current
    current = spare
  }
  return previous[b.length] as number
}

/** `typosBetween` for a term that starts with the word's first character (the vocabulary's bucket scan). */
export function sameStartTypos (word: string, term: string): number | undefined {
  if (SURROGATE.test(word) || SURROGATE.test(term)) return typosBetween(word, term)
  const budget = typoBudget(word)
  if (budget === 0) return undefined
  const distance = boundedUnitDistance(word, term, budget)
  return distance <= budget && distance > 0 ? distance : undefined
}
