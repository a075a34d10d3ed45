import { test } from 'tap'
import { planQuery, segment } from '../src/search/query-plan.js'
import { boundedDistance, typoBudget, typosBetween } from '../src/search/typo.js'
import { Vocabulary } from '../src/search/vocabulary.js'

test("Meilisearch's typo budget", async (t) => {
  t.equal(typoBudget('smss'), 0, '1–4 characters: no typo')
  t.equal(typoBudget('wether'), 1, '5–8: one')
  t.equal(typoBudget('translatoin'), 2, '9+: two')
  t.equal(typoBudget('音声認識'), 0, 'characters, not bytes')
  t.equal(typosBetween('wether', 'weather'), 1)
  t.equal(typosBetween('waether', 'weather'), 1, 'a transposition is one typo')
  t.equal(typosBetween('xeather', 'weather'), undefined, 'a first-letter typo counts as two')
  t.equal(typosBetween('translashun', 'translation'), undefined, 'three edits is over budget')
  t.equal(typosBetween('trnslatoin', 'translation'), 2)
  t.equal(typosBetween('ranslation', 'translation'), 2, 'a dropped first letter costs two')
  t.equal(typosBetween('weather', 'weather'), undefined, 'no typo is not a typo match')
  t.equal(boundedDistance([...'abc'], [...'abcdef'], 1), 2, 'stops early past the bound')
})

test('vocabulary: prefixes by frequency, typo candidates within budget', async (t) => {
  const vocabulary = new Vocabulary([
    { term: 'screenshot', documents: 5 }, { term: 'screen', documents: 9 }, { term: 'scraping', documents: 3 },
    { term: 'weather', documents: 4 }, { term: 'whether', documents: 1 }, { term: 'feather', documents: 2 }
  ])
  t.same(vocabulary.prefixed('scre'), ['screen', 'screenshot'], 'most frequent first')
  t.same(vocabulary.prefixed('screen'), ['screenshot'], 'the word itself is not its own prefix match')
  t.same(vocabulary.withTypos('wether').map((c) => c.term), ['weather', 'whether'], 'same first letter only, for a one-typo word')
  t.same(vocabulary.withTypos('wthr'), [], 'short words get no typo candidates')
})

test('query planning: compounds, readings, synonyms and the prefix switch', async (t) => {
  const vocabulary = new Vocabulary(['天気', '予報', 'テンキ', 'ヨホウ', 'weather', 'forecast', 'screenshot', 'transcription', '音声', '認識'].map((term) => ({ term, documents: 1 })))
  t.same(segment('天気予報', vocabulary), ['天気', '予報'])
  t.same(segment('てんきよほう', vocabulary), ['てんき', 'よほう'], 'kana pieces meet katakana readings')
  t.same(segment('東京の天気', vocabulary), ['天気'], 'unknown names and particles are skipped')
  const synonyms = new Map([['天気', ['weather']], ['スクショ', ['screenshot']], ['音声認識', ['transcription']]])
  const compound = planQuery([{ text: '天気予報', forms: ['天気予報'] }], vocabulary, synonyms)
  t.same(compound.map((w) => w.text), ['天気', '予報'])
  t.match(compound[0]?.candidates, [{ term: '天気', kind: 'exact' }, { term: 'weather', kind: 'synonym' }])
  const slang = planQuery([{ text: 'スクショ', forms: ['スクショ'] }], vocabulary, synonyms)
  t.same(slang.map((w) => w.text), ['スクショ'], 'a word known through a synonym stays whole')
  t.ok(slang[0]?.candidates.some((c) => c.term === 'screenshot' && c.kind === 'synonym'))
  const split = planQuery([{ text: '音声認識', forms: ['音声認識'] }], vocabulary, synonyms)
  t.ok(split.every((w) => w.candidates.some((c) => c.term === 'transcription')), 'parts keep the synonyms of the whole word')
  const kanji = planQuery([{ text: '撮る', forms: ['撮る', '撮り', 'トリ'] }], vocabulary, synonyms, { prefixLastWord: false })
  t.notOk(kanji[0]?.candidates.some((c) => c.term === 'トリ'), 'a kanji word does not match homophones by reading')
  const prefixed = planQuery([{ text: 'screen', forms: ['screen'] }], vocabulary, synonyms)
  t.ok(prefixed[0]?.candidates.some((c) => c.kind === 'prefix' && c.term === 'screenshot'))
  const whole = planQuery([{ text: 'screen', forms: ['screen'] }], vocabulary, synonyms, { prefixLastWord: false })
  t.notOk(whole[0]?.candidates.some((c) => c.kind === 'prefix'), 'intent queries are whole words')
})

test('typo candidates equal a full scan of the vocabulary under the same rules', async (t) => {
  const terms = ['translation', 'ranslation', 'xtranslation', 'rtanslation', 'transaction', 'translations', 'weather', 'whether', 'feather', 'weathers', 'geocoding', 'eocoding', 'geocodinh', 'screenshot', 'screenshots', 'cscreenshot']
  const vocabulary = new Vocabulary(terms.map((term) => ({ term, documents: 1 })))
  for (const word of ['ztanslation', 'rtanslation', 'translatoin', 'ranslation', 'wether', 'xeather', 'egocoding', 'geocodnig', 'creenshot', 'sreenshots', 'weathr']) {
    const expected = terms.flatMap((term) => { const typos = typosBetween(word, term); return typos === undefined ? [] : [`${term}:${typos}`] }).sort()
    t.same(vocabulary.withTypos(word).map((c) => `${c.term}:${c.typos}`).sort(), expected, word)
  }
})
