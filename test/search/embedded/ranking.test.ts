import { test } from 'tap'
import { toSearchDocument } from '../../../indexer/search-document.js'
import { readSeedFile, seedRecords } from '../../../src/domain/seed.js'
import { splitQueryWords } from '../../../src/search/analysis/analyzer.js'
import { loadTokenizer } from '../../../src/search/analysis/tokenizer.js'
import { EmbeddedSearchEngine } from '../../../src/search/embedded/engine.js'
import { tempDataDir } from '../../support/basics.js'
import { prng } from '../../../bench/generate.js'
import { PlanCache, planQuery, segment } from '../../../src/search/embedded/ranking/query-plan.js'
import { explainMatch } from '../../../src/search/reason.js'
import type { MatchedToken } from '../../../src/search/search-engine.js'
import { boundedDistance, MATCH_EXACTNESS, typoBudget, typosBetween } from '../../../src/search/match-rules.js'
import { sameStartTypos } from '../../../src/search/embedded/index/typo.js'
import { Vocabulary } from '../../../src/search/embedded/index/vocabulary.js'

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

test('vocabulary: the other forms of an English word are the index words of its stem, most frequent first', async (t) => {
  const vocabulary = new Vocabulary(['analyze', 'analysis', 'analytics', 'analyst', 'generator', 'generated', 'general', 'news', 'new', 'validator', 'valid']
    .map((term, i) => ({ term, documents: 20 - i })))
  t.same(vocabulary.otherForms('analysis'), ['analyze', 'analytics'], 'the -ysis, -yze and -ytic family is one word; analyst is not')
  t.same(vocabulary.otherForms('analyzing'), ['analyze', 'analysis', 'analytics'], 'a form the index does not hold finds those it does')
  t.same(vocabulary.otherForms('generation'), ['generator', 'generated'], 'general is another word (Porter2)')
  t.same(vocabulary.otherForms('newsletter'), [])
  t.same(vocabulary.otherForms('news'), [], 'news is not a form of new')
  t.same(vocabulary.otherForms('validation'), ['validator', 'valid'])
  t.same(vocabulary.otherForms('天気'), [], 'Japanese words have no stem')
  vocabulary.add('analyzer')
  t.same(vocabulary.otherForms('analysis').at(-1), 'analyzer', 'a word added later joins its stem')
  const synonyms = new Map([['generation', ['生成']], ['generator', ['生成']]])
  const plan = planQuery([{ text: 'generation', forms: ['generation'] }], vocabulary, synonyms, { prefixLastWord: false })
  t.match(plan[0]?.candidates, [{ term: 'generation', kind: 'exact' }, { term: 'generator', kind: 'wordForm' }, { term: 'generated', kind: 'wordForm' }, { term: '生成', kind: 'synonym' }], 'forms rank as wordForm, before translations')
  t.ok(MATCH_EXACTNESS.wordForm > MATCH_EXACTNESS.exact, 'below the word itself')
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

test('the plan cache: a cached plan equals a fresh one, follows every change of the vocabulary, and stays within its bytes', async (t) => {
  const random = prng(41)
  const letters = 'aeiorstw'
  const wordOf = (): string => Array.from({ length: 3 + Math.floor(random() * 6) }, () => letters[Math.floor(random() * letters.length)]).join('')
  const vocabulary = new Vocabulary(Array.from({ length: 400 }, () => ({ term: wordOf(), documents: 1 + Math.floor(random() * 9) })))
  const synonyms = new Map([['water', ['aqua']]])
  const cache = new PlanCache(16 * 1024)
  let checked = 0
  let largest = 0
  for (let q = 0; q < 600; q++) {
    // A few words repeat, as common words do; the vocabulary grows (new terms, more documents) in between.
    if (random() < 0.1) vocabulary.add(random() < 0.5 ? wordOf() : 'water' + 's'.repeat(Math.floor(random() * 3)), 1 + Math.floor(random() * 20))
    const words = Array.from({ length: 1 + Math.floor(random() * 3) }, () => (random() < 0.6 ? ['water', 'stairs', 'sort'][Math.floor(random() * 3)] as string : wordOf())).map((text) => ({ text, forms: [text] }))
    const options = { prefixLastWord: random() < 0.5 }
    const cached = planQuery(words, vocabulary, synonyms, options, cache)
    largest = Math.max(largest, cache.bytes)
    if (JSON.stringify(cached) !== JSON.stringify(planQuery(words, vocabulary, synonyms, options))) t.fail(`query ${q}: ${JSON.stringify(words.map((w) => w.text))} planned differently from cache`)
    else checked++
  }
  t.equal(checked, 600, 'every plan equal to a fresh one')
  t.ok(cache.hits > 300, `words were answered from the cache (${cache.hits} hits, ${cache.misses} misses)`)
  t.ok(largest > 8 * 1024 && largest <= 16 * 1024, `within its bytes (at most ${largest})`)
  // A new term within one typo of a cached word is a candidate at once.
  planQuery([{ text: 'stairs', forms: ['stairs'] }], vocabulary, synonyms, { prefixLastWord: false }, cache)
  vocabulary.add('stairx', 1)
  t.ok(planQuery([{ text: 'stairs', forms: ['stairs'] }], vocabulary, synonyms, { prefixLastWord: false }, cache)[0]?.candidates.some((c) => c.term === 'stairx' && c.kind === 'typo'))
  // Another copy of the index, its vocabulary at the same version: planned from it, not from the cache.
  const other = new Vocabulary([{ term: 'stairz', documents: 1 }])
  for (let i = other.version; i < vocabulary.version; i++) other.add('stairz', 0)
  t.equal(other.version, vocabulary.version)
  t.same(planQuery([{ text: 'stairs', forms: ['stairs'] }], other, synonyms, { prefixLastWord: false }, cache)[0]?.candidates.map((c) => c.term), ['stairs', 'stairz'])
  cache.clear()
  t.equal(cache.size, 0, 'cleared when a new copy of the index loads')
})

test('typo candidates equal a full scan of the vocabulary under the same rules', async (t) => {
  const terms = ['translation', 'ranslation', 'xtranslation', 'rtanslation', 'transaction', 'translations', 'weather', 'whether', 'feather', 'weathers', 'geocoding', 'eocoding', 'geocodinh', 'screenshot', 'screenshots', 'cscreenshot']
  const vocabulary = new Vocabulary(terms.map((term) => ({ term, documents: 1 })))
  for (const word of ['ztanslation', 'rtanslation', 'translatoin', 'ranslation', 'wether', 'xeather', 'egocoding', 'geocodnig', 'creenshot', 'sreenshots', 'weathr']) {
    const expected = terms.flatMap((term) => { const typos = typosBetween(word, term); return typos === undefined ? [] : [`${term}:${typos}`] }).sort()
    t.same(vocabulary.withTypos(word).map((c) => `${c.term}:${c.typos}`).sort(), expected, word)
  }
})

test('typo candidates equal a full scan over a large random vocabulary (letter-set pruning loses nothing)', async (t) => {
  const random = prng(42)
  // A small alphabet so that many terms are within one or two edits of each other; a few with
  // characters whose codes collide mod 32, and a few with surrogate pairs.
  const alphabet = [...'abcdeé@`', '😀']
  const wordOf = (length: number): string => Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)] as string).join('')
  const terms = [...new Set(Array.from({ length: 3000 }, () => wordOf(4 + Math.floor(random() * 8))))]
  const vocabulary = new Vocabulary(terms.map((term) => ({ term, documents: 1 })))
  let compared = 0
  for (let q = 0; q < 300; q++) {
    const base = [...(terms[Math.floor(random() * terms.length)] as string)]
    for (let edits = Math.floor(random() * 3); edits > 0; edits--) base.splice(1 + Math.floor(random() * (base.length - 1)), random() < 0.5 ? 1 : 0, ...(random() < 0.7 ? [alphabet[Math.floor(random() * alphabet.length)] as string] : []))
    const word = base.join('')
    const expected = terms.flatMap((term) => { const typos = typosBetween(word, term); return typos === undefined ? [] : [{ term, typos }] })
    const got = vocabulary.withTypos(word)
    // Past 20 candidates the list is cut by typos then frequency (all equal here): compare what fits.
    if (expected.length > 20) continue
    compared++
    t.same(got.map((c) => `${c.term}:${c.typos}`).sort(), expected.map((c) => `${c.term}:${c.typos}`).sort(), word)
  }
  t.ok(compared > 100, `compared ${compared} words`)
})

test('reasons name the word, the attribute and how it matched, in the query language', async (t) => {
  const match = (kind: MatchedToken['kind'], typos = 0): MatchedToken => ({ word: 'wether', term: 'weather', attribute: 'description', kind, typos })
  const cases: Array<[MatchedToken['kind'], number, RegExp, RegExp]> = [
    ['exact', 0, /^「wether」が説明に一致。$/, /^"wether" is in the description\.$/],
    ['alternative', 0, /読み/, /reading "weather"/],
    ['wordForm', 0, /語形変化/, /"weather", another form of the word/],
    ['synonym', 0, /同義語「weather」/, /"weather", a synonym of "wether"/],
    ['prefix', 0, /前方一致/, /starts "weather"/],
    ['fragment', 0, /部分一致/, /part of "weather"/],
    ['typo', 1, /1文字違い/, /\(1 typo\)/],
    ['typo', 2, /2文字違い/, /\(2 typos\)/]
  ]
  for (const [kind, typos, ja, en] of cases) {
    t.match(explainMatch([match(kind, typos)], 'ja'), ja, `${kind} in Japanese`)
    t.match(explainMatch([match(kind, typos)], 'en'), en, `${kind} in English`)
  }
  t.equal(explainMatch([match('exact'), { ...match('exact'), word: 'forcast', attribute: 'name' }], 'en'), '"wether" is in the description; "forcast" is in the name.')
  t.equal(explainMatch([], 'ja'), '一致した語はありません。')
  t.equal(explainMatch([], 'en'), 'No words matched.')
})

test('the allocation-free typo count agrees with the reference one', async (t) => {
  const words = ['weather', 'wether', 'weathr', 'waether', 'translation', 'translatoin', 'trnslatoin', 'transaltion', 'geocoding', 'geocodnig', 'テンキヨホウ', 'テンキヨホ', '𠮷野家の牛丼', '𠮷野家牛丼', 'screenshots', 'screenshot', 'scre']
  for (const word of words) {
    for (const term of words) {
      if ([...word][0] !== [...term][0]) continue
      t.equal(sameStartTypos(word, term), typosBetween(word, term), `${word} → ${term}`)
    }
  }
})

test('a service whose only link to the query is its category ranks below every service whose name or description matches', async (t) => {
  const engine = new EmbeddedSearchEngine(tempDataDir(t))
  t.teardown(() => engine.close())
  const base = readSeedFile('demo')[0] as ReturnType<typeof readSeedFile>[number]
  const entry = (slug: string, category: string, name: string, description: string): typeof base =>
    ({ ...base, category, name, description, endpoint: `${base.endpoint}/${slug}` })
  const records = seedRecords([
    // Both query words, but only through the category's name (Weather & Climate).
    entry('sky', 'weather', 'Sky Cast', 'Shows the clouds over a city.'),
    entry('sky2', 'weather', 'Cloud Board', 'Rain radar tiles.'),
    // One word, with a typo, at the end of the description, in another category.
    entry('bond', 'finance', 'Bond Prices', 'Yields of government bonds, not the wether.'),
    // One word in the name.
    entry('climate', 'finance', 'Climate Risk Index', 'Scores portfolios.')
  ], new Date().toISOString())
  const tokenizer = await loadTokenizer()
  await engine.apply(records.map((record, i) => toSearchDocument(record, i + 1, tokenizer)), records.length)
  const result = await engine.search({ words: splitQueryWords('weather climate'), filter: {}, page: { limit: 10, offset: 0 }, prefixLastWord: false })
  const names = new Map(records.map((r) => [r.id, r.name]))
  const order = result.hits.map((hit) => names.get(hit.id))
  t.same(order.slice(0, 2).sort(), ['Bond Prices', 'Climate Risk Index'], 'text matches first, even with fewer words and a typo')
  t.same(order.slice(2).sort(), ['Cloud Board', 'Sky Cast'], 'category-only matches last')
  t.ok(result.hits.every((hit, i) => i === 0 || (result.hits[i - 1]?.score as number) >= hit.score), 'scores descend with the tiers')
  t.ok((result.hits[1]?.score as number) > (result.hits[2]?.score as number), 'the tiers have different scores')
})
