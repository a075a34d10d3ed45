/**
 * The index's own vocabulary, held in memory for typo and prefix candidates (the
 * role of Meilisearch's word FST). Terms are kept sorted for prefix ranges and
 * bucketed by first character for typo scans.
 */
import { popcount } from './bits.js'
import { typoBudget, typosBetween } from '../../match-rules.js'
import { sameStartTypos } from './typo.js'
import { stemOf } from '../../analysis/word-forms.js'

export interface TypoCandidate {
  term: string
  typos: number
}

/** At most this many prefix expansions per word, most frequent first. */
export const MAX_PREFIX_TERMS = 50
/** At most this many typo candidates per word, fewest typos then most frequent first. */
export const MAX_TYPO_TERMS = 20
/** At most this many other forms of an English word, most frequent first. */
export const MAX_FORM_TERMS = 20

/** Terms of one first character and length, with their letter sets. */
interface Bucket {
  terms: string[]
  letters: number[]
}

/** The letter set of a text with surrogate pairs: not used (one character is two units). */
const ANY = -1

/** The set of a text's UTF-16 units, hashed into 32 bits (a unit's bit: its code mod 32). */
function lettersOf (text: string): number {
  if (/[\uD800-\uDFFF]/.test(text)) return ANY
  let set = 0
  for (let i = 0; i < text.length; i++) set |= 1 << (text.charCodeAt(i) & 31)
  return set
}

export class Vocabulary {
  readonly #sorted: string[]
  readonly #frequency: Map<string, number>
  /** Bumped by every add(): what was read from the vocabulary before (plans) may have changed. */
  version = 0
  /** Terms by first character, then by length (UTF-16 units): a typo scan reads only near lengths. */
  readonly #byFirstChar = new Map<string, Map<number, Bucket>>()
  /** Terms by everything after their first character, for first-character typos. */
  readonly #byTail = new Map<string, string[]>()
  /** English terms by stem (stemOf); a stem most terms share with no other is held as the term itself. */
  readonly #byStem = new Map<string, string | string[]>()

  constructor (entries: Iterable<{ term: string, documents: number }> = []) {
    this.#frequency = new Map()
    for (const { term, documents } of entries) this.#frequency.set(term, (this.#frequency.get(term) ?? 0) + documents)
    this.#sorted = [...this.#frequency.keys()].sort()
    for (const term of this.#sorted) this.#bucket(term)
  }

  #bucket (term: string): void {
    const first = String.fromCodePoint(term.codePointAt(0) as number)
    let byLength = this.#byFirstChar.get(first)
    if (byLength === undefined) { byLength = new Map(); this.#byFirstChar.set(first, byLength) }
    let bucket = byLength.get(term.length)
    if (bucket === undefined) { bucket = { terms: [], letters: [] }; byLength.set(term.length, bucket) }
    bucket.terms.push(term)
    bucket.letters.push(lettersOf(term))
    push(this.#byTail, term.slice(first.length), term)
    const stem = stemOf(term)
    if (stem !== undefined) {
      const held = this.#byStem.get(stem)
      this.#byStem.set(stem, held === undefined ? term : typeof held === 'string' ? [held, term] : (held.push(term), held))
    }
  }

  /**
   * Counts `documents` more documents holding `term`; a new term is inserted in place (a
   * binary search and one array move), so an index that grows never rebuilds its vocabulary.
   */
  add (term: string, documents = 1): void {
    this.version++
    const known = this.#frequency.get(term)
    this.#frequency.set(term, (known ?? 0) + documents)
    if (known !== undefined) return
    this.#sorted.splice(this.#lowerBound(term), 0, term)
    this.#bucket(term)
  }

  #lowerBound (text: string): number {
    let low = 0
    let high = this.#sorted.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if ((this.#sorted[mid] as string) < text) low = mid + 1
      else high = mid
    }
    return low
  }

  get size (): number {
    return this.#sorted.length
  }

  has (term: string): boolean {
    return this.#frequency.has(term)
  }

  /** Terms that start with `prefix` (excluding `prefix` itself), most frequent first. */
  prefixed (prefix: string): string[] {
    const out: string[] = []
    for (let i = this.#lowerBound(prefix); i < this.#sorted.length; i++) {
      const term = this.#sorted[i] as string
      if (!term.startsWith(prefix)) break
      if (term !== prefix) out.push(term)
    }
    return this.#mostFrequent(out, MAX_PREFIX_TERMS)
  }

  /** The index's other forms of an English word (analysis → analyze, analytics), most frequent first. */
  otherForms (word: string): string[] {
    const stem = stemOf(word)
    const held = stem === undefined ? undefined : this.#byStem.get(stem)
    if (held === undefined) return []
    const terms = (typeof held === 'string' ? [held] : held).filter((term) => term !== word)
    return terms.sort((a, b) => (this.#frequency.get(b) ?? 0) - (this.#frequency.get(a) ?? 0)).slice(0, MAX_FORM_TERMS)
  }

  /**
   * Terms within the word's typo budget. Same-first-character candidates come from a scan
   * of that character's bucket. A first-character typo counts as two, so it only fits a
   * 9+ character word and leaves no budget for anything else: the one edit touches the
   * first character (substituted, dropped, added, or swapped with the second), and each of
   * those is a lookup rather than a scan.
   */
  withTypos (word: string): TypoCandidate[] {
    const chars = [...word]
    if (chars.length < 5) return []
    const first = chars[0] as string
    const found = new Map<string, number>()
    const byLength = this.#byFirstChar.get(first)
    const budget = typoBudget(word)
    const letters = lettersOf(word)
    // A word whose first character starts no term can still match through a first-character edit (below).
    if (byLength !== undefined) {
      // A character edit changes the length in UTF-16 units by up to 2 (a surrogate pair).
      for (let length = word.length - 2 * budget; length <= word.length + 2 * budget; length++) {
        const bucket = byLength.get(length)
        if (bucket === undefined) continue
        for (let i = 0; i < bucket.terms.length; i++) {
          // Each edit adds at most one letter to the set and removes at most one: a term
          // whose letters differ from the word's by more than the budget is skipped unscored.
          const theirs = bucket.letters[i] as number
          if (letters !== ANY && theirs !== ANY && (popcount(theirs & ~letters) > budget || popcount(letters & ~theirs) > budget)) continue
          const term = bucket.terms[i] as string
          const typos = sameStartTypos(word, term)
          if (typos !== undefined) found.set(term, typos)
        }
      }
    }
    if (chars.length >= 9) {
      const tail = chars.slice(1).join('')
      const swapped = (chars[1] as string) + first + chars.slice(2).join('')
      const firstEdits = [...(this.#byTail.get(tail) ?? []), ...(this.#byTail.get(word) ?? []), tail, swapped]
      for (const term of firstEdits) {
        if (term === word || found.has(term) || !this.#frequency.has(term)) continue
        const typos = typosBetween(word, term)
        if (typos !== undefined) found.set(term, typos)
      }
    }
    // A loop, not [...found].map(): see mapPacked (here a deopt loop, ~100 times a run).
    const candidates: TypoCandidate[] = []
    for (const [term, typos] of found) candidates.push({ term, typos })
    return candidates.sort((a, b) => a.typos - b.typos || (this.#frequency.get(b.term) ?? 0) - (this.#frequency.get(a.term) ?? 0))
      .slice(0, MAX_TYPO_TERMS)
  }

  #mostFrequent (terms: string[], limit: number): string[] {
    if (terms.length <= limit) return terms
    return [...terms].sort((a, b) => (this.#frequency.get(b) ?? 0) - (this.#frequency.get(a) ?? 0)).slice(0, limit)
  }
}

function push<K> (map: Map<K, string[]>, key: K, term: string): void {
  const list = map.get(key)
  if (list === undefined) map.set(key, [term])
  else list.push(term)
}
