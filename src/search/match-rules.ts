/**
 * How words match, as Meilisearch matches them: its typo rules, and the exactness order of
 * the port's match kinds. The embedded engine mimics Meilisearch with these rules, and the
 * Meilisearch adapter uses them to explain its hits, so both read them from here.
 */
import type { MatchKind } from './search-engine.js'

/**
 * Exactness rank of a match: exact spellings first, then expansions (another form of an
 * English word and a romaji reading rank with synonyms, below the word as typed), then typos.
 */
export const MATCH_EXACTNESS: Record<MatchKind, number> = { exact: 0, alternative: 0, wordForm: 1, romaji: 1, synonym: 1, fragment: 1, prefix: 1, typo: 2 }

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
