/**
 * The index's own vocabulary, held in memory for typo and prefix candidates (the
 * role of Meilisearch's word FST). Terms are kept sorted for prefix ranges and
 * bucketed by first character for typo scans.
 */
import { typosBetween } from './typo.js'

export interface TypoCandidate {
  term: string
  typos: number
}

/** At most this many prefix expansions per word, most frequent first. */
export const MAX_PREFIX_TERMS = 50
/** At most this many typo candidates per word, fewest typos then most frequent first. */
export const MAX_TYPO_TERMS = 20

export class Vocabulary {
  readonly #sorted: string[]
  readonly #frequency: Map<string, number>
  readonly #byFirstChar = new Map<string, string[]>()
  readonly #all: string[]

  constructor (entries: Iterable<{ term: string, documents: number }>) {
    this.#frequency = new Map()
    for (const { term, documents } of entries) this.#frequency.set(term, documents)
    this.#sorted = [...this.#frequency.keys()].sort()
    this.#all = this.#sorted
    for (const term of this.#sorted) {
      const first = String.fromCodePoint(term.codePointAt(0) as number)
      const bucket = this.#byFirstChar.get(first)
      if (bucket === undefined) this.#byFirstChar.set(first, [term])
      else bucket.push(term)
    }
  }

  get size (): number {
    return this.#sorted.length
  }

  has (term: string): boolean {
    return this.#frequency.has(term)
  }

  /** Terms that start with `prefix` (excluding `prefix` itself), most frequent first. */
  prefixed (prefix: string): string[] {
    let low = 0
    let high = this.#sorted.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if ((this.#sorted[mid] as string) < prefix) low = mid + 1
      else high = mid
    }
    const out: string[] = []
    for (let i = low; i < this.#sorted.length; i++) {
      const term = this.#sorted[i] as string
      if (!term.startsWith(prefix)) break
      if (term !== prefix) out.push(term)
    }
    return this.#mostFrequent(out, MAX_PREFIX_TERMS)
  }

  /** Terms within the word's typo budget. First-character typos only exist for 9+ character words, so only they scan beyond the word's first-character bucket. */
  withTypos (word: string): TypoCandidate[] {
    const length = [...word].length
    if (length < 5) return []
    const first = String.fromCodePoint(word.codePointAt(0) as number)
    const pool = length >= 9 ? this.#all : (this.#byFirstChar.get(first) ?? [])
    const found: TypoCandidate[] = []
    for (const term of pool) {
      if (Math.abs(term.length - word.length) > 2) continue
      const typos = typosBetween(word, term)
      if (typos !== undefined) found.push({ term, typos })
    }
    found.sort((a, b) => a.typos - b.typos || (this.#frequency.get(b.term) ?? 0) - (this.#frequency.get(a.term) ?? 0))
    return found.slice(0, MAX_TYPO_TERMS)
  }

  #mostFrequent (terms: string[], limit: number): string[] {
    if (terms.length <= limit) return terms
    return [...terms].sort((a, b) => (this.#frequency.get(b) ?? 0) - (this.#frequency.get(a) ?? 0)).slice(0, limit)
  }
}
