/**
 * Infers a listing's category from its text when the registrant gives none: the text is
 * analyzed with the search analyzer (kuromoji for Japanese) and matched against each
 * category's vocabulary (its id, English and Japanese names and description, with the search
 * synonyms of those words). A word counts 1/n when n categories share it (so "data" decides
 * little), names twice their description; the highest score wins, `other` when nothing matches.
 */
import { CATEGORIES } from '../domain/categories.js'
import { analyzeField, ENGLISH_FILLER_WORDS, JAPANESE_FILLER_WORDS } from './analysis/analyzer.js'
import type { JapaneseTokenizer } from './analysis/tokenizer.js'
import { loadSynonyms } from './synonyms.js'

const FALLBACK = 'other'
const IGNORED = new Set([...ENGLISH_FILLER_WORDS, ...JAPANESE_FILLER_WORDS, 'data', 'other', 'etc', 'paid'])

/** English plurals meet their singular ("forecasts" → "forecast"); other words as they are. */
function stem (term: string): string {
  return /^[a-z]{4,}s$/.test(term) && !term.endsWith('ss') ? term.slice(0, -1) : term
}

export class CategoryInference {
  /** term → category id → weight */
  readonly #vocabulary = new Map<string, Map<string, number>>()

  constructor (private readonly tokenizer: JapaneseTokenizer) {
    const synonyms = loadSynonyms()
    const raw = new Map<string, Map<string, number>>()
    const add = (term: string, category: string, weight: number): void => {
      const key = stem(term)
      if (IGNORED.has(term) || IGNORED.has(key)) return
      const weights = raw.get(key) ?? new Map<string, number>()
      weights.set(category, Math.max(weights.get(category) ?? 0, weight))
      raw.set(key, weights)
    }
    for (const category of CATEGORIES) {
      if (category.id === FALLBACK) continue
      const named = [category.id.replace(/-/g, ' '), category.name, category.nameJa]
      for (const [texts, weight] of [[named, 2], [[category.description], 1]] as const) {
        for (const text of texts) {
          // Whole words only: two-character pieces of ストレージ would match any レー.
          for (const { term } of this.#terms(text).filter((t) => t.fragment !== true)) {
            add(term, category.id, weight)
            for (const synonym of synonyms.get(term) ?? []) add(synonym, category.id, weight / 2)
          }
        }
      }
    }
    for (const [term, weights] of raw) {
      this.#vocabulary.set(term, new Map([...weights].map(([category, weight]) => [category, weight / weights.size])))
    }
  }

  #terms (text: string): Array<{ term: string, fragment?: true }> {
    return analyzeField(text, this.tokenizer)
  }

  /**
   * The category id the text fits best, `other` when none fits. Each line is analysed alone:
   * inferenceText puts a listing's name, description and tags on lines of their own, and the
   * indexer analyses the name and the description as they are, so the analysis of a text is
   * shared (analyzeField keeps recent ones).
   */
  infer (text: string): string {
    const scores = new Map<string, number>()
    const seen = new Set<string>()
    for (const { term } of text.split('\n').flatMap((line) => this.#terms(line))) {
      const key = stem(term)
      if (seen.has(key)) continue
      seen.add(key)
      for (const [category, weight] of this.#vocabulary.get(key) ?? []) scores.set(category, (scores.get(category) ?? 0) + weight)
    }
    let best = FALLBACK
    let bestScore = 0
    // CATEGORIES order breaks ties: stable answers for the same text.
    for (const category of CATEGORIES) {
      const score = scores.get(category.id) ?? 0
      if (score > bestScore) { best = category.id; bestScore = score }
    }
    return best
  }
}
