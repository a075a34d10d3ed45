import { test } from 'tap'
import { MAX_PRICE_UNITS } from '../../src/domain/money.js'
import { parseConstraints, priceOf, type ParsedFilters } from '../../src/search/constraints.js'

const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
const BASE = 'eip155:8453'

const cases: Array<[string, string, ParsedFilters, string[]]> = [
  // [typed, text left, filters, removed]
  ['cheap weather API on solana', 'weather api', { sortBy: 'price', chain: SOLANA }, ['cheap', 'on solana']],
  ['0.01ドル以下の翻訳', '翻訳', { maxPricePerRequest: '0.01' }, ['0.01ドル以下の']],
  ['verified OCR under $0.005', 'ocr', { status: 'verified', maxPricePerRequest: '0.005' }, ['verified', 'under $0.005']],
  ['$0.005以下', '', { maxPricePerRequest: '0.005' }, ['$0.005以下']],
  ['below 1 cent', '', { maxPricePerRequest: '0.01' }, ['below 1 cent']],
  ['under half a cent', 'under half a cent', {}, []],
  ['less than 0.5 cents', '', { maxPricePerRequest: '0.005' }, ['less than 0.5 cents']],
  ['1セント以下のOCR', 'ocr', { maxPricePerRequest: '0.01' }, ['1セント以下の']],
  ['1回0.001ドル以下の画像生成', '画像生成', { maxPricePerRequest: '0.001' }, ['1回0.001ドル以下の']],
  ['最大0.02ドルの要約', '要約', { maxPricePerRequest: '0.02' }, ['最大0.02ドルの']],
  ['translation for under $0.01 per request', 'translation', { maxPricePerRequest: '0.01' }, ['for under $0.01 per request']],
  ['ocr 0.002 usdc or less', 'ocr', { maxPricePerRequest: '0.002' }, ['0.002 usdc or less']],
  ['無料枠', '', { sortBy: 'price' }, ['無料枠']],
  ['free tier translation', 'translation', { sortBy: 'price' }, ['free tier']],
  ['一番安い天気予報', '天気予報', { sortBy: 'price' }, ['一番安い']],
  ['格安の翻訳', '翻訳', { sortBy: 'price' }, ['格安の']],
  ['Base で天気', '天気', { chain: BASE }, ['base で']],
  ['ベースチェーンの画像生成', '画像生成', { chain: BASE }, ['ベースチェーンの']],
  ['polygon', '', { chain: 'eip155:137' }, ['polygon']],
  ['ソラナで使える翻訳', '翻訳', { chain: SOLANA }, ['ソラナで使える']],
  ['Base で支払える OCR', 'ocr', { chain: BASE }, ['base で支払える']],
  ['weather on base sepolia', 'weather', { chain: 'eip155:84532' }, ['on base sepolia']],
  ['検証済みのOCR', 'ocr', { status: 'verified' }, ['検証済みの']],
  ['cheapest image api and verified', 'image api', { sortBy: 'price', status: 'verified' }, ['cheapest', 'and', 'verified']],
  // Two networks: either will do, so no chain filter; both are still constraints.
  ['ocr on base or solana', 'ocr', {}, ['on base', 'or', 'solana']],
  // Ordinary words that are not constraints.
  ['knowledge base search', 'knowledge base search', {}, []],
  ['database backup', 'database backup', {}, []],
  ['データベース検索', 'データベース検索', {}, []],
  ['stable diffusion images', 'stable diffusion images', {}, []],
  ['abstract summarization', 'abstract summarization', {}, []],
  ['base64 encode', 'base64 encode', {}, []],
  ['安全な決済', '安全な決済', {}, []],
  ['使いやすい翻訳', '使いやすい翻訳', {}, []],
  ['response under 5 seconds', 'response under 5 seconds', {}, []],
  ['5秒以下の音声認識', '5秒以下の音声認識', {}, []],
  ['gluten free recipes', 'gluten free recipes', {}, []],
  ['x402 api', 'x402 api', {}, []],
  // Quoted text is searched as typed.
  ['"solana" price feed', '"solana" price feed', {}, []],
  ['「ベース」で検索', '「ベース」で検索', {}, []]
]

test('constraints are read from English and Japanese text and taken out of it', async (t) => {
  for (const [typed, text, filters, removed] of cases) {
    const parsed = parseConstraints(typed)
    t.same(parsed, { text, filters, removed }, typed)
  }
})

test('the first price bound and status win', async (t) => {
  t.same(parseConstraints('under $0.01 below 0.5 cents').filters, { maxPricePerRequest: '0.01' })
  t.same(parseConstraints('verified unverified').filters, { status: 'verified' })
})

test('price phrases are read exactly, in USDC', async (t) => {
  t.equal(priceOf('under $0.000001'), '0.000001')
  t.equal(priceOf('under 0.0000015'), '0.000001', 'below one atomic unit of precision: rounded down')
  t.equal(priceOf('under 3 cents'), '0.03')
  t.equal(priceOf('under .5 dollars'), '0.5')
  t.equal(priceOf('under a penny'), '0.01')
  t.equal(priceOf(`under ${'9'.repeat(30)}`), String(MAX_PRICE_UNITS), 'a huge bound admits every fixed price (and no dynamic one)')
})

test('any text is parsed without throwing', async (t) => {
  for (const odd of ['', ' ', '$', '$$$ under', 'under', '以下', '\u0000', '🙂 on', 'on on on solana solana', '"unterminated', '「', 'a'.repeat(200), '0'.repeat(200), '.5以下']) {
    const parsed = parseConstraints(odd)
    t.type(parsed.text, 'string', JSON.stringify(odd.slice(0, 20)))
  }
})
