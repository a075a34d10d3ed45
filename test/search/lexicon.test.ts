/**
 * The bilingual lexicon (src/search/lexicon.json) is reviewed data: every entry must be a
 * term search can meet. Japanese entries, analysed as documents are (kuromoji), must give
 * Japanese terms; English entries only Latin ones; readings are hiragana, one per entry.
 */
import { test } from 'tap'
import { analyzeField } from '../../src/search/analysis/analyzer.js'
import { isJapanese, normalizeText } from '../../src/search/analysis/normalize.js'
import { loadTokenizer } from '../../src/search/analysis/tokenizer.js'
import { CATEGORIES } from '../../src/domain/categories.js'
import { LEXICON, LEXICON_PHRASES, loadSynonyms } from '../../src/search/synonyms.js'

const tokenizer = await loadTokenizer()
const LATIN_TERM = /^[a-z0-9]+$/
const HIRAGANA = /^[\u3041-\u3096ー]+$/u
const describe = (c: { en: readonly string[], ja: readonly string[] }): string => `${c.en.join('|')} / ${c.ja.join('|')}`

test('the lexicon holds several hundred concepts, each in both languages', async (t) => {
  t.ok(LEXICON.length >= 300, `${LEXICON.length} concepts`)
  t.same(LEXICON.filter((c) => c.en.length === 0 || c.ja.length === 0).map(describe), [], 'every concept has English and Japanese entries')
  const entries = LEXICON.flatMap((c) => [...c.en, ...c.ja, ...c.readings])
  t.same(entries.filter((e) => e !== normalizeText(e) || e.trim() !== e || e === ''), [], 'entries are in normalizeText form')
})

test('English entries analyse to Latin terms only', async (t) => {
  const bad = LEXICON.flatMap((c) => c.en.filter((en) => {
    const terms = analyzeField(en, tokenizer).map((term) => term.term)
    // An entry of several words is also one phrase term (LEXICON_PHRASES), spaces and all.
    return isJapanese(en) || terms.length === 0 || !terms.every((term) => LATIN_TERM.test(term) || LEXICON_PHRASES.has(term))
  }))
  t.same(bad, [])
})

test('Japanese entries analyse (kuromoji) to Japanese terms', async (t) => {
  const bad = LEXICON.flatMap((c) => c.ja.filter((ja) => {
    const terms = analyzeField(ja, tokenizer).filter((term) => term.fragment !== true).map((term) => term.term)
    // A loanword may keep a Latin part (qrコード, nftメタデータ), but the entry must yield Japanese terms.
    return !isJapanese(ja) || !terms.some(isJapanese)
  }))
  t.same(bad, [])
})

test('every Japanese entry has one hiragana reading', async (t) => {
  t.same(LEXICON.filter((c) => c.readings.length !== c.ja.length).map(describe), [], 'one reading per Japanese entry')
  t.same(LEXICON.flatMap((c) => c.readings.filter((r) => !HIRAGANA.test(r))), [], 'readings are hiragana')
  // Readings agree with kuromoji's for the entries it reads whole (hand-written readings are checked, not
  // trusted), except where the dictionary's first reading is not the word's (reviewed by hand).
  const reviewed = new Set(['振り仮名', '米ドル', 'ピン留め', '自撮り', '空室', 'ホテル空室', '日本酒'])
  const toHiragana = (s: string): string => s.replace(/[\u30a1-\u30f6]/gu, (ch) => String.fromCharCode(ch.charCodeAt(0) - 0x60))
  const disagree: string[] = []
  for (const c of LEXICON) {
    c.ja.forEach((ja, i) => {
      const tokens = tokenizer.tokenize(ja)
      if (reviewed.has(ja) || !tokens.every((tk) => tk.reading !== undefined && tk.reading !== '*' && tk.word_type === 'KNOWN')) return
      const reading = toHiragana(tokens.map((tk) => tk.reading).join(''))
      if (reading !== c.readings[i]) disagree.push(`${ja}: ${c.readings[i]} (kuromoji ${reading})`)
    })
  }
  t.same(disagree, [], 'readings agree with the dictionary')
})

test('every category is covered by the lexicon in both languages', async (t) => {
  const synonyms = loadSynonyms()
  // Each category's content words (its Japanese name's parts) have an English counterpart.
  const uncovered = CATEGORIES.filter((c) => c.id !== 'other').flatMap((c) => c.nameJa.split('・').map(normalizeText).filter((part) => isJapanese(part) && !(synonyms.get(part) ?? []).some((s) => !isJapanese(s))))
  t.same(uncovered, [])
  t.ok(synonyms.get('背景除去')?.includes('background removal'))
  t.ok(synonyms.get('郵便番号')?.includes('postcode'))
  t.ok(synonyms.get('ほんやく')?.includes('translation'))
})
