/**
 * Constrained queries (issue 18): requests that carry price limits, cheapness, a payment network
 * or a status in English or Japanese, against a catalog from bench/generate.ts. Each case says
 * which filters the text must yield (exactly) and which generated topic the rest of the text asks
 * for (the endpoint's last path segment, bench/generate.ts TOPICS). The relevant services are the
 * catalog's services of that topic that pass the expected filters.
 */
import type { ParsedFilters } from '../../src/search/constraints.js'

export interface ConstraintCase {
  /** intent: GET /api/services/search/intent; catalog: GET /api/catalog/search with parse=true. */
  endpoint: 'intent' | 'catalog'
  q: string
  filters: ParsedFilters
  /** Endpoint path of the topic asked for (e.g. 'translate' for the translators). */
  topic: string
  lang: 'en' | 'ja'
}

const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
const BASE = 'eip155:8453'
const POLYGON = 'eip155:137'
const AVALANCHE = 'eip155:43114'
const ARBITRUM = 'eip155:42161'

export const constraintCases: readonly ConstraintCase[] = [
  // English
  { endpoint: 'intent', lang: 'en', q: 'cheap weather forecast API on solana', filters: { sortBy: 'price', chain: SOLANA }, topic: 'forecast' },
  { endpoint: 'intent', lang: 'en', q: 'verified OCR under $0.005', filters: { status: 'verified', maxPricePerRequest: '0.005' }, topic: 'ocr' },
  { endpoint: 'intent', lang: 'en', q: 'I need a translator on base for less than 1 cent', filters: { chain: BASE, maxPricePerRequest: '0.01' }, topic: 'translate' },
  { endpoint: 'intent', lang: 'en', q: 'cheapest background removal', filters: { sortBy: 'price' }, topic: 'remove-background' },
  { endpoint: 'intent', lang: 'en', q: 'geocoding on polygon', filters: { chain: POLYGON }, topic: 'geocode' },
  { endpoint: 'intent', lang: 'en', q: 'screenshot api below $0.01 per request', filters: { maxPricePerRequest: '0.01' }, topic: 'screenshot' },
  { endpoint: 'intent', lang: 'en', q: 'verified sms gateway on avalanche', filters: { status: 'verified', chain: AVALANCHE }, topic: 'sms' },
  { endpoint: 'intent', lang: 'en', q: 'inexpensive email validation', filters: { sortBy: 'price' }, topic: 'validate-email' },
  { endpoint: 'intent', lang: 'en', q: 'stock quotes on arbitrum under 0.05', filters: { chain: ARBITRUM, maxPricePerRequest: '0.05' }, topic: 'quotes' },
  { endpoint: 'intent', lang: 'en', q: 'image generation with a free tier', filters: { sortBy: 'price' }, topic: 'generate' },
  { endpoint: 'intent', lang: 'en', q: 'horoscope 0.001 usdc or less', filters: { maxPricePerRequest: '0.001' }, topic: 'horoscope' },
  { endpoint: 'intent', lang: 'en', q: 'low-cost embeddings via solana', filters: { sortBy: 'price', chain: SOLANA }, topic: 'embeddings' },
  { endpoint: 'intent', lang: 'en', q: 'only verified malware scan', filters: { status: 'verified' }, topic: 'scan' },
  { endpoint: 'intent', lang: 'en', q: 'recipe search at most 2 cents', filters: { maxPricePerRequest: '0.02' }, topic: 'recipes' },
  { endpoint: 'intent', lang: 'en', q: 'flight search on base network, verified', filters: { chain: BASE, status: 'verified' }, topic: 'flights' },
  { endpoint: 'catalog', lang: 'en', q: 'cheap sentiment analysis', filters: { sortBy: 'price' }, topic: 'sentiment' },
  { endpoint: 'catalog', lang: 'en', q: 'postal code lookup on solana', filters: { chain: SOLANA }, topic: 'postal' },
  { endpoint: 'catalog', lang: 'en', q: 'verified speech to text under $0.02', filters: { status: 'verified', maxPricePerRequest: '0.02' }, topic: 'transcribe' },
  // Japanese
  { endpoint: 'intent', lang: 'ja', q: '0.01ドル以下の翻訳', filters: { maxPricePerRequest: '0.01' }, topic: 'translate' },
  { endpoint: 'intent', lang: 'ja', q: '$0.005以下の文字起こし', filters: { maxPricePerRequest: '0.005' }, topic: 'transcribe' },
  { endpoint: 'intent', lang: 'ja', q: 'ソラナで使える天気予報', filters: { chain: SOLANA }, topic: 'forecast' },
  { endpoint: 'intent', lang: 'ja', q: '一番安い背景除去API', filters: { sortBy: 'price' }, topic: 'remove-background' },
  { endpoint: 'intent', lang: 'ja', q: '検証済みの画像生成', filters: { status: 'verified' }, topic: 'generate' },
  { endpoint: 'intent', lang: 'ja', q: 'Base で株価を取得したい', filters: { chain: BASE }, topic: 'quotes' },
  { endpoint: 'intent', lang: 'ja', q: 'ポリゴン対応の郵便番号検索', filters: { chain: POLYGON }, topic: 'postal' },
  { endpoint: 'intent', lang: 'ja', q: '格安の要約サービス', filters: { sortBy: 'price' }, topic: 'summarize' },
  { endpoint: 'intent', lang: 'ja', q: '1セント未満の為替レート', filters: { maxPricePerRequest: '0.01' }, topic: 'fx' },
  { endpoint: 'intent', lang: 'ja', q: '無料枠のある感情分析', filters: { sortBy: 'price' }, topic: 'sentiment' },
  { endpoint: 'intent', lang: 'ja', q: '検証済みでソラナ対応のOCR', filters: { status: 'verified', chain: SOLANA }, topic: 'ocr' },
  { endpoint: 'intent', lang: 'ja', q: '1回0.002ドル以下のスクリーンショット', filters: { maxPricePerRequest: '0.002' }, topic: 'screenshot' },
  { endpoint: 'intent', lang: 'ja', q: 'アバランチで安い航空券検索', filters: { chain: AVALANCHE, sortBy: 'price' }, topic: 'flights' },
  { endpoint: 'intent', lang: 'ja', q: '最大0.05ドルのレシピ検索', filters: { maxPricePerRequest: '0.05' }, topic: 'recipes' },
  { endpoint: 'catalog', lang: 'ja', q: 'ベースチェーン 音声合成', filters: { chain: BASE }, topic: 'tts' },
  { endpoint: 'catalog', lang: 'ja', q: '安い ジオコーディング', filters: { sortBy: 'price' }, topic: 'geocode' },
  { endpoint: 'catalog', lang: 'ja', q: '検証済み 占い 0.01ドル以下', filters: { status: 'verified', maxPricePerRequest: '0.01' }, topic: 'horoscope' },
  { endpoint: 'catalog', lang: 'ja', q: 'イーサリアム マルウェア検査', filters: { chain: 'eip155:1' }, topic: 'scan' }
]
