/**
 * Query-word expansions made before the engine (so every engine gets them): a Latin word
 * that reads as Japanese romaji is also searched as kana (tenki → てんき, which meets 天気 by
 * its reading), and a kana word with a small-kana or voiced-mark slip is also searched as
 * the spellings one slip away (ほにゃく → ほんやく, ばす → ぱす), at one typo. The rules
 * (docs/search.md, "Romaji and kana slips"):
 * - romaji: a word of 3+ Latin letters (Hepburn or kunrei; long vowels as ou, oo, ō or ô;
 *   n' before a vowel) that wanakana converts wholly into kana, uses no letter romaji lacks
 *   (l, q, v, x, c outside ch), and is not an English word the lexicon or the request
 *   phrasing knows (data, image, hash, search...); it ranks below an exact match of the word;
 * - slips: one small/large kana swap (ゃ/や, っ/つ), one voiced-mark change (は/ば/ぱ), or
 *   にゃ/にゅ/にょ read as ん + や/ゆ/よ (what "honyaku" without the n' gives): one typo each.
 */
import { toKana, isKana } from 'wanakana'
import type { QueryExpansion, QueryWord } from '../search-engine.js'
import { LEXICON } from '../synonyms.js'
import { hiraganaToKatakana, splitWords } from './normalize.js'

// English words that must never be read as romaji: the lexicon's English side and the
// request phrasing the intent analysis drops (the analyzer passes its filler list in).
const LEXICON_ENGLISH = new Set(LEXICON.flatMap((c) => c.en.flatMap((entry) => splitWords(entry))))

const ROMAJI_LETTERS = /^[a-zāīūēōâîûêô']+$/u
const NOT_ROMAJI = /[lqvx]|c(?!h)/u
const LONG_VOWELS: Record<string, string> = { ā: 'aa', ī: 'ii', ū: 'uu', ē: 'ee', ō: 'ou', â: 'aa', î: 'ii', û: 'uu', ê: 'ee', ô: 'ou' }
const MIN_ROMAJI_LETTERS = 3
const MAX_SLIP_VARIANTS = 24
const KATAKANA = /[\u30a1-\u30f6]/gu
const KANA_ONLY = /^[\u3041-\u3096\u30a1-\u30faー]+$/u

function toHiragana (s: string): string {
  return s.replace(KATAKANA, (ch) => String.fromCharCode(ch.charCodeAt(0) - 0x60))
}

/** Hepburn spellings wanakana reads otherwise: m before b/m/p (shimbun), tch (matcha), macrons. */
function hepburn (word: string): string {
  return word
    .replace(/[āīūēōâîûêô]/gu, (ch) => LONG_VOWELS[ch] ?? ch)
    .replace(/m(?=[bmp])/gu, 'n')
    .replace(/t(?=ch)/gu, 'c')
}

/**
 * The kana readings of a Latin word, when it reads as romaji under the rules above
 * (hiragana; oo also read as ou: yohoo → よほう; a doubled vowel also as ー, the loanword
 * spelling: nyuusu → にゅーす), or [] when it does not. `source` is the
 * word as typed when it differs (hon'yaku, whose apostrophe the word split removed).
 */
export function romajiReadings (word: string, source = word, englishWords: ReadonlySet<string> = new Set()): string[] {
  if (!ROMAJI_LETTERS.test(source) || NOT_ROMAJI.test(source)) return []
  if (word.replace(/'/gu, '').length < MIN_ROMAJI_LETTERS) return []
  if (LEXICON_ENGLISH.has(word) || englishWords.has(word)) return []
  const spelling = hepburn(source)
  const spellings = [spelling]
  if (spelling.includes('oo')) spellings.push(spelling.replace(/oo/gu, 'ou'))
  const readings: string[] = []
  for (const each of spellings) {
    const kana = toKana(each)
    if (!isKana(kana) || kana.includes('ー') || [...kana].length < 2) continue
    readings.push(toHiragana(kana))
  }
  if (readings.length === 0) return []
  // Loanwords write a doubled vowel as ー (nyuusu → ニュース, reedaa → レーダー).
  const loan = spelling.replace(/([aiueo])\1/gu, '$1-')
  if (loan !== spelling) {
    const kana = toKana(loan)
    if (isKana(kana)) readings.push(toHiragana(kana))
  }
  return [...new Set(readings)]
}

// Slips one keystroke or one mark away: each pair both ways.
const SMALL = 'ぁあぃいぅうぇえぉおっつゃやゅゆょよゎわ'
const VOICED = ['かが', 'きぎ', 'くぐ', 'けげ', 'こご', 'さざ', 'しじ', 'すず', 'せぜ', 'そぞ', 'ただ', 'ちぢ', 'つづ', 'てで', 'とど', 'はばぱ', 'ひびぴ', 'ふぶぷ', 'へべぺ', 'ほぼぽ']
const SLIPS = new Map<string, string[]>()
function addSlip (a: string, b: string): void {
  SLIPS.set(a, [...(SLIPS.get(a) ?? []), b])
}
for (let i = 0; i < SMALL.length; i += 2) {
  addSlip(SMALL[i]!, SMALL[i + 1]!)
  addSlip(SMALL[i + 1]!, SMALL[i]!)
}
for (const row of VOICED) for (const a of row) for (const b of row) if (a !== b) addSlip(a, b)
const N_Y: Array<[string, string]> = [['にゃ', 'んや'], ['にゅ', 'んゆ'], ['にょ', 'んよ']]

/**
 * Spellings one slip away from a hiragana word (see the rules above), the ん/に ones first.
 * `marks: false` keeps only those: a word typed in romaji has no kana or mark slips, only
 * the n' a writer may leave out.
 */
export function slipVariants (kana: string, marks = true): string[] {
  const variants: string[] = []
  for (const [a, b] of N_Y) {
    for (const [from, to] of [[a, b], [b, a]] as const) {
      for (let i = kana.indexOf(from); i >= 0; i = kana.indexOf(from, i + 1)) variants.push(kana.slice(0, i) + to + kana.slice(i + from.length))
    }
  }
  const chars = [...kana]
  chars.forEach((ch, i) => {
    if (!marks) return
    for (const other of SLIPS.get(ch) ?? []) {
      // No word starts with a small kana.
      if (i === 0 && SMALL.indexOf(other) % 2 === 0) continue
      variants.push([...chars.slice(0, i), other, ...chars.slice(i + 1)].join(''))
    }
  })
  return [...new Set(variants)].filter((v) => v !== kana).slice(0, MAX_SLIP_VARIANTS)
}

const formsOf = (hiragana: string): string[] => [...new Set([hiragana, hiraganaToKatakana(hiragana)])]

/**
 * The word with its expansions: romaji readings for a Latin word (and their slips), slips
 * for a kana word of two or more characters. Other words come back unchanged.
 */
export function withExpansions (word: QueryWord, options: { source?: string, englishWords?: ReadonlySet<string> } = {}): QueryWord {
  const expansions: QueryExpansion[] = []
  const readings = romajiReadings(word.text, options.source ?? word.text, options.englishWords)
  for (const reading of readings) expansions.push({ kind: 'romaji', forms: formsOf(reading), typos: 0 })
  const slipped = readings.length > 0 ? readings : KANA_ONLY.test(word.text) && [...word.text].length >= 2 ? [toHiragana(word.text)] : []
  const known = new Set([...word.forms.map(toHiragana), ...readings])
  for (const kana of slipped) {
    for (const variant of slipVariants(kana, readings.length === 0)) {
      if (known.has(variant)) continue
      known.add(variant)
      expansions.push({ kind: readings.length > 0 ? 'romaji' : 'slip', forms: formsOf(variant), typos: 1 })
    }
  }
  return expansions.length === 0 ? word : { ...word, expansions }
}

/**
 * Words written with n' (hon'yaku, kan'i) lose the apostrophe when the text is split; this
 * maps each such joined word to its spelling with the apostrophe, which reads differently.
 */
export function apostropheSpellings (normalized: string): Map<string, string> {
  const spellings = new Map<string, string>()
  for (const match of normalized.matchAll(/[a-zāīūēōâîûêô]+(?:'[a-zāīūēōâîûêô]+)+/gu)) {
    if (/n'[aeiouy]/u.test(match[0])) spellings.set(match[0].replace(/'/gu, ''), match[0])
  }
  return spellings
}
