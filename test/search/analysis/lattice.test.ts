import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import kuromoji from 'kuromoji'
import { test } from 'tap'
import { generateServices } from '../../../bench/generate.js'
import { queryStream, QUERY_KINDS } from '../../../bench/queries.js'
import { DEMO_FIXTURES } from '../../../src/domain/seed.js'
import { compactTargetMap } from '../../../src/search/analysis/lattice.js'
import { normalizeText } from '../../../src/search/analysis/normalize.js'
import { loadTokenizer, type JapaneseTokenizer } from '../../../src/search/analysis/tokenizer.js'
import { relevanceCases } from '../relevance-cases.js'

const require = createRequire(import.meta.url)
const dicPath = path.join(path.dirname(require.resolve('kuromoji/package.json')), 'dict')
const TokenInfoDictionary = require('kuromoji/src/dict/TokenInfoDictionary.js') as new () => {
  target_map: Record<string, number[]>
  loadTargetMap: (buffer: Uint8Array) => unknown
}

// Ours (compact target map, linear lattice) and a stock kuromoji built the documented way.
const ours = await loadTokenizer()
const stock = await new Promise<JapaneseTokenizer>((resolve, reject) => {
  kuromoji.builder({ dicPath }).build((err, tokenizer) => { if (err !== null) reject(err); else resolve(tokenizer) })
})

type LatticeTokenizer = JapaneseTokenizer & { getLattice: (text: string) => unknown }
type Token = ReturnType<JapaneseTokenizer['tokenize']>[number]

/** Feature fields ours leaves empty in dictionary words (compactFeatures): the analyzer never reads them. */
const DROPPED = ['pos_detail_2', 'pos_detail_3', 'conjugated_type', 'conjugated_form', 'pronunciation'] as const
/** Stock tokens as ours gives them: dictionary words without the dropped fields, unknown words whole. */
const asOurs = (tokens: Token[]): Token[] => tokens.map((token) => (token.word_type === 'KNOWN' ? { ...token, ...Object.fromEntries(DROPPED.map((field) => [field, ''])) } : token))

function corpus (): string[] {
  const texts: string[] = []
  for (const entry of generateServices(1500, 3)) texts.push(entry.name, entry.description, `${entry.name}。${entry.description} ${entry.endpoint} ${entry.category}`)
  const fixtures = JSON.parse(readFileSync(DEMO_FIXTURES, 'utf8')) as Array<{ name: string, description: string }>
  for (const service of fixtures) texts.push(service.name, service.description)
  for (const { q } of relevanceCases) texts.push(q)
  const stream = queryStream(generateServices(800, 7), 40, 5)
  for (const kind of QUERY_KINDS) texts.push(...(stream.get(kind) ?? []))
  texts.push(
    // Unknown words, katakana and kanji compounds, readings kuromoji has to guess.
    'ポケモンゲットだぜ！ピカチュウとリザードンが進化した',
    'シャチョーサンがクラウドネイティブなマイクロサービスアーキテクチャをデプロイ',
    '東京特許許可局長今日急遽休暇許可拒否',
    '量子暗号鍵配送装置試験運用開始予定日未定',
    'すもももももももものうち',
    'にわにはにわにわとりがいる',
    'ｶﾀｶﾅとﾊﾝｶｸ、ＡＳＣＩＩ　ＦＵＬＬＷＩＤＴＨ　１２３４５',
    // Digits, ASCII, symbols and mixed scripts.
    'x402対応の天気API v2.1、料金は0.001 USDC/リクエスト (Base mainnet)',
    'GPT-4oで画像を解析→JSONで返す。レート制限: 100 req/s!!',
    'email: support@example.com, url: https://api.example.jp/v1/weather?q=東京&lang=ja',
    '1234567890 12.5% ¥1,000 $3.99 ２０２４年１２月３１日',
    'The quick brown fox jumps over the lazy dog while the weather API returns sunny skies',
    'ÀÉÎÕÜ ñ ß Ωμέγα Привет мир 안녕하세요 مرحبا नमस्ते ไทย',
    '、。、。。、', '', ' ', '\t\n', 'a', '天', 'ー', 'ーーー', '々', '〆切', '天\u3099気',
    // Surrogate pairs (emoji, rare kanji), and a lone low surrogate.
    '🌤️天気予報API🌧️ 雨雲レーダー☔', '𠮷野家で𩸽を食べた👍🏽', '👨‍👩‍👧‍👦家族向け', 'テスト😀😀😀テスト', '😀', '天気\udc00です',
    // Long sentences (no 。 to split on): kuromoji's lattice is built over the whole run.
    'リアルタイム音声認識と翻訳と要約と感情分析と画像認識'.repeat(40),
    'weather forecast api for developers with hourly data '.repeat(30),
    '天気 weather 予報 forecast 123 '.repeat(50),
    // Long runs of one character class (grouped into one unknown word).
    'スーパーカリフラジリスティックエクスピアリドーシャスエクストラロングカタカナ語', 'x'.repeat(300), '7'.repeat(120) + 'kg', 'ー'.repeat(40)
  )
  return [...texts, ...texts.map(normalizeText)]
}

test('tokens are the same as a stock kuromoji tokenizer\'s in every field the analyzer reads, for every text of a varied corpus', async (t) => {
  const texts = corpus()
  let tokens = 0
  const different: string[] = []
  for (const text of texts) {
    const expected = asOurs(stock.tokenize(text))
    const actual = ours.tokenize(text)
    tokens += expected.length
    if (JSON.stringify(actual) !== JSON.stringify(expected)) different.push(text)
  }
  t.same(different, [], 'no text tokenizes differently')
  t.ok(texts.length > 7000 && tokens > 100_000, `${texts.length} texts, ${tokens} tokens compared`)
  // Deep equality of whole token arrays, objects and all, for a sample.
  for (const text of texts.filter((_, i) => i % 97 === 0)) t.strictSame(ours.tokenize(text), asOurs(stock.tokenize(text)), text.slice(0, 40))
})

test('the lattice is kuromoji\'s, node for node', async (t) => {
  const lattice = (tokenizer: JapaneseTokenizer, text: string): unknown => (tokenizer as LatticeTokenizer).getLattice(text)
  for (const text of ['東京都庁でシステム開発の打ち合わせ', 'ｶﾀｶﾅ x402 API 🌤️ 天気', 'abc123 def', '天気\udc00です']) {
    t.strictSame(lattice(ours, text), lattice(stock, text), text)
  }
})

test('what kuromoji cannot tokenize fails in ours too, rather than giving other tokens', async (t) => {
  // A lone high surrogate (doublearray cannot encode it) and NUL (its trie's terminal code).
  for (const text of ['天気\ud800です', '天気\u0000です', '\u0000']) {
    t.throws(() => stock.tokenize(text))
    t.throws(() => ours.tokenize(text))
  }
})

test('the compact target map holds what kuromoji\'s loadTargetMap builds from the dictionary', async (t) => {
  const bytes = new Uint8Array(gunzipSync(readFileSync(path.join(dicPath, 'tid_map.dat.gz'))))
  const dictionary = new TokenInfoDictionary()
  dictionary.loadTargetMap(bytes)
  const { offsets, ids } = compactTargetMap(bytes)
  const keys = Object.keys(dictionary.target_map).map(Number)
  t.equal(offsets.length - 1, keys.reduce((max, key) => Math.max(max, key), -1) + 1)
  let mismatches = 0
  let entries = 0
  for (let key = 0; key < offsets.length - 1; key++) {
    const expected = dictionary.target_map[key] ?? []
    const actual = Array.from(ids.subarray(offsets[key], offsets[key + 1]))
    entries += actual.length
    if (JSON.stringify(actual) !== JSON.stringify(expected)) mismatches++
  }
  t.equal(mismatches, 0)
  t.equal(entries, ids.length)
  t.ok(ids.byteLength + offsets.byteLength < 4 * 2 ** 20, 'about 3 MB of typed arrays')
})

test('the compact target map reads records like kuromoji: repeated keys, padding, a cut record', async (t) => {
  const ints = (values: number[], extraBytes = 0): Uint8Array => {
    const bytes = new Uint8Array(values.length * 4 + extraBytes)
    const view = new DataView(bytes.buffer)
    values.forEach((value, i) => { view.setInt32(i * 4, value, true) })
    return bytes
  }
  const read = (bytes: Uint8Array): Record<string, number[]> => {
    const { offsets, ids } = compactTargetMap(bytes)
    const out: Record<string, number[]> = {}
    for (let key = 0; key < offsets.length - 1; key++) if (offsets[key] !== offsets[key + 1]) out[key] = Array.from(ids.subarray(offsets[key], offsets[key + 1]))
    return out
  }
  const kuromojiRead = (bytes: Uint8Array): Record<string, number[]> => {
    const dictionary = new TokenInfoDictionary()
    dictionary.loadTargetMap(bytes)
    return { ...dictionary.target_map }
  }
  const cases = [
    ints([3, 5, 2, 100, 104, 0, 1, 7, 5, 1, 108, 0, 0, 0, 0]), // key 5 twice, then zero padding
    ints([1, 2, 3, 10, 11, 12], 3), // a cut int at the end reads as 0
    ints([1, 4, 3, 10, 11]), // fewer values than announced
    ints([0]),
    new Uint8Array(0)
  ]
  for (const bytes of cases) t.same(read(bytes), kuromojiRead(bytes))
  t.same(read(cases[0] as Uint8Array), { 0: [7], 5: [100, 104, 108] })
  t.throws(() => compactTargetMap(ints([1, -2, 1, 9])), /negative trie id/)
})
