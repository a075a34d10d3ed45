import fs, { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { test } from 'tap'
import { analyzeField, analyzeIntent, characterBigrams, splitQueryWords } from '../../../src/search/analysis/analyzer.js'
import { hiraganaToKatakana, isJapanese, katakanaSpelling, normalizeText, splitWords } from '../../../src/search/analysis/normalize.js'
import { buildTokenizer, compactFeatures, inflateDictionary, loadTokenizer, withoutPadding } from '../../../src/search/analysis/tokenizer.js'
import { LEXICON_PHRASES, loadSynonyms, SYNONYM_GROUPS, toMeilisearchSynonyms } from '../../../src/search/synonyms.js'
import type { DocumentTerm } from '../../../src/search/search-engine.js'

// One dictionary load for the whole file.
const tokenizer = await loadTokenizer()

const termsOf = (text: string): string[] => analyzeField(text, tokenizer).map((t) => t.term)
const TERM_SAFE = /^[^\s!-/:-@[-`{-~]+$/u

test('normalizeText folds width, case and spacing', async (t) => {
  t.equal(normalizeText('ｶﾀｶﾅ'), 'カタカナ')
  t.equal(normalizeText('ｶﾞｲﾄﾞ'), 'ガイド')
  t.equal(normalizeText('ＡＰＩ'), 'api')
  t.equal(normalizeText('  Weather\t\n ＡＰＩ　天気  '), 'weather api 天気')
})

test('text kuromoji cannot tokenize as such is analysed: NUL and controls as spaces, lone surrogates as U+FFFD', async (t) => {
  t.equal(normalizeText('天気\u0000予報\u0007api'), '天気 予報 api')
  t.equal(normalizeText('a\ud800b\udfffc 😀'), 'a\ufffdb\ufffdc 😀', 'paired surrogates stay')
  for (const text of ['\u0000', '天気\u0000予報', '\ud800天気', '天気\ud83d', 'x\ud83dy']) {
    t.doesNotThrow(() => analyzeIntent(text, tokenizer), JSON.stringify(text))
    t.doesNotThrow(() => analyzeField(text, tokenizer), JSON.stringify(text))
  }
  t.same(analyzeIntent('天気\u0000予報', tokenizer).tokens.map((w) => w.text), analyzeIntent('天気 予報', tokenizer).tokens.map((w) => w.text))
})

test('kana and script helpers', async (t) => {
  t.equal(hiraganaToKatakana('てんき API'), 'テンキ API')
  t.equal(katakanaSpelling('てんき'), 'テンキ')
  t.equal(katakanaSpelling('知る'), undefined)
  t.ok(isJapanese('天気'))
  t.ok(isJapanese('ひらがな'))
  t.ok(isJapanese('カタカナ api'))
  t.notOk(isJapanese('weather api'))
  t.same(splitWords('x402対応 gpt-4o、天気api'), ['x402', '対応', 'gpt', '4o', '天気', 'api'])
})

test('the tokenizer is loaded once and shared', async (t) => {
  const first = loadTokenizer()
  const second = loadTokenizer()
  t.equal(first, second)
  t.equal(await first, tokenizer)
})

test('a failed dictionary load is reported and retried on the next call', async (t) => {
  let reads = 0
  // An absolute URL: the mock resolves relative ones against the source-mapped test file, not this built one.
  const { loadTokenizer: load } = await t.mockImport<typeof import('../../../src/search/analysis/tokenizer.js')>(
    new URL('../../../src/search/analysis/tokenizer.js', import.meta.url).href,
  {
    'node:fs': {
      ...fs,
      readFile: (_file: string, done: (err: Error | null) => void) => {
        reads++
        setImmediate(() => { done(new Error('dictionary missing')) })
      },
      // No saved dictionary either (./dictionary-cache.ts reads it with readFileSync).
      readFileSync: () => { throw Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' }) },
    },
  }
  )
  await t.rejects(load(), /dictionary missing/)
  const before = reads
  await t.rejects(load(), /dictionary missing/)
  t.ok(before > 0 && reads > before, 'the second call reads the dictionary again')
})

test('a dictionary file inflates into a buffer of exactly its size', async (t) => {
  const bytes = Buffer.alloc(100_000)
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 251
  const inflated = inflateDictionary(gzipSync(bytes))
  t.equal(inflated.byteLength, bytes.length)
  t.ok(Buffer.from(inflated).equals(bytes))
  // kuromoji views some files as Int32Array/Int16Array: the length must be exact.
  t.equal(new Int32Array(inflated).length, 25_000)

  const tiny = Buffer.from('unk')
  t.ok(Buffer.from(inflateDictionary(gzipSync(tiny))).equals(tiny), 'files under 64 bytes')

  // A trailer announcing the wrong size is an error (gzip checks it), not a short dictionary.
  const lying = gzipSync(bytes)
  lying.writeUInt32LE(1000, lying.length - 4)
  t.throws(() => inflateDictionary(lying), 'a corrupt trailer fails the gzip check')

  t.throws(() => inflateDictionary(Buffer.from('not gzip at all')))
})

test('dictionary padding is dropped, keeping the data and a terminator', async (t) => {
  const padded = new Uint8Array(4096)
  padded.set([1, 2, 3, 0, 5], 0)
  const trimmed = new Uint8Array(withoutPadding(padded.buffer))
  t.equal(trimmed.length, 24, 'five data bytes, sixteen zeros kept, a multiple of 4')
  t.same([...trimmed.subarray(0, 5)], [1, 2, 3, 0, 5])
  t.ok(trimmed.subarray(5).every((b) => b === 0))
  const full = new Uint8Array(8).fill(9)
  t.equal(withoutPadding(full.buffer), full.buffer, 'nothing to drop: the same buffer, no copy')
  t.equal(withoutPadding(new ArrayBuffer(64)).byteLength, 16, 'all padding')
  const exact = new Uint8Array(withoutPadding(new Uint8Array([1, 2, 0, 3, 0, 0, 0, 0, 0, 0]).buffer, true))
  t.same([...exact], [1, 2, 0, 3, 0], 'exact: the data and one terminator')
})

test('the dictionary has char.def\'s eleven character classes, none read from padding', async (t) => {
  const invoke = (tokenizer as unknown as { viterbi_builder: { unknown_dictionary: { character_definition: { invoke_definition_map: { map: Array<{ class_name: string }> } } } } })
    .viterbi_builder.unknown_dictionary.character_definition.invoke_definition_map
  t.same(invoke.map.map((c) => c.class_name), ['DEFAULT', 'SPACE', 'KANJI', 'SYMBOL', 'NUMERIC', 'ALPHA', 'HIRAGANA', 'KATAKANA', 'KANJINUMERIC', 'GREEK', 'CYRILLIC'])
  // Unknown words are still grouped by their class.
  t.same(tokenizer.tokenize('абв😀ｱｲｳ').map((token) => [token.surface_form, token.word_type]), [['абв', 'UNKNOWN'], ['😀', 'UNKNOWN'], ['ｱｲｳ', 'UNKNOWN']])
})

test('dictionary features keep the fields the analyzer reads, and the word records follow them', async (t) => {
  const strings = ['外題,名詞,一般,*,*,*,*,外題,ゲダイ,ゲダイ', '書きさす,動詞,自立,*,*,五段・サ行,基本形,書きさす,カキサス,カキサス']
  const encoded = strings.map((text) => Buffer.from(`${text}\0`))
  const features = new Uint8Array(Buffer.concat(encoded))
  // Two 10-byte word records, the second word's first: left id, right id, cost, features offset.
  const records = new Uint8Array(20)
  const view = new DataView(records.buffer)
  view.setInt16(0, 7, true)
  view.setInt32(6, encoded[0]!.length, true)
  view.setInt32(16, 0, true)
  const compact = compactFeatures(records, features)
  const read = (offset: number): string => Buffer.from(compact.subarray(offset, compact.indexOf(0, offset))).toString()
  t.equal(read(view.getInt32(6, true)), '書きさす,動詞,自立,,,,,書きさす,カキサス,', 'ten fields, five of them emptied')
  t.equal(read(view.getInt32(16, true)), '外題,名詞,一般,,,,,外題,ゲダイ,')
  t.equal(view.getInt16(0, true), 7, 'the rest of a record is unchanged')
  t.ok(compact.length < features.length)
  const pointingInside = new Uint8Array(10)
  new DataView(pointingInside.buffer).setInt32(6, 3, true)
  t.throws(() => compactFeatures(pointingInside, new Uint8Array(Buffer.concat(encoded))), /points inside a features string/)

  // The loaded dictionary: the analyzer's fields are there, the others empty.
  const [token] = tokenizer.tokenize('外題')
  t.match(token, { surface_form: '外題', pos: '名詞', pos_detail_1: '一般', basic_form: '外題', reading: 'ゲダイ', pronunciation: '' })
})

test('a dictionary whose word records do not fit its features fails the load with its reason', async (t) => {
  const installed = path.join(path.dirname(createRequire(import.meta.url).resolve('kuromoji/package.json')), 'dict')
  const broken = mkdtempSync(path.join(tmpdir(), 'dict-'))
  t.teardown(() => rmSync(broken, { recursive: true, force: true }))
  for (const file of readdirSync(installed)) copyFileSync(path.join(installed, file), path.join(broken, file))
  const records = gunzipSync(readFileSync(path.join(installed, 'tid.dat.gz')))
  records.writeInt32LE(3, 6)
  writeFileSync(path.join(broken, 'tid.dat.gz'), gzipSync(records))
  const loaded = new Promise((resolve, reject) => { buildTokenizer(broken, (err, built) => { if (err !== null) reject(err); else resolve(built) }) })
  await t.rejects(loaded, /word record 0 points inside a features string/, 'rejected, not thrown out of the loader\'s callbacks')
})

test('English fields split into words, one position each', async (t) => {
  t.same(analyzeField('Weather forecast API, 7-day!', tokenizer), [
    { term: 'weather', position: 0 },
    { term: 'forecast', position: 1 },
    { term: 'api', position: 2 },
    { term: '7', position: 3 },
    { term: 'day', position: 4 },
  ])
})

test('天気 is indexed with its reading, so a hiragana query meets it', async (t) => {
  const indexed = analyzeField('天気', tokenizer)
  t.same(indexed, [{ term: '天気', position: 0 }, { term: 'テンキ', position: 0 }])

  const [word] = splitQueryWords('てんき')
  t.same({ text: word!.text, forms: word!.forms }, { text: 'てんき', forms: ['てんき', 'テンキ'] })
  t.ok(word!.expansions?.every((e) => e.kind === 'slip' && e.typos === 1), 'slips (でんき) only as expansions, at one typo')
  t.ok(word!.forms.some((form) => indexed.some((i) => i.term === form)))

  // A hiragana spelling in the text is indexed in katakana too.
  t.ok(termsOf('てんきを調べる').includes('テンキ'))
})

test('particles and auxiliaries are not indexed; inflected words add their dictionary form', async (t) => {
  const indexed = analyzeField('天気を知りたい', tokenizer)
  const terms = indexed.map((i) => i.term)
  t.notOk(terms.includes('を'))
  t.notOk(terms.includes('たい'))
  t.ok(terms.includes('知る'))
  t.same(
    indexed.filter((i) => i.term === '天気' || i.term === '知る'),
    [{ term: '天気', position: 0 }, { term: '知る', position: 1 }]
  )
})

test('long kanji/katakana runs also yield every character bigram', async (t) => {
  const indexed = analyzeField('リアルタイム音声認識API', tokenizer)
  const terms = indexed.map((i) => i.term)
  for (const term of ['リアルタイム', '音声', '認識', '声認', 'ム音', 'api']) t.ok(terms.includes(term), term)
  // A bigram sits at the position of the token holding its first character.
  t.ok(indexed.some((i) => i.term === '声認' && i.position === 1))
  t.ok(indexed.some((i) => i.term === 'ム音' && i.position === 0))
  // Two-character runs are left to kuromoji.
  t.notOk(termsOf('天気のapi').includes('気の'))
  t.same(characterBigrams('音声認識'), ['音声', '声認', '認識'])
  t.same(characterBigrams('天気'), [])
  // A bigram starting in a dropped particle (迄 = まで) goes to the nearest kept token.
  t.ok(analyzeField('天気迄予報', tokenizer).some((i) => i.term === '迄予' && i.position === 0))
  t.ok(analyzeField('迄天気予報', tokenizer).some((i) => i.term === '迄天' && i.position === 0))
  // An unknown astral kanji (tagged 記号 by kuromoji) still counts as a word.
  t.same(termsOf('𠮷野家の天気').filter((term) => term.startsWith('𠮷')), ['𠮷', '𠮷野'])
})

test('words in other scripts inside Japanese text stay whole and lowercased', async (t) => {
  const terms = termsOf('PDFを画像に変換するx402対応のGPT-4o API。天気はcafé')
  for (const term of ['pdf', 'x402', 'gpt', '4o', 'api', 'café', '画像', '変換']) t.ok(terms.includes(term), term)
  t.notOk(terms.includes('x'))
  t.notOk(terms.includes('402'))
})

test('indexed terms are space- and punctuation-free and unique per position', async (t) => {
  const indexed = analyzeField('「東京」の天気・予報 (ﾘｱﾙﾀｲﾑ) を e-mail & SMS で！ 東京 東京', tokenizer)
  t.ok(indexed.length > 0)
  // A lexicon phrase is one term with spaces (e-mail → "e mail"); nothing else has any.
  for (const { term } of indexed) t.ok(TERM_SAFE.test(term) || LEXICON_PHRASES.has(term), term)
  const keys = indexed.map((i) => `${i.position}:${i.term}`)
  t.equal(new Set(keys).size, keys.length)
  // Positions follow sentence punctuation correctly.
  const later = analyzeField('ニュースを読む。天気。', tokenizer)
  t.ok(later.some((i) => i.term === '天気' && i.position === 2))
})

test('splitQueryWords does no morphology', async (t) => {
  t.same(splitQueryWords('天気予報 api'), [
    { text: '天気予報', forms: ['天気予報'] },
  ], 'what every listing is (api) is left out next to other words')
  t.same(splitQueryWords('api'), [{ text: 'api', forms: ['api'] }], 'and kept alone')
  t.same(
    splitQueryWords('ＷＥＡＴＨＥＲ, gpt-4o/てんき てんき').map((w) => w.text),
    ['weather', 'gpt', '4o', 'てんき']
  )
  t.same(splitQueryWords(' !? '), [])
})

test('splitQueryWords gives a repeated word the same analysis, which no caller can change for later searches', async (t) => {
  const [first] = splitQueryWords('tenki')
  t.ok((first?.expansions ?? []).length > 0, 'a romaji word has readings')
  const [again] = splitQueryWords('weather tenki').slice(1)
  t.same(again, first)
  t.throws(() => { (again?.forms as string[]).push('x') }, TypeError)
  t.throws(() => { (again?.expansions?.[0]?.forms as string[]).push('x') }, TypeError)
  t.throws(() => { (again as { text: string }).text = 'x' }, TypeError)
  t.same(splitQueryWords('tenki'), [first], 'later searches see the analysis unchanged')
  const reading = (q: string): string | undefined => splitQueryWords(q)[0]?.expansions?.find((expansion) => expansion.typos === 0)?.forms[0]
  t.equal(reading('honyaku'), 'ほにゃく')
  t.equal(reading("hon'yaku"), 'ほんやく', "the same word written with n' is read as written, not as the one kept")
})

test('analyzeIntent keeps what an English request is about', async (t) => {
  t.same(analyzeIntent('I want to find a weather API please', tokenizer), {
    tokens: [{ text: 'weather', forms: ['weather'] }],
    language: 'en',
  })
  t.same(
    analyzeIntent("I'm looking for an OCR service that can read receipts", tokenizer).tokens.map((w) => w.text),
    ['ocr', 'read', 'receipts']
  )
})

test('analyzeIntent keeps what a Japanese request is about', async (t) => {
  const intent = analyzeIntent('東京の天気予報を教えてください', tokenizer)
  t.equal(intent.language, 'ja')
  const texts = intent.tokens.map((w) => w.text)
  t.ok(texts.includes('東京'))
  t.ok(texts.includes('天気') || texts.includes('天気予報'))
  t.ok(texts.includes('予報') || texts.includes('天気予報'))
  for (const dropped of ['の', 'を', '教える', '教え', 'ください', 'くださる', 'て']) t.notOk(texts.includes(dropped), dropped)
  t.same(intent.tokens.find((w) => w.text === '天気')?.forms, ['天気', 'テンキ'])

  t.same(
    analyzeIntent('おすすめの為替レートAPIを使いたい', tokenizer).tokens.map((w) => w.text),
    ['為替', 'レート']
  )
  t.same(analyzeIntent('翻訳用の日本語apiはありますか', tokenizer).tokens.map((w) => w.text), ['翻訳', '日本語'])
})

test('analyzeIntent falls back to request words rather than nothing', async (t) => {
  const sagasu = analyzeIntent('探して', tokenizer)
  t.same(sagasu.tokens.map((w) => w.text), ['探す'])
  t.ok(sagasu.tokens[0]!.forms.includes('探し'))
  t.same(analyzeIntent('please', tokenizer).tokens.map((w) => w.text), ['please'])
  t.same(analyzeIntent('!!! ？', tokenizer), { tokens: [], language: 'en' })
  t.same(analyzeIntent('', tokenizer), { tokens: [], language: 'en' })
})

test('synonyms are normalized, symmetric and exported for Meilisearch', async (t) => {
  t.ok(SYNONYM_GROUPS.length >= 30)
  const unnormalized = SYNONYM_GROUPS.flat().filter((entry) => entry !== normalizeText(entry))
  t.same(unnormalized, [])

  const synonyms = loadSynonyms()
  t.ok(synonyms.get('weather')?.includes('天気'))
  t.ok(synonyms.get('天気')?.includes('weather'))
  // Readings join their concept: a hiragana (or romaji) query finds the English word.
  t.ok(synonyms.get('てんき')?.includes('weather'))
  const asymmetric: string[] = []
  // Symmetric between entries, a multi-word one as its phrase term.
  const together = (a: string, b: string): boolean => SYNONYM_GROUPS.some((group) => group.includes(a) && group.includes(b))
  for (const [term, others] of synonyms) {
    if (others.includes(term)) asymmetric.push(`${term} → itself`)
    for (const other of others) if (together(term, other) && !synonyms.get(other)?.includes(term)) asymmetric.push(`${other} → ${term} missing`)
  }
  t.same(asymmetric, [])
  // Multi-word entries are whole phrase terms (the analyzer indexes them so), never their words alone.
  t.ok(synonyms.get('exchange rate')?.includes('為替'), 'a query\'s words in a row form a phrase')
  t.ok(synonyms.get('為替')?.includes('exchange rate'), 'whole')
  t.notOk(synonyms.get('為替')?.includes('rate'), 'never a word of it alone')
  t.notOk(synonyms.get('stock')?.includes('price'), 'stock price does not make price a stock')
  t.ok(synonyms.get('背景除去')?.includes('background removal'))
  t.ok(synonyms.get('音声合成')?.includes('text to speech'), 'a hyphenated entry as its words (text-to-speech)')

  const meili = toMeilisearchSynonyms()
  t.ok(meili['exchange rate']?.includes('為替'))
  t.ok(meili['為替']?.includes('exchange rate'))
  t.notOk(meili['weather']?.includes('weather'))
})

test('the lexicon\'s entries of several words are indexed whole where a text has their words in a row', async (t) => {
  const english = analyzeField('Identity verification and postal codes, not a rate or a stock.', tokenizer)
  t.ok(english.some((term) => term.term === 'identity verification' && term.position === 0), 'at its first word')
  t.ok(english.some((term) => term.term === 'postal code'), 'a plural last word too')
  t.notOk(english.some((term) => term.term === 'exchange rate'), 'not from words apart')
  const japanese = termsOf('OCRで文字認識、Speech to Text APIで音声認識')
  t.ok(japanese.includes('文字認識'), 'a Japanese entry kuromoji split')
  t.ok(japanese.includes('speech to text'), 'an English phrase inside Japanese text')
  t.notOk(termsOf('インボイスを発行').includes('ボイス'), 'never a piece of one word')
})

test('a kana word kuromoji splits is also indexed whole, in katakana, so either script meets it', async (t) => {
  const terms = (text: string): DocumentTerm[] => analyzeField(text, tokenizer)
  const split = terms('コトバンク辞書')
  t.ok(split.some((term) => term.term === 'コトバンク' && term.position === 0), 'コトバンク whole at its first word: ことばんく meets it')
  t.ok(terms('はこぶね配送').some((term) => term.term === 'ハコブネ' && term.position === 0), 'a hiragana name, in katakana: ハコブネ meets it')
  t.notOk(terms('レビューのさくら度を判定').some((term) => term.term === 'ノサクラ'), 'a run that starts with a particle is grammar')
  t.notOk(terms('天気を知らせる').some((term) => term.term === 'ラセル' || term.term === 'ヲシラセル'), 'nor the kana ending of a word')
  const long = 'とてもながいひらがなだけのぶんしょうです'
  t.notOk(terms(long).some((term) => term.term === hiraganaToKatakana(long)), 'a run longer than a name is a sentence')
})
