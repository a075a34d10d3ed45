/**
 * Turns text into search terms. Index-time and query-time analysis live side
 * by side because they must agree: every form a query can produce has to be
 * a form the index may hold.
 */
import { LRUCache } from 'lru-cache'
import { cjkRuns, foreignWords, isJapanese, kanaRuns, katakanaSpelling, normalizeText, splitWords } from './normalize.js'
import type { DocumentTerm, QueryWord } from '../search-engine.js'
import type { JapaneseToken, JapaneseTokenizer } from './tokenizer.js'
import { apostropheSpellings, withExpansions } from './expansion.js'
import { LEXICON_JAPANESE, LEXICON_PHRASES, LONGEST_PHRASE, singularPhrase } from '../synonyms.js'

export type QueryLanguage = 'ja' | 'en'

export interface QueryIntent {
  tokens: QueryWord[]
  language: QueryLanguage
}

/** Words that only carry the conversational frame of an English request. */
export const ENGLISH_FILLER_WORDS: readonly string[] = [
  'i', 'im', 'me', 'my', 'we', 'us', 'our', 'you', 'your', 'it', 'this', 'that', 'which', 'there',
  'a', 'an', 'the', 'some', 'something', 'any', 'anything',
  'to', 'for', 'of', 'in', 'on', 'at', 'by', 'from', 'with', 'about', 'and', 'or',
  'is', 'are', 'am', 'be', 'do', 'does', 'can', 'could', 'would', 'will', 'should',
  'want', 'wants', 'need', 'needs', 'like', 'looking', 'look', 'find', 'search', 'show', 'give', 'get',
  'know', 'tell', 'recommend', 'use', 'using', 'help', 'please', 'thanks', 'hi', 'hello',
  'how', 'what', 'where', 'just',
  'api', 'apis', 'service', 'services', 'endpoint', 'endpoints',
  // Leftovers of contractions split at the apostrophe (i'm, don't, i'd).
  'm', 's', 't', 'd', 're', 've', 'll',
]

/** Dictionary forms that only carry the conversational frame of a Japanese request. */
export const JAPANESE_FILLER_WORDS: readonly string[] = [
  '探す', 'さがす', '欲しい', 'ほしい', 'する', 'ある', 'いる', 'なる', 'できる', '出来る',
  '教える', 'おしえる', '知る', 'しる', '使う', 'つかう', '見つける', 'みつける', '調べる', 'しらべる',
  '見る', 'みる', '思う', 'おもう', 'くださる', 'ください', 'お願い', 'おねがい', '願う', 'もらう', 'もらえる',
  'たい', 'いい', 'よい', '良い', 'おすすめ', 'オススメ', 'お勧め', 'お薦め',
  '利用', '使用', '取得', '方法', 'やり方', 'もの', 'こと', 'ため',
  'サービス', 'エーピーアイ',
]

const ENGLISH_FILLERS = new Set(ENGLISH_FILLER_WORDS)
const JAPANESE_FILLERS = new Set(JAPANESE_FILLER_WORDS)

// Grammar, not content: never indexed, never searched for.
const GRAMMATICAL_POS = new Set(['記号', '助詞', '助動詞'])
// Content-poor parts of speech: dropped from intent queries unless nothing else is left.
const WEAK_POS = new Set(['連体詞', '接続詞', '感動詞', 'フィラー', '副詞', '接頭詞', 'その他'])
const WEAK_NOUN_DETAILS = new Set(['非自立', '接尾', '代名詞'])
const INFLECTING_POS = new Set(['動詞', '形容詞'])

const WHOLE_WORD = /^[\p{L}\p{N}\p{M}]+$/u
const WORD_PIECE = /[\p{L}\p{N}\p{M}]+/gu
const KANJI = /\p{Script=Han}/u
const MIN_BIGRAM_RUN = 3

/** A word of the text in reading order: a foreign word taken whole, or a kuromoji token. */
interface TextUnit {
  surface: string
  start: number
  token?: JapaneseToken
}

/**
 * kuromoji tokenizes the whole text (particles need their context to be
 * recognised), but words in other scripts are taken whole from the text
 * instead of from its tokens: it would split x402 into x + 402 and tag ASCII
 * '-' as a noun. Grammatical tokens and tokens without word characters
 * (spaces, punctuation) are left out.
 */
function contentUnits (text: string, tokenizer: JapaneseTokenizer): TextUnit[] {
  const units: TextUnit[] = []
  const foreign = foreignWords(text)
  const inForeign = new Uint8Array(text.length)
  for (const word of foreign) inForeign.fill(1, word.start, word.start + word.text.length)
  let next = 0
  const emitForeignBefore = (end: number): void => {
    for (let word = foreign[next]; word && word.start < end; word = foreign[++next]) {
      units.push({ surface: word.text, start: word.start })
    }
  }

  // Offsets are recomputed from the surfaces: kuromoji's word_position counts
  // code points and drifts after sentence punctuation (。、).
  let offset = 0
  for (const token of tokenizer.tokenize(text)) {
    const surface = token.surface_form
    const start = offset
    const end = start + surface.length
    offset = end
    // Tokens overlapping a foreign word are replaced by that word.
    emitForeignBefore(end)
    if (inForeign.subarray(start, end).includes(1)) continue
    // kuromoji tags kanji it does not know (𠮷, outside the BMP) as 記号; those are words.
    if (GRAMMATICAL_POS.has(token.pos) && !(token.pos === '記号' && KANJI.test(surface))) continue
    if (WHOLE_WORD.test(surface)) {
      units.push({ surface, start, token })
      continue
    }
    // A token mixing symbols with letters: keep only its word pieces, without features.
    for (const piece of surface.matchAll(WORD_PIECE)) units.push({ surface: piece[0], start: start + piece.index })
  }
  emitForeignBefore(Infinity)
  return units
}

function isMeaningful (value: string | undefined): value is string {
  return value !== undefined && value !== '*' && WHOLE_WORD.test(value)
}

/** Surface, dictionary form, katakana reading and katakana spelling: the ways a word may be written. */
function unitForms (unit: TextUnit, first: string): string[] {
  const forms: (string | undefined)[] = [first, unit.surface]
  const token = unit.token
  if (token) {
    const basic = normalizeText(token.basic_form)
    if (isMeaningful(basic)) forms.push(basic)
    if (isMeaningful(token.reading)) forms.push(token.reading)
  }
  forms.push(katakanaSpelling(first), katakanaSpelling(unit.surface))
  return [...new Set(forms.filter(isMeaningful))]
}

/** Character bigrams of every kanji/katakana run of three or more characters. */
export function characterBigrams (text: string): string[] {
  return cjkRunBigrams(text).map((b) => b.text)
}

function cjkRunBigrams (text: string): { text: string; start: number }[] {
  const bigrams: { text: string; start: number }[] = []
  for (const run of cjkRuns(text)) {
    const chars = [...run.text]
    if (chars.length < MIN_BIGRAM_RUN) continue
    let offset = run.start
    for (let i = 0; i + 1 < chars.length; i++) {
      bigrams.push({ text: `${chars[i]}${chars[i + 1]}`, start: offset })
      offset += chars[i]!.length
    }
  }
  return bigrams
}

/**
 * Index-time analysis of one field. Japanese text yields, per kept word, its
 * surface, dictionary form and katakana reading (so 天気, てんき and テンキ
 * meet), plus character bigrams of long kanji/katakana runs (so 音声認識 is
 * found however kuromoji split リアルタイム音声認識); bigrams are the port's
 * word fragments.
 */
export function analyzeField (text: string, tokenizer: JapaneseTokenizer): DocumentTerm[] {
  const normalized = normalizeText(text)
  if (!isJapanese(normalized)) {
    const words = splitWords(normalized)
    return [...words.map((term, position) => ({ term, position })), ...phrasesIn(words, 0)]
  }
  let cache = recentFields.get(tokenizer)
  if (cache === undefined) {
    cache = new LRUCache({ max: FIELD_CACHE_ENTRIES, maxSize: FIELD_CACHE_BYTES, sizeCalculation: (terms, key) => 2 * key.length + FIELD_TERM_BYTES * terms.length })
    recentFields.set(tokenizer, cache)
  }
  const cached = cache.get(normalized)
  if (cached !== undefined) return [...cached]
  const terms = analyzeJapaneseField(normalized, tokenizer)
  // Frozen: a caller that changed a shared term would change every later analysis of the text.
  cache.set(normalized, terms.map((term) => Object.freeze(term)))
  return [...terms]
}

/** Japanese texts' analyses kept at most, and their bytes (approximate: the text, ~80 per term). */
const FIELD_CACHE_ENTRIES = 4096
const FIELD_CACHE_BYTES = 8 * 1024 * 1024
const FIELD_TERM_BYTES = 80

/**
 * The last analyses of Japanese texts, per tokenizer: kuromoji is most of a field's cost, and
 * the same text is analysed again moments later, when a source pass infers a listing's
 * category from its name and description and the indexer then analyses both (most of a pass's
 * time on the API's thread was kuromoji, half of it twice over the same texts).
 */
const recentFields = new WeakMap<JapaneseTokenizer, LRUCache<string, readonly DocumentTerm[]>>()

function analyzeJapaneseField (normalized: string, tokenizer: JapaneseTokenizer): DocumentTerm[] {
  const terms = new Map<string, DocumentTerm>()
  const add = (term: string, position: number, fragment = false): void => {
    const key = `${position}\u0000${term}`
    if (!terms.has(key)) terms.set(key, fragment ? { term, position, fragment } : { term, position })
  }

  const positionAt: (number | undefined)[] = []
  const units = contentUnits(normalized, tokenizer)
  units.forEach((unit, position) => {
    for (const form of unitForms(unit, unit.surface)) add(form, position)
    for (let i = unit.start; i < unit.start + unit.surface.length; i++) positionAt[i] = position
  })
  // Lexicon entries kuromoji split, whole where their words are in a row (文字 + 認識 → 文字認識).
  units.forEach((unit, position) => {
    let joined = unit.surface
    let end = unit.start + unit.surface.length
    for (let next = position + 1; next < units.length && next - position < MAX_JOINED_UNITS; next++) {
      const following = units[next] as TextUnit
      if (following.start !== end || !JAPANESE_ENTRY_STARTS.has(joined)) break
      joined += following.surface
      end += following.surface.length
      if (LEXICON_JAPANESE.has(joined)) add(joined, position)
    }
  })
  // A kana word kuromoji split (コトバンク → コト + バンク, はこぶね → はこぶ + ね), whole and in
  // katakana: a query in either script (ことばんく, ハコブネ) meets it. Only a run that starts
  // with a content word: one that starts with a particle (のさくら) is grammar.
  for (const run of kanaRuns(normalized)) {
    const length = [...run.text].length
    if (length < MIN_KANA_WORD || length > MAX_KANA_WORD) continue
    const position = positionAt[run.start]
    const unit = position === undefined ? undefined : units[position]
    if (position === undefined || unit?.token === undefined || unit.start !== run.start || unit.surface.length >= run.text.length) continue
    add(katakanaSpelling(run.text) ?? run.text, position)
  }
  // English phrases among the foreign words in a row ("Speech to Text API で文字起こし").
  let run: string[] = []
  units.forEach((unit, position) => {
    const latin = unit.token === undefined && LATIN_WORD.test(unit.surface)
    if (latin) run.push(unit.surface)
    if (run.length >= 2 && (!latin || position === units.length - 1)) {
      const first = (latin ? position + 1 : position) - run.length
      for (const phrase of phrasesIn(run, first)) add(phrase.term, phrase.position)
    }
    if (!latin) run = []
  })

  for (const bigram of cjkRunBigrams(normalized)) {
    add(bigram.text, nearestPosition(positionAt, bigram.start), true)
  }
  return [...terms.values()]
}

/** Characters of a kana run indexed whole: a name is rarely longer; longer runs are sentences. */
const MIN_KANA_WORD = 3
const MAX_KANA_WORD = 12
/** Words a Japanese lexicon entry is split into at most (非代替性トークン: 非 + 代替 + 性 + トークン). */
const MAX_JOINED_UNITS = 5
/** Every beginning of a Japanese lexicon entry: most words begin none, and are not joined to the next. */
const JAPANESE_ENTRY_STARTS = new Set([...LEXICON_JAPANESE].flatMap((entry) => [...entry].map((_, i) => entry.slice(0, i + 1))))
const LATIN_WORD = /^[\p{Script=Latin}\p{N}]+$/u
const PHRASE_FIRST_WORDS = new Set([...LEXICON_PHRASES].map((phrase) => phrase.slice(0, phrase.indexOf(' '))))

/**
 * The lexicon's English phrases (LEXICON_PHRASES) in `words` (words in a row, the first at
 * position `first`), as one term each at its first word's position: 本人確認 meets "identity
 * verification" through that term, never through "identity" or "verification" alone.
 */
function phrasesIn (words: readonly string[], first: number): DocumentTerm[] {
  const found: DocumentTerm[] = []
  for (let i = 0; i < words.length - 1; i++) {
    if (!PHRASE_FIRST_WORDS.has(words[i] as string)) continue
    for (let n = 2; n <= LONGEST_PHRASE && i + n <= words.length; n++) {
      const phrase = words.slice(i, i + n).join(' ')
      const term = LEXICON_PHRASES.has(phrase) ? phrase : singularPhrase(phrase)
      if (LEXICON_PHRASES.has(term)) found.push({ term, position: first + i })
    }
  }
  return found
}

// A bigram may start inside a token that was not kept; it then belongs to the
// nearest kept token before it, or to the first position when there is none.
function nearestPosition (positionAt: (number | undefined)[], offset: number): number {
  for (let i = offset; i >= 0; i--) {
    const position = positionAt[i]
    if (position !== undefined) return position
  }
  return 0
}

/**
 * Query-time analysis for catalog search: no morphology, so what the user
 * typed stays whole (天気予報 is one word); only whitespace and punctuation
 * separate words.
 */
export function splitQueryWords (q: string): QueryWord[] {
  const seen = new Set<string>()
  const words: QueryWord[] = []
  const { text: normalized, apostrophes } = joinApostrophes(normalizeText(q))
  for (const text of splitWords(normalized)) {
    if (seen.has(text)) continue
    seen.add(text)
    words.push(apostrophes.has(text) ? keywordOf(text, apostrophes) : recentKeyword(text))
  }
  // Every listing is an API: next to other words, "api" only adds a word any listing may match
  // ("stock price api" put a crypto "Price API" above "Stock Quotes" that says stock and price).
  const meaningful = words.filter((word) => !CATALOG_WORDS.has(word.text))
  return meaningful.length > 0 ? meaningful : words
}

function keywordOf (text: string, apostrophes: ReadonlyMap<string, string>): QueryWord {
  return expand({ text, forms: [...new Set([text, katakanaSpelling(text) ?? text])] }, apostrophes)
}

/**
 * A keyword as keywordOf makes it (written without n'), kept: the same words recur across
 * searches, and their romaji readings and slips were ~2/3 of a keyword query's analysis
 * (~6 of ~10 µs for two or three words, on the API's thread). Frozen: every search shares it.
 */
function recentKeyword (text: string): QueryWord {
  let word = recentKeywords.get(text)
  if (word === undefined) {
    word = keywordOf(text, NO_APOSTROPHES)
    for (const expansion of word.expansions ?? []) Object.freeze(Object.freeze(expansion).forms)
    Object.freeze(word.expansions)
    Object.freeze(word.forms)
    recentKeywords.set(text, Object.freeze(word))
  }
  return word
}

const NO_APOSTROPHES: ReadonlyMap<string, string> = new Map()

/** Keywords kept at most, and their bytes (approximate: UTF-16 text, ~64 per object or array). */
const KEYWORD_CACHE_ENTRIES = 8192
const KEYWORD_CACHE_BYTES = 2 * 1024 * 1024

const recentKeywords = new LRUCache<string, QueryWord>({
  max: KEYWORD_CACHE_ENTRIES,
  maxSize: KEYWORD_CACHE_BYTES,
  sizeCalculation: (word) => 64 + textBytes(word.forms) + (word.expansions ?? []).reduce((sum, expansion) => sum + 64 + textBytes(expansion.forms), 0)
})

function textBytes (texts: readonly string[]): number {
  return texts.reduce((sum, text) => sum + 64 + 2 * text.length, 64)
}

/** Words naming what every listing is, left out of a catalog query that has others. */
const CATALOG_WORDS = new Set(['api', 'apis', 'service', 'services', 'endpoint', 'endpoints', 'サービス'])

/** Romaji n' (hon'yaku) would be split at the apostrophe: join the word, remember how it was written. */
function joinApostrophes (normalized: string): { text: string, apostrophes: Map<string, string> } {
  const apostrophes = apostropheSpellings(normalized)
  let text = normalized
  for (const [joined, written] of apostrophes) text = text.replaceAll(written, joined)
  return { text, apostrophes }
}

/** Romaji readings and kana slips (./expansion.ts), searched below the word itself. */
function expand (word: QueryWord, apostrophes: ReadonlyMap<string, string>): QueryWord {
  const source = apostrophes.get(word.text)
  return withExpansions(word, source === undefined ? { englishWords: ENGLISH_FILLERS } : { source, englishWords: ENGLISH_FILLERS })
}

/**
 * Query-time analysis for conversational requests ("東京の天気予報を教えてください",
 * "I want to find a weather API please"): keeps the words that name what is
 * wanted and drops grammar and request phrasing. If nothing would be left,
 * the request words themselves are searched rather than nothing.
 */
export function analyzeIntent (q: string, tokenizer: JapaneseTokenizer): QueryIntent {
  const { text: normalized, apostrophes } = joinApostrophes(normalizeText(q))
  const language: QueryLanguage = isJapanese(normalized) ? 'ja' : 'en'
  const content: QueryWord[] = []
  const fallback: QueryWord[] = []

  for (const unit of contentUnits(normalized, tokenizer)) {
    const token = unit.token
    const basic = token && isMeaningful(token.basic_form) ? token.basic_form : undefined
    // Inflected words are searched by dictionary form: 探して → 探す.
    const text = token && basic && INFLECTING_POS.has(token.pos) ? basic : unit.surface
    const word = expand({ text, forms: unitForms(unit, text) }, apostrophes)
    fallback.push(word)
    if (token ? isWeakToken(token) : ENGLISH_FILLERS.has(unit.surface)) continue
    content.push(word)
  }

  return { tokens: uniqueByText(content.length > 0 ? content : fallback), language }
}

function isWeakToken (token: JapaneseToken): boolean {
  if (WEAK_POS.has(token.pos)) return true
  if (token.pos_detail_1 === '非自立') return true
  if (token.pos === '名詞' && WEAK_NOUN_DETAILS.has(token.pos_detail_1)) return true
  return JAPANESE_FILLERS.has(token.basic_form) || JAPANESE_FILLERS.has(token.surface_form)
}

function uniqueByText (words: QueryWord[]): QueryWord[] {
  const seen = new Set<string>()
  return words.filter((w) => (seen.has(w.text) ? false : (seen.add(w.text), true)))
}
