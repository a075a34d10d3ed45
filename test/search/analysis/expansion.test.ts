import { test } from 'tap'
import { analyzeIntent, splitQueryWords } from '../../../src/search/analysis/analyzer.js'
import { romajiReadings, slipVariants } from '../../../src/search/analysis/expansion.js'
import { loadTokenizer } from '../../../src/search/analysis/tokenizer.js'

const tokenizer = await loadTokenizer()
const expansionsOf = (q: string): Array<[string, number]> =>
  (splitQueryWords(q)[0]?.expansions ?? []).map((e) => [e.forms[0] as string, e.typos])

test('romaji reads as kana: Hepburn, kunrei, long vowels, n\', doubled consonants', async (t) => {
  t.same(romajiReadings('tenki'), ['てんき'])
  t.same(romajiReadings('yohou'), ['よほう'])
  t.same(romajiReadings('yohoo'), ['よほお', 'よほう', 'よほー'], 'oo is also read as ou, and as the loanword ー')
  t.same(romajiReadings('yohō'), ['よほう'], 'a macron is a long vowel')
  t.same(romajiReadings('syasin'), ['しゃしん'], 'kunrei')
  t.same(romajiReadings('shashin'), ['しゃしん'], 'Hepburn')
  t.same(romajiReadings('kippu'), ['きっぷ'], 'doubled consonant')
  t.same(romajiReadings('shimbun'), ['しんぶん'], 'm before b')
  t.same(romajiReadings('matcha'), ['まっちゃ'], 'tch')
  t.same(romajiReadings('nyuusu'), ['にゅうす', 'にゅーす'], 'a doubled vowel is also the loanword ー')
  t.same(expansionsOf("hon'yaku")[0], ['ほんやく', 0], "n' before a vowel is ん")
  t.same(splitQueryWords("hon'yaku").map((w) => w.text), ['honyaku'], 'the apostrophe does not split the word')
})

test('English words are not read as romaji', async (t) => {
  for (const word of ['data', 'image', 'hash', 'api', 'search', 'weather', 'please', 'test', 'line', 'cloud']) {
    t.same(splitQueryWords(word)[0]?.expansions, undefined, word)
  }
  t.same(romajiReadings('xa'), [], 'too short')
  t.same(romajiReadings('clova'), [], 'letters romaji does not use')
})

test('small-kana and voiced-mark slips cost one typo', async (t) => {
  t.ok(slipVariants('ほにゃく').includes('ほんやく'), 'にゃ read as ん + や')
  t.ok(slipVariants('ばす').includes('ぱす'), 'voiced ↔ semi-voiced')
  t.ok(slipVariants('きつぷ').includes('きっぷ'), 'large ↔ small kana')
  t.notOk(slipVariants('やま').some((v) => v.startsWith('ゃ')), 'no word starts with a small kana')
  t.same(expansionsOf('ほにゃく')[0], ['ほんやく', 1])
  t.ok(splitQueryWords('ばす')[0]?.expansions?.some((e) => e.kind === 'slip' && e.forms.includes('パス') && e.typos === 1), 'ばす → パス')
  // A word typed in romaji has no kana slips, only the n' a writer may leave out.
  t.same(expansionsOf('honyaku'), [['ほにゃく', 0], ['ほんやく', 1]])
  t.same(expansionsOf('tenki'), [['てんき', 0]])
})

test('intent queries expand their Latin words too', async (t) => {
  const words = analyzeIntent('I need tenki yohou please', tokenizer).tokens
  t.same(words.map((w) => [w.text, w.expansions?.[0]?.forms[0]]), [['tenki', 'てんき'], ['yohou', 'よほう']])
})
