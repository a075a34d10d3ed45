/**
 * The catalog's bilingual lexicon (lexicon.json: reviewed data, with its sources and
 * licence) as synonym groups, so the embedded engine and Meilisearch share one list. Every
 * entry is already in normalizeText form. A concept's English words, Japanese words and
 * their hiragana readings form one group: a query word is expanded into the others, which
 * rank below the word typed (the 'synonym' match kind), so 郵便番号 finds "postal code"
 * listings, "background removal" finds 背景除去, and ほんやく (or the romaji honyaku) finds
 * "translation".
 */
import { isJapanese, splitWords } from './analysis/normalize.js'
import data from './lexicon.json' with { type: 'json' }

export interface LexiconConcept {
  en: readonly string[]
  ja: readonly string[]
  /** Hiragana reading of each `ja` entry, in the same order. */
  readings: readonly string[]
}

const split = (cell: string): string[] => cell.split('|').filter((entry) => entry !== '')

export const LEXICON: readonly LexiconConcept[] = (data.concepts as string[][]).map(([en = '', ja = '', readings = '']) => ({ en: split(en), ja: split(ja), readings: split(readings) }))

export const SYNONYM_GROUPS: readonly (readonly string[])[] = LEXICON.map((c) => [...new Set([...c.en, ...c.ja, ...c.readings])])

// Words of multi-word entries that carry no meaning of their own (speech-to-text → speech, text).
const PHRASE_STOPWORDS = new Set(['a', 'an', 'the', 'to', 'of', 'for', 'in', 'on', 'and', 'or', 'by', 'with', 'from'])

/**
 * Each single-word term → the other terms of every group it is in. Catalog queries are
 * split into words before synonyms are looked up, so only single-word entries are keys.
 * A multi-word English entry is expanded into its words, each a synonym of the key
 * (本人確認 → identity, verification), so a listing titled "Identity Verification" meets
 * 本人確認; function words (to, of) are left out. Entries mixing scripts ("qrコード") are
 * never keys, nor expanded (their Japanese half, コード, would be noise). Meilisearch,
 * which handles multi-word synonyms itself, gets every entry whole.
 */
export function loadSynonyms (): Map<string, string[]> {
  const isSingleWord = (entry: string): boolean => {
    const parts = splitWords(entry)
    return parts.length === 1 && parts[0] === entry
  }
  const synonyms = new Map<string, Set<string>>()
  for (const group of SYNONYM_GROUPS) {
    const keys = group.filter(isSingleWord)
    const phraseWords = group.filter((entry) => !isSingleWord(entry) && !isJapanese(entry)).flatMap((entry) => splitWords(entry)).filter((w) => !PHRASE_STOPWORDS.has(w))
    const terms = [...new Set([...keys, ...phraseWords])]
    for (const key of keys) {
      const others = synonyms.get(key) ?? new Set<string>()
      for (const term of terms) if (term !== key) others.add(term)
      synonyms.set(key, others)
    }
  }
  return new Map([...synonyms].filter(([, others]) => others.size > 0).map(([term, others]) => [term, [...others]]))
}

/** The `synonyms` setting for Meilisearch: word → its synonyms, multi-word entries included. */
export function toMeilisearchSynonyms (): Record<string, string[]> {
  return Object.fromEntries(relatedTerms(SYNONYM_GROUPS))
}

// Groups are symmetric, so each term's synonyms are the union of its groups minus itself.
function relatedTerms (groups: readonly (readonly string[])[]): Map<string, string[]> {
  const related = new Map<string, Set<string>>()
  for (const group of groups) {
    for (const term of group) {
      const others = related.get(term) ?? new Set<string>()
      for (const other of group) if (other !== term) others.add(other)
      related.set(term, others)
    }
  }
  return new Map([...related].filter(([, others]) => others.size > 0).map(([term, others]) => [term, [...others]]))
}
