/**
 * Synthetic catalog for benchmarks: N realistic, bilingual (about half Japanese) paid-API
 * listings across every category, with varied prices, networks, statuses and monitoring
 * figures. Deterministic from a seed, so every run (and every benchmark) sees the same
 * catalog. Each entry is a valid registration body plus the seed's monitoring fields.
 */
import { CATEGORIES } from '../src/domain/categories.js'
import { formatAtomic } from '../src/domain/money.js'
import type { RegistrationBody } from '../src/domain/registration.js'
import type { SeedEntry } from '../src/domain/seed.js'

export type { SeedEntry }

/** mulberry32: small, fast, good enough for test data; same seed → same sequence. */
export function prng (seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface Topic {
  en: string
  ja: string
  /** Last path segment of the endpoint. */
  path: string
  /** What it does, one sentence each. */
  doesEn: string
  doesJa: string
}

const TOPICS: Record<string, readonly Topic[]> = {
  'ai-llm': [
    { en: 'Summarizer', ja: '要約', path: 'summarize', doesEn: 'Summarizes long articles, meeting notes and reports into a few sentences or bullet points.', doesJa: '長文の記事や議事録、レポートを数行の要約や箇条書きにまとめます。' },
    { en: 'Chat Completion', ja: 'チャット生成', path: 'chat/completions', doesEn: 'Chat completions from an instruction-tuned language model with streaming and JSON mode.', doesJa: '指示調整済みの大規模言語モデルによるチャット応答を生成します。ストリーミングとJSONモードに対応。' },
    { en: 'Embeddings', ja: '埋め込みベクトル', path: 'embeddings', doesEn: 'Dense text embeddings for semantic search, RAG pipelines and clustering.', doesJa: 'セマンティック検索やRAG、クラスタリング向けのテキスト埋め込みベクトルを返します。' },
    { en: 'Sentiment Analysis', ja: '感情分析', path: 'sentiment', doesEn: 'Positive, negative and neutral labels with confidence scores for reviews and posts.', doesJa: 'レビューやSNS投稿の感情をポジティブ・ネガティブ・ニュートラルで判定し、信頼度を返します。' }
  ],
  image: [
    { en: 'Image Generation', ja: '画像生成', path: 'generate', doesEn: 'Turns a text prompt into photorealistic images, product mockups or concept art.', doesJa: 'テキストのプロンプトから写真風の画像や商品モックアップ、コンセプトアートを生成します。' },
    { en: 'OCR', ja: '文字認識 (OCR)', path: 'ocr', doesEn: 'Extracts printed and handwritten text from photos, receipts and scanned PDFs.', doesJa: '写真やレシート、スキャンしたPDFから活字と手書きの文字を読み取ります。縦書きにも対応。' },
    { en: 'Background Removal', ja: '背景除去', path: 'remove-background', doesEn: 'Cuts the subject out of a photo and returns a transparent PNG.', doesJa: '写真から被写体を切り抜き、背景を透過したPNGを返します。' },
    { en: 'Object Detection', ja: '物体検出', path: 'detect', doesEn: 'Detects and labels objects with bounding boxes and confidence scores.', doesJa: '画像内の物体を検出し、バウンディングボックスとラベルを返します。' }
  ],
  'speech-audio': [
    { en: 'Speech to Text', ja: '音声文字起こし', path: 'transcribe', doesEn: 'Transcribes audio and video files with timestamps and speaker labels.', doesJa: '音声・動画ファイルをタイムスタンプと話者ラベル付きで文字起こしします。' },
    { en: 'Text to Speech', ja: '音声合成', path: 'tts', doesEn: 'Natural-sounding speech synthesis in dozens of voices and languages.', doesJa: '自然な声で日本語と英語のテキストを読み上げる音声合成APIです。' },
    { en: 'Audio Cleanup', ja: 'ノイズ除去', path: 'denoise', doesEn: 'Removes background noise and normalizes loudness of recordings.', doesJa: '録音データの雑音を除去し、音量を自動で整えます。' }
  ],
  translation: [
    { en: 'Translator', ja: '翻訳', path: 'translate', doesEn: 'Machine translation between English, Japanese and 50 other languages.', doesJa: '日本語・英語をはじめ50以上の言語間で機械翻訳を行います。' },
    { en: 'Language Detection', ja: '言語判定', path: 'detect-language', doesEn: 'Detects the language of short texts with a confidence score.', doesJa: '短いテキストの言語を判定し、信頼度とともに返します。' },
    { en: 'Keigo Checker', ja: '敬語チェック', path: 'proofread', doesEn: 'Proofreads Japanese business writing and suggests polite phrasing.', doesJa: 'ビジネス文書の敬語の誤用や表記ゆれを検出し、言い換え案を提示します。' }
  ],
  weather: [
    { en: 'Weather Forecast', ja: '天気予報', path: 'forecast', doesEn: 'Hourly and daily forecasts for any coordinates, up to 14 days ahead.', doesJa: '緯度経度や市区町村を指定して、1時間ごと・日ごとの天気予報を最大14日先まで返します。' },
    { en: 'Rain Radar', ja: '雨雲レーダー', path: 'radar', doesEn: 'Precipitation nowcasts at 1 km resolution for the next two hours.', doesJa: '1km メッシュで2時間先までの降水ナウキャストを提供します。ゲリラ豪雨の検知に。' },
    { en: 'Climate History', ja: '過去の気象データ', path: 'history', doesEn: 'Historical temperature, rainfall and wind observations since 1980.', doesJa: '1980年以降の気温・降水量・風速の観測データを取得できます。' }
  ],
  finance: [
    { en: 'Stock Quotes', ja: '株価', path: 'quotes', doesEn: 'Real-time and delayed quotes for US and Tokyo Stock Exchange listings.', doesJa: '東証・米国市場の上場銘柄のリアルタイム株価と遅延株価を返します。' },
    { en: 'FX Rates', ja: '為替レート', path: 'fx', doesEn: 'Spot and historical exchange rates for 160 currencies, including JPY crosses.', doesJa: 'ドル円をはじめ160通貨のスポット・過去の為替レートを取得できます。' },
    { en: 'Company Financials', ja: '企業財務データ', path: 'financials', doesEn: 'Income statements, balance sheets and cash flows from filings.', doesJa: '有価証券報告書などから損益計算書・貸借対照表・キャッシュフローを抽出します。' }
  ],
  'crypto-web3': [
    { en: 'Token Prices', ja: 'トークン価格', path: 'prices', doesEn: 'Aggregated token prices across centralized and decentralized exchanges.', doesJa: '中央集権型・分散型取引所のトークン価格を集約して返します。' },
    { en: 'Wallet Analytics', ja: 'ウォレット分析', path: 'wallets', doesEn: 'Balances, transfers and labels for EVM and Solana wallets.', doesJa: 'EVM・Solana ウォレットの残高、送金履歴、ラベルを分析します。' },
    { en: 'NFT Metadata', ja: 'NFT メタデータ', path: 'nft', doesEn: 'Normalized NFT metadata, images and floor prices.', doesJa: 'NFT のメタデータと画像、フロア価格を正規化して返します。' }
  ],
  'maps-geo': [
    { en: 'Geocoding', ja: 'ジオコーディング', path: 'geocode', doesEn: 'Converts addresses to coordinates and back, with Japanese address support.', doesJa: '住所と緯度経度を相互に変換します。日本の住所表記（丁目・番地）に対応。' },
    { en: 'Routing', ja: 'ルート検索', path: 'route', doesEn: 'Driving, cycling and walking routes with travel-time estimates.', doesJa: '車・自転車・徒歩のルートと所要時間を計算します。' },
    { en: 'Places Search', ja: '周辺スポット検索', path: 'places', doesEn: 'Finds nearby shops, stations and landmarks by keyword.', doesJa: 'キーワードで近くの店舗や駅、ランドマークを検索します。' }
  ],
  'search-scraping': [
    { en: 'Web Search', ja: 'ウェブ検索', path: 'search', doesEn: 'Web search results with snippets, ready for AI agents.', doesJa: 'AIエージェント向けに、スニペット付きのウェブ検索結果を返します。' },
    { en: 'Page Scraper', ja: 'スクレイピング', path: 'scrape', doesEn: 'Renders a page in a headless browser and returns clean Markdown.', doesJa: 'ヘッドレスブラウザでページを描画し、本文をMarkdownで返します。' },
    { en: 'Price Tracker', ja: '価格比較', path: 'prices', doesEn: 'Tracks product prices across online shops.', doesJa: '通販サイトの商品価格を比較・追跡します。' }
  ],
  'data-lookup': [
    { en: 'Postal Code Lookup', ja: '郵便番号検索', path: 'postal', doesEn: 'Japanese postal codes to prefecture, city and town, updated monthly.', doesJa: '郵便番号から都道府県・市区町村・町域を返します。毎月更新。' },
    { en: 'Company Registry', ja: '法人番号検索', path: 'companies', doesEn: 'Looks up companies by corporate number or name.', doesJa: '法人番号や商号から企業の所在地や設立日を照会します。' },
    { en: 'Email Validation', ja: 'メールアドレス検証', path: 'validate-email', doesEn: 'Checks syntax, MX records and disposable domains of email addresses.', doesJa: 'メールアドレスの形式、MXレコード、使い捨てドメインを検証します。' }
  ],
  communication: [
    { en: 'SMS Gateway', ja: 'SMS 送信', path: 'sms', doesEn: 'Sends SMS to over 200 countries with delivery receipts.', doesJa: '国内外の携帯電話にSMSを送信し、配信結果を返します。' },
    { en: 'Transactional Email', ja: 'メール配信', path: 'email', doesEn: 'Transactional email with templates, tracking and bounce handling.', doesJa: 'テンプレート、開封トラッキング、バウンス処理付きのメール配信APIです。' },
    { en: 'Push Notifications', ja: 'プッシュ通知', path: 'push', doesEn: 'Push notifications to iOS, Android and web browsers.', doesJa: 'iOS・Android・ブラウザへのプッシュ通知を一括送信します。' }
  ],
  'developer-tools': [
    { en: 'Screenshot', ja: 'スクリーンショット', path: 'screenshot', doesEn: 'Full-page screenshots of any URL in PNG or PDF.', doesJa: '指定したURLのページ全体をPNGやPDFで撮影します。' },
    { en: 'Code Runner', ja: 'コード実行', path: 'run', doesEn: 'Runs Python, JavaScript and Go snippets in a sandbox.', doesJa: 'Python・JavaScript・Go のコードをサンドボックスで実行します。' },
    { en: 'PDF Renderer', ja: 'PDF 生成', path: 'pdf', doesEn: 'Renders HTML templates into print-ready PDF documents.', doesJa: 'HTMLテンプレートから請求書や帳票などのPDFを生成します。' }
  ],
  storage: [
    { en: 'Object Storage', ja: 'オブジェクトストレージ', path: 'objects', doesEn: 'Pay-per-request object storage with signed URLs.', doesJa: '署名付きURLに対応した従量課金のオブジェクトストレージです。' },
    { en: 'IPFS Pinning', ja: 'IPFS ピン留め', path: 'pin', doesEn: 'Pins files to IPFS and serves them from a fast gateway.', doesJa: 'ファイルをIPFSにピン留めし、高速ゲートウェイから配信します。' },
    { en: 'Archive', ja: 'アーカイブ保存', path: 'archive', doesEn: 'Long-term archival of web pages and documents.', doesJa: 'ウェブページや文書を長期保存用にアーカイブします。' }
  ],
  security: [
    { en: 'Malware Scan', ja: 'マルウェア検査', path: 'scan', doesEn: 'Scans files and URLs against dozens of antivirus engines.', doesJa: 'ファイルやURLを複数のウイルス対策エンジンで検査します。' },
    { en: 'Fraud Score', ja: '不正検知', path: 'fraud', doesEn: 'Risk scores for sign-ups and payments from IP, device and email signals.', doesJa: 'IPアドレスや端末、メールアドレスから登録・決済の不正リスクを判定します。' },
    { en: 'Identity Verification', ja: '本人確認 (eKYC)', path: 'kyc', doesEn: 'Document and selfie checks for online identity verification.', doesJa: '本人確認書類と顔写真を照合するオンライン本人確認（eKYC）APIです。' }
  ],
  travel: [
    { en: 'Flight Search', ja: '航空券検索', path: 'flights', doesEn: 'Searches fares and schedules across airlines.', doesJa: '国内線・国際線の運賃と時刻表を横断検索します。' },
    { en: 'Train Timetable', ja: '乗換案内', path: 'transit', doesEn: 'Rail and subway journeys with transfers and fares in Japan.', doesJa: '電車・地下鉄の乗換経路と運賃、所要時間を検索します。' },
    { en: 'Hotel Availability', ja: 'ホテル空室検索', path: 'hotels', doesEn: 'Room availability and rates from hotel booking partners.', doesJa: 'ホテル・旅館の空室状況と料金を検索します。' }
  ],
  food: [
    { en: 'Recipe Search', ja: 'レシピ検索', path: 'recipes', doesEn: 'Searches recipes by ingredient, cuisine and cooking time.', doesJa: '食材や料理ジャンル、調理時間からレシピを検索します。' },
    { en: 'Nutrition Facts', ja: '栄養成分', path: 'nutrition', doesEn: 'Calories and nutrients for foods and whole meals.', doesJa: '食品や献立のカロリーと栄養成分を計算します。' },
    { en: 'Restaurant Finder', ja: '飲食店検索', path: 'restaurants', doesEn: 'Nearby restaurants with menus, ratings and opening hours.', doesJa: '近くの飲食店をメニュー、評価、営業時間とともに探せます。' }
  ],
  news: [
    { en: 'News Feed', ja: 'ニュース配信', path: 'headlines', doesEn: 'Headlines and full articles from thousands of publishers.', doesJa: '国内外の数千媒体から見出しと記事本文を配信します。' },
    { en: 'Media Monitoring', ja: 'メディアモニタリング', path: 'mentions', doesEn: 'Alerts when your brand is mentioned in news or social media.', doesJa: 'ニュースやSNSで自社ブランドが言及されたときに通知します。' },
    { en: 'Article Classifier', ja: '記事分類', path: 'classify', doesEn: 'Classifies articles by topic and extracts named entities.', doesJa: '記事をトピックごとに分類し、固有表現を抽出します。' }
  ],
  other: [
    { en: 'Random Facts', ja: '雑学', path: 'facts', doesEn: 'A random fact or trivia question on demand.', doesJa: 'リクエストごとにランダムな雑学やクイズを返します。' },
    { en: 'Horoscope', ja: '占い', path: 'horoscope', doesEn: 'Daily horoscopes for the twelve signs.', doesJa: '12星座の今日の運勢を返します。' },
    { en: 'Calendar', ja: '祝日カレンダー', path: 'holidays', doesEn: 'Public holidays and business days for 100 countries.', doesJa: '日本の祝日と営業日を含む100か国のカレンダー情報です。' }
  ]
}

const EN_SYLLABLES = ['nim', 'bus', 'ter', 'ra', 'vo', 'lex', 'qua', 'zen', 'ori', 'kai', 'sol', 'mi', 'ta', 'ro', 'fi', 'no', 'cor', 'via', 'dex', 'lu', 'mar', 'pix', 'sy', 'on']
const EN_STYLES = ['{brand} {topic}', '{brand} {topic} API', '{topic} by {brand}', '{brand} {topic} Pro', 'Fast {topic}', '{brand}']
const JA_BRANDS = ['ソラ', 'ミライ', 'アオバ', 'ハヤテ', 'コトバ', 'ヒカリ', 'サクラ', 'ツバサ', 'カゼ', 'ホシ', 'ユメ', 'ナギ', 'ミナト', 'イロハ', 'カナメ', 'シズク']
const JA_STYLES = ['{topic} API', '{brand}{topic}', '{brand}{topic} API', 'かんたん{topic}', '高速{topic} API', '{topic}くん', '{topic}サービス']
const EN_EXTRAS = [
  'Responses are JSON with ISO 8601 timestamps.',
  'Batch up to 100 items per request.',
  'Average latency under 200 ms from Tokyo and Virginia.',
  'No sign-up: pay per call with USDC over x402.',
  'Results are cached for 60 seconds.',
  'Supports English and Japanese input.',
  'Built for AI agents: stable schemas and clear error codes.'
]
const JA_EXTRAS = [
  'レスポンスはJSON形式です。',
  '1リクエストで最大100件まで処理できます。',
  '東京リージョンから平均200ミリ秒以内で応答します。',
  '会員登録不要、x402 で1回ごとにUSDCで支払えます。',
  'AIエージェントからの利用を想定した安定したスキーマです。',
  '日本語と英語の入力に対応しています。',
  '結果は60秒間キャッシュされます。'
]
const TLDS = ['com', 'io', 'dev', 'ai', 'jp', 'co.jp', 'net', 'app']

/** Network names as a registrant would write them (v1 names and CAIP-2 ids), weighted. */
const NETWORKS: ReadonlyArray<readonly [string, number]> = [
  ['base', 38], ['eip155:8453', 5], ['polygon', 9], ['avalanche', 5], ['eip155:42161', 4], ['ethereum', 3],
  ['base-sepolia', 5], ['sei', 3], ['iotex', 2], ['celo', 2], ['polygon-amoy', 1],
  ['solana', 16], ['solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', 3], ['solana-devnet', 4]
]
/** Extra chains a mainnet listing may also accept (same family as its network). */
const EVM_EXTRA = ['base', 'polygon', 'avalanche', 'eip155:42161', 'ethereum', 'sei', 'celo']
const SVM_EXTRA = ['solana']
const TESTNETS = new Set(['base-sepolia', 'polygon-amoy', 'solana-devnet'])
const FREE_QUOTAS = [10, 50, 100, 500, 1000]
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'

const DAY_MS = 86_400_000
const FIRST_CREATED = Date.parse('2024-06-01T00:00:00.000Z')
const LAST_CREATED = Date.parse('2026-11-01T00:00:00.000Z')
const CHECKED_UNTIL = Date.parse('2026-11-20T06:00:00.000Z')

function base58 (bytes: Uint8Array): string {
  const digits: number[] = []
  for (const byte of bytes) {
    let carry = byte
    for (let i = 0; i < digits.length; i++) {
      carry += (digits[i] as number) << 8
      digits[i] = carry % 58
      carry = Math.floor(carry / 58)
    }
    while (carry > 0) {
      digits.push(carry % 58)
      carry = Math.floor(carry / 58)
    }
  }
  let out = ''
  for (const byte of bytes) {
    if (byte !== 0) break
    out += '1'
  }
  for (let i = digits.length - 1; i >= 0; i--) out += BASE58[digits[i] as number]
  return out
}

/**
 * `n` services, deterministic from `seed`. Endpoints are unique within one call and embed
 * `offset + index`, so batches generated with disjoint offsets never collide (e.g. a
 * preloaded catalog plus fresh registrations).
 */
export function generateServices (n: number, seed = 1, offset = 0): SeedEntry[] {
  const random = prng(seed)
  const int = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1))
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T
  const weighted = <T>(items: ReadonlyArray<readonly [T, number]>): T => {
    const total = items.reduce((sum, [, weight]) => sum + weight, 0)
    let roll = random() * total
    for (const [item, weight] of items) {
      roll -= weight
      if (roll < 0) return item
    }
    return (items[items.length - 1] as readonly [T, number])[0]
  }
  const bytes = (length: number): Uint8Array => Uint8Array.from({ length }, () => Math.floor(random() * 256))
  const round = (value: number, decimals: number): number => Math.round(value * 10 ** decimals) / 10 ** decimals
  const iso = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString()

  const entries: SeedEntry[] = []
  for (let i = 0; i < n; i++) {
    const index = offset + i
    const category = pick(CATEGORIES).id
    const topic = pick(TOPICS[category] as readonly Topic[])
    const japanese = random() < 0.5
    const syllables = int(2, 3)
    let slug = ''
    for (let s = 0; s < syllables; s++) slug += pick(EN_SYLLABLES)
    const enBrand = slug.charAt(0).toUpperCase() + slug.slice(1)

    let name: string
    let description: string
    if (japanese) {
      name = pick(JA_STYLES).replace('{brand}', pick(JA_BRANDS)).replace('{topic}', topic.ja)
      description = [topic.doesJa, pick(JA_EXTRAS), random() < 0.5 ? pick(JA_EXTRAS) : ''].join('')
    } else {
      name = pick(EN_STYLES).replace('{brand}', enBrand).replace('{topic}', topic.en)
      description = [topic.doesEn, pick(EN_EXTRAS), random() < 0.5 ? pick(EN_EXTRAS) : ''].join(' ').trim()
    }
    const tld = japanese && random() < 0.6 ? pick(['jp', 'co.jp']) : pick(TLDS)
    const endpoint = `https://api${index.toString(36)}.${slug}.${tld}/v${int(1, 3)}/${topic.path}`

    // Log-uniform prices from 0.000001 to ~5 USDC, rounded to two significant digits.
    const raw = 10 ** (random() * 6.7)
    const magnitude = 10 ** Math.max(0, Math.floor(Math.log10(raw)) - 1)
    const priceAtomic = Math.max(1, Math.round(raw / magnitude) * magnitude)
    const pricing: RegistrationBody['pricing'] = { currency: 'USDC', pricePerRequest: formatAtomic(priceAtomic, 6) }
    if (random() < 0.4) pricing.freeQuota = pick(FREE_QUOTAS)

    const network = weighted(NETWORKS)
    const solana = network.startsWith('solana')
    const paymentAddress = solana ? base58(bytes(32)) : `0x${Buffer.from(bytes(20)).toString('hex')}`
    const body: RegistrationBody = { name, description, endpoint, category, pricing, x402Config: { paymentAddress, network } }
    if (!TESTNETS.has(network) && random() < 0.2) {
      const extras = solana ? SVM_EXTRA : EVM_EXTRA
      body.supportedChains = Array.from({ length: solana ? 1 : int(1, 2) }, () => pick(extras))
    }

    const createdMs = FIRST_CREATED + random() * (LAST_CREATED - FIRST_CREATED)
    const status = weighted<SeedEntry['status']>([['verified', 45], ['unverified', 40], ['inactive', 15]])
    let uptimeScore: number | null = null
    let lastChecked: string | null = null
    if (status === 'verified') {
      uptimeScore = round(97 + random() * 3, 2)
      lastChecked = iso(CHECKED_UNTIL - random() * 2 * DAY_MS)
    } else if (status === 'inactive') {
      uptimeScore = round(random() * 70, 2)
      lastChecked = iso(Math.max(createdMs, CHECKED_UNTIL - random() * 60 * DAY_MS))
    } else if (random() < 0.5) {
      uptimeScore = round(80 + random() * 19.9, 2)
      lastChecked = iso(CHECKED_UNTIL - random() * 7 * DAY_MS)
    }
    entries.push({
      ...body,
      status,
      uptimeScore,
      lastChecked,
      createdAt: iso(createdMs)
    })
  }
  return entries
}

/** The registration body of an entry, without the seed-only monitoring fields. */
export function registrationBody (entry: SeedEntry): RegistrationBody {
  const { status, uptimeScore, lastChecked, createdAt, ...body } = entry
  return body
}
