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

/** An English entry of several words as one term, the way the analyzer indexes it (text-to-image → "text to image"). */
export function phraseTerm (entry: string): string {
  return splitWords(entry).join(' ')
}

const isSingleWord = (entry: string): boolean => {
  const parts = splitWords(entry)
  return parts.length === 1 && parts[0] === entry
}

/** Entries mixing scripts ("qrコード") are never keys, nor matched: their Japanese half, コード, would be noise. */
const isEnglishPhrase = (entry: string): boolean => !isSingleWord(entry) && !isJapanese(entry)

/**
 * The lexicon's English entries of several words, as terms: the analyzer indexes one where a
 * text has its words in a row ("Identity Verification" → "identity verification"), so
 * 本人確認 meets the phrase and not either word alone ("stock price" made every "price" a
 * stock, and "exchange rate" every "rate" an exchange rate).
 */
export const LEXICON_PHRASES: ReadonlySet<string> = new Set(SYNONYM_GROUPS.flat().filter(isEnglishPhrase).map(phraseTerm))

/**
 * The lexicon's Japanese entries: kuromoji splits some of them (文字認識 → 文字 + 認識, スクリーン
 * ショット), and the analyzer indexes one whole where the text has its words in a row, so OCR
 * meets 文字認識 and never 認識 alone (音声認識).
 */
export const LEXICON_JAPANESE: ReadonlySet<string> = new Set(LEXICON.flatMap((concept) => concept.ja))

/**
 * A phrase with its last word as a singular (postal codes → postal code): how a text's or a
 * query's words in a row meet a lexicon phrase whose last word is plural there, alike on both sides.
 */
export function singularPhrase (phrase: string): string {
  return /[a-z]{3}s$/.test(phrase) && !phrase.endsWith('ss') ? phrase.slice(0, -1) : phrase
}

/** Words in the longest of LEXICON_PHRASES. */
export const LONGEST_PHRASE = Math.max(0, ...[...LEXICON_PHRASES].map((phrase) => phrase.split(' ').length))

/**
 * Each term → the other terms of every group it is in: single words, and English entries of
 * several words as phrase terms (LEXICON_PHRASES), which a query's words in a row form (text
 * to speech → 音声合成). Entries mixing scripts are left out. Meilisearch, which handles
 * multi-word synonyms itself, gets every entry whole.
 */
export function loadSynonyms (): Map<string, string[]> {
  const synonyms = new Map<string, Set<string>>()
  for (const group of SYNONYM_GROUPS) {
    const terms = [...new Set([...group.filter(isSingleWord), ...group.filter(isEnglishPhrase).map(phraseTerm)])]
    for (const key of terms) {
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
