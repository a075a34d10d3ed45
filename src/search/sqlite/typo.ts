/**
 * Meilisearch's typo rules: no typo for words of 1–4 characters, one for 5–8, two for
 * 9 or more; a typo on the first character counts as two.
 */
export function typoBudget (word: string): number {
  const length = [...word].length
  if (length >= 9) return 2
  if (length >= 5) return 1
  return 0
}

/**
 * Optimal-string-alignment distance (a transposition is one typo), bounded: returns
 * `max + 1` as soon as the distance must exceed `max`.
 */
export function boundedDistance (a: readonly string[], b: readonly string[], max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1
  let before: number[] = []
  let previous: number[] = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    let rowMin = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let value = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, (before[j - 2] as number) + 1)
      current[j] = value
      if (value < rowMin) rowMin = value
    }
    if (rowMin > max) return max + 1
    before = previous
    previous = current
  }
  return previous[b.length] as number
}

/** Typos between a query word and an indexed term under Meilisearch's rules, or undefined when over budget. */
export function typosBetween (word: string, term: string): number | undefined {
  const budget = typoBudget(word)
  if (budget === 0) return undefined
  const a = [...word]
  const b = [...term]
  const firstDiffers = a[0] !== b[0]
  if (firstDiffers && budget < 2) return undefined
  const distance = boundedDistance(a, b, budget)
  const typos = distance + (firstDiffers ? 1 : 0)
  return typos <= budget && distance > 0 ? typos : undefined
}

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
