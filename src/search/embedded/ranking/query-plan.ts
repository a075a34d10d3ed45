/**
 * Expands analyzed query words into the index terms that may match them, with how
 * each would match: exact forms and readings, synonyms, the last word as a prefix,
 * typo candidates from the index vocabulary. A Japanese word the index does not hold
 * whole (天気予報, てんきよほう) is segmented into the longest terms it does hold.
 */
import { isJapanese, katakanaSpelling } from '../../analysis/normalize.js'
import { MATCH_EXACTNESS } from '../../match-rules.js'
import { LONGEST_PHRASE, singularPhrase } from '../../synonyms.js'
import type { MatchKind, QueryExpansion, QueryWord } from '../../search-engine.js'
import { LRUCache } from 'lru-cache'
import type { Vocabulary } from '../index/vocabulary.js'
import { mapPacked } from '../index/packed.js'

export interface TermCandidate {
  readonly term: string
  readonly kind: MatchKind
  readonly typos: number
}

export interface PlannedWord {
  text: string
  /** Shared by every plan of the same word (PlanCache): never modified. */
  candidates: readonly TermCandidate[]
}

const HAN = /\p{Script=Han}/u

function inIndex (text: string, vocabulary: Vocabulary): boolean {
  return vocabulary.has(text) || vocabulary.has(katakanaSpelling(text) ?? text)
}

/**
 * Splits a Japanese word into the longest vocabulary words, left to right, skipping
 * characters no word covers (particles, unknown names: 東京の天気 → 天気). The vocabulary
 * holds words only, not bigrams, so the pieces are real words.
 */
export function segment (word: string, vocabulary: Vocabulary, known: (piece: string) => boolean = (piece) => inIndex(piece, vocabulary)): string[] {
  const chars = [...word]
  const parts: string[] = []
  let i = 0
  while (i < chars.length) {
    let found = 0
    for (let j = chars.length; j > i; j--) {
      const piece = chars.slice(i, j).join('')
      // A lone kana is grammar more often than a word; a lone kanji (株, 駅) is a word.
      if (j - i === 1 && !HAN.test(piece)) break
      if (known(piece)) { found = j; break }
    }
    if (found === 0) { i++; continue }
    parts.push(chars.slice(i, found).join(''))
    i = found
  }
  return parts
}

function wordFor (text: string): QueryWord {
  return { text, forms: [...new Set([text, katakanaSpelling(text) ?? text])] }
}

/**
 * Joins neighbouring Japanese words when the index or the synonym list knows the
 * compound: kuromoji splits スクリーンショット into スクリーン + ショット.
 */
function joinCompounds (words: readonly QueryWord[], known: (text: string) => boolean): QueryWord[] {
  const out: QueryWord[] = []
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as QueryWord
    let joined: QueryWord | undefined
    let end = i
    for (let j = i + 1; j < words.length && isJapanese((words[j] as QueryWord).text); j++) {
      const text = words.slice(i, j + 1).map((w) => w.text).join('')
      if (known(text)) { joined = wordFor(text); end = j }
    }
    if (joined !== undefined && isJapanese(word.text)) {
      out.push(joined)
      i = end
    } else {
      out.push(word)
    }
  }
  return out
}

/**
 * A romaji reading or kana slip (QueryWord.expansions), ranked below the word: a reading
 * as 'romaji' (with its translations: honyaku → ほんやく → translation), a slip as a typo. A
 * reading the index does not hold whole (てんきよほう) matches through the words that
 * cover it entirely (テンキ, ヨホウ); one they cover only in part (いまげ) matches nothing.
 */
function addExpansion (
  expansion: QueryExpansion,
  vocabulary: Vocabulary,
  synonyms: ReadonlyMap<string, readonly string[]>,
  add: (term: string, kind: MatchKind, typos?: number) => void,
  addSynonym: (term: string) => void
): void {
  if (expansion.typos > 0) {
    for (const form of expansion.forms) add(form, 'typo', expansion.typos)
    return
  }
  for (const form of expansion.forms) {
    add(form, 'romaji')
    // Its translations (honyaku → translation); its Japanese spellings it meets by reading.
    for (const synonym of synonyms.get(form) ?? []) if (!isJapanese(synonym)) addSynonym(synonym)
  }
  const [kana] = expansion.forms
  if (kana === undefined || expansion.forms.some((form) => vocabulary.has(form))) return
  const parts = segment(kana, vocabulary)
  if (parts.join('') !== kana) return
  for (const part of parts) add(vocabulary.has(part) ? part : (katakanaSpelling(part) ?? part), 'romaji')
}

/** Bytes of planned words a searcher keeps. */
export const PLAN_CACHE_BYTES = 2 * 2 ** 20

/**
 * The candidates of recently planned words, kept while the vocabulary they were read from
 * is unchanged (any write to it clears them: typo and prefix candidates, and their order by
 * frequency, follow it). Common words repeat across queries, and planning one reads its
 * synonyms, segments Japanese ones and scans the typo index: about 8 % of a search
 * thread's time under the HTTP common-word stream.
 */
export class PlanCache {
  readonly #words: LRUCache<string, TermCandidate[]>
  #vocabulary: Vocabulary | undefined
  #version = -1
  /** Words answered from the cache, and planned afresh. */
  hits = 0
  misses = 0

  constructor (maxBytes = PLAN_CACHE_BYTES) {
    this.#words = new LRUCache({
      maxSize: maxBytes,
      // UTF-16 text, about 64 bytes per candidate object, and the list's word-set key made
      // once (wordKey: each candidate's term again and ~20 characters).
      sizeCalculation: (candidates, key) => 2 * key.length + candidates.reduce((sum, c) => sum + 104 + 4 * c.term.length, 64)
    })
  }

  /** Drops every plan, and the vocabulary they were read from (a new copy of the index is loading). */
  clear (): void {
    this.#words.clear()
    this.#vocabulary = undefined
    this.#version = -1
  }

  get size (): number { return this.#words.size }
  get bytes (): number { return this.#words.calculatedSize }

  candidates (vocabulary: Vocabulary, word: QueryWord & { wholeSynonyms?: readonly string[] }, prefix: boolean, compute: () => TermCandidate[]): TermCandidate[] {
    if (vocabulary !== this.#vocabulary || vocabulary.version !== this.#version) {
      this.#words.clear()
      this.#vocabulary = vocabulary
      this.#version = vocabulary.version
    }
    const key = `${prefix ? 1 : 0}${JSON.stringify(word)}`
    let candidates = this.#words.get(key)
    if (candidates === undefined) {
      this.misses++
      candidates = compute()
      this.#words.set(key, candidates)
    } else {
      this.hits++
    }
    return candidates
  }
}

export interface PlanOptions {
  /** Match the last word as a prefix too (search-as-you-type). */
  prefixLastWord: boolean
}

export function planQuery (
  words: readonly QueryWord[],
  vocabulary: Vocabulary,
  synonyms: ReadonlyMap<string, readonly string[]>,
  options: PlanOptions = { prefixLastWord: true },
  cache?: PlanCache
): PlannedWord[] {
  // Known to the index itself, or through a synonym (スクショ → screenshot).
  const known = (text: string): boolean =>
    [text, katakanaSpelling(text) ?? text].some((form) => vocabulary.has(form) || (synonyms.get(form) ?? []).some((s) => vocabulary.has(s)))
  const expanded: Array<QueryWord & { wholeSynonyms?: readonly string[] }> = []
  for (const word of joinCompounds(words, known)) {
    const indexed = word.forms.some((form) => vocabulary.has(form))
    // Pieces the lexicon knows count too (雨雲レーダー finds "radar" listings through レーダー
    // even when no listing says レーダー), but not the whole word: 天気予報 is still searched as
    // 天気 + 予報, exact, rather than through its synonyms only.
    const parts = !indexed && isJapanese(word.text) ? segment(word.text, vocabulary, (piece) => inIndex(piece, vocabulary) || (piece !== word.text && synonyms.has(piece))) : []
    if (parts.length === 0 || (parts.length === 1 && parts[0] === word.text)) {
      expanded.push(word)
      continue
    }
    // 音声認識 → 音声 + 認識; each part also accepts the synonyms of the whole word
    // (transcription), so both spellings of the idea still match.
    const wholeSynonyms = word.forms.flatMap((form) => synonyms.get(form) ?? [])
    for (const part of parts) expanded.push({ ...wordFor(part), wholeSynonyms })
  }

  withPhraseSynonyms(expanded, synonyms)
  return mapPacked(expanded, (word, index) => {
    // One kana or letter prefixes too much to mean anything; one kanji (株) does not.
    const prefix = options.prefixLastWord && index === expanded.length - 1 && ([...word.text].length > 1 || HAN.test(word.text))
    const compute = (): TermCandidate[] => candidatesOf(word, prefix, vocabulary, synonyms)
    return { text: word.text, candidates: cache === undefined ? compute() : cache.candidates(vocabulary, word, prefix, compute) }
  })
}

/**
 * Words in a row that form a lexicon phrase (text to speech, exchange rate) each also accept
 * the phrase's synonyms, as the pieces of a Japanese compound accept the whole word's.
 */
function withPhraseSynonyms (words: Array<QueryWord & { wholeSynonyms?: readonly string[] }>, synonyms: ReadonlyMap<string, readonly string[]>): void {
  for (let i = 0; i < words.length - 1; i++) {
    for (let j = i + 2; j <= Math.min(words.length, i + LONGEST_PHRASE); j++) {
      // Phrase keys are English and hold spaces: no single word or Japanese entry is one.
      const phrase = words.slice(i, j).map((word) => word.text).join(' ')
      const found = synonyms.get(phrase) ?? synonyms.get(singularPhrase(phrase))
      if (found === undefined) continue
      for (let k = i; k < j; k++) {
        const word = words[k] as QueryWord & { wholeSynonyms?: readonly string[] }
        words[k] = { ...word, wholeSynonyms: [...new Set([...(word.wholeSynonyms ?? []), ...found])] }
      }
    }
  }
}

/** The index terms that may match one word, and how each would. */
function candidatesOf (
  word: QueryWord & { wholeSynonyms?: readonly string[] },
  prefix: boolean,
  vocabulary: Vocabulary,
  synonyms: ReadonlyMap<string, readonly string[]>
): TermCandidate[] {
  const candidates = new Map<string, TermCandidate>()
  const add = (term: string, kind: MatchKind, typos = 0): void => {
    const existing = candidates.get(term)
    if (existing === undefined || MATCH_EXACTNESS[kind] + typos < MATCH_EXACTNESS[existing.kind] + existing.typos) candidates.set(term, { term, kind, typos })
  }
  // Exact forms go in even when the in-memory vocabulary has not seen them yet, so a
  // just-indexed service is found at once.
  // Readings let a kana query meet kanji text; a kanji query matching by reading would
  // only find homophones (撮る → トリ → 取り).
  const forms = HAN.test(word.text) ? word.forms.filter((form) => HAN.test(form)) : word.forms
  forms.forEach((form, i) => { add(form, i === 0 ? 'exact' : 'alternative') })
  // Before synonyms: generator is another form of generation before it is a translation.
  for (const term of vocabulary.otherForms(word.text)) add(term, 'wordForm')
  // Whole: the index holds a lexicon entry kuromoji splits (スクリーン + ショット) whole where a
  // text has it, and a piece of one (認識 of 文字認識) is not the word (analyzeField).
  const addSynonym = (synonym: string): void => { add(synonym, 'synonym') }
  for (const form of forms) {
    for (const synonym of synonyms.get(form) ?? []) addSynonym(synonym)
  }
  for (const synonym of word.wholeSynonyms ?? []) addSynonym(synonym)
  for (const expansion of word.expansions ?? []) addExpansion(expansion, vocabulary, synonyms, add, addSynonym)
  if (prefix) for (const term of vocabulary.prefixed(word.text)) add(term, 'prefix')
  for (const { term, typos } of vocabulary.withTypos(word.text)) add(term, 'typo', typos)
  return [...candidates.values()]
}
