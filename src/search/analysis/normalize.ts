/**
 * Character-level normalization shared by indexing and querying, so both
 * sides of a match see the same spelling of the same text.
 */

// Hiragana (with ゝゞ), katakana (with ー, ヽヾ and the small Ainu kana), 々 and
// CJK ideographs: the characters that send text through the Japanese analyzer.
const HIRAGANA_CLASS = '\\u3041-\\u3096\\u309D\\u309E'
const KATAKANA_CLASS = '\\u30A1-\\u30FA\\u30FC-\\u30FE\\u31F0-\\u31FF'
const KANJI_CLASS = '\\p{Script=Han}\\u3005'
const JAPANESE_CLASS = HIRAGANA_CLASS + KATAKANA_CLASS + KANJI_CLASS

const HIRAGANA_CHAR = new RegExp(`[${HIRAGANA_CLASS}]`, 'gu')
const JAPANESE_CHAR = new RegExp(`[${JAPANESE_CLASS}]`, 'u')
const CJK_RUN = new RegExp(`[${KATAKANA_CLASS}${KANJI_CLASS}]+`, 'gu')
// ー lengthens hiragana too (すまーと).
const KANA_RUN = new RegExp(`[${HIRAGANA_CLASS}ー]+|[${KATAKANA_CLASS}]+`, 'gu')
const SCRIPT_PIECE = new RegExp(`[${JAPANESE_CLASS}]+|[^${JAPANESE_CLASS}]+`, 'gu')
const FOREIGN_WORD = new RegExp(`(?:(?![${JAPANESE_CLASS}])[\\p{L}\\p{N}\\p{M}])+`, 'gu')

/**
 * Anything that is not part of a word. Terms are stored space-separated in an
 * FTS5 table with the `ascii` tokenizer, so whitespace and ASCII punctuation
 * must never survive inside a term; marks stay so accented and Indic letters
 * are not torn apart.
 */
export const NON_WORD = /[^\p{L}\p{N}\p{M}]+/u

// Hiragana and katakana blocks are laid out in parallel, 0x60 apart.
const KANA_OFFSET = 0x60

/** Spacing and C0 control characters: kuromoji throws on NUL (its trie's terminal code). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const SPACING = /[\s\u0000-\u001f\u007f]+/gu
/** A lone UTF-16 surrogate (possible in JSON input): kuromoji cannot encode it and throws. */
const LONE_SURROGATE = /\p{Cs}/gu

/**
 * NFKC folds half-width katakana (ｶﾀｶﾅ → カタカナ) and full-width Latin
 * (ＡＰＩ → API) into their ordinary forms; then case and spacing are evened out.
 * Control characters count as spacing and a lone surrogate becomes U+FFFD, so any
 * client text can be analysed.
 */
export function normalizeText (s: string): string {
  return s.replace(LONE_SURROGATE, '\uFFFD').normalize('NFKC').toLowerCase().replace(SPACING, ' ').trim()
}

/** ひらがな → ヒラガナ; everything else is left as is. */
export function hiraganaToKatakana (s: string): string {
  return s.replace(HIRAGANA_CHAR, (ch) => String.fromCharCode(ch.charCodeAt(0) + KANA_OFFSET))
}

const KANA_ONLY = new RegExp(`^[${HIRAGANA_CLASS}${KATAKANA_CLASS}]+$`, 'u')

/**
 * The katakana spelling of an all-kana word (てんき → テンキ), which is how
 * readings are indexed; undefined for words with kanji or other letters,
 * where a half-converted spelling (知リ) would match nothing.
 */
export function katakanaSpelling (word: string): string | undefined {
  return KANA_ONLY.test(word) ? hiraganaToKatakana(word) : undefined
}

/** True when the text contains hiragana, katakana or CJK ideographs. */
export function isJapanese (s: string): boolean {
  return JAPANESE_CHAR.test(s)
}

/** Splits text into words: letter/digit runs, cut where Japanese meets other scripts ("天気api" → 天気, api). */
export function splitWords (s: string): string[] {
  const words: string[] = []
  for (const chunk of s.split(NON_WORD)) {
    for (const piece of chunk.match(SCRIPT_PIECE) ?? []) words.push(piece)
  }
  return words
}

export interface TextSpan {
  text: string
  /** Offset of the span's first character, in UTF-16 code units. */
  start: number
}

/**
 * Maximal runs of kanji/katakana (音声認識, リアルタイム): the dense compounds that
 * kuromoji may keep whole or split its own way. Hiragana is left out because
 * it mostly carries grammar rather than meaning.
 */
export function cjkRuns (s: string): TextSpan[] {
  return [...s.matchAll(CJK_RUN)].map((m) => ({ text: m[0], start: m.index }))
}

/** Runs of hiragana, and of katakana, with their offsets. */
export function kanaRuns (s: string): TextSpan[] {
  return [...s.matchAll(KANA_RUN)].map((m) => ({ text: m[0], start: m.index }))
}

/**
 * Words written in scripts other than Japanese (api, x402, café). kuromoji
 * would split these at letter/digit boundaries (x402 → x, 402), so they are
 * taken whole instead.
 */
export function foreignWords (s: string): TextSpan[] {
  return [...s.matchAll(FOREIGN_WORD)].map((m) => ({ text: m[0], start: m.index }))
}
