/**
 * Relevance cases for the search endpoints: realistic queries against the demo
 * catalog (fixtures/services.json), each with every service that is a fair
 * answer. A case is a hit when one of them is in the top 3.
 *
 * Typo cases follow the tolerance rules: no typo in words of 1–4 characters,
 * one in words of 5–8, two in words of 9 or more, never on the first letter.
 * typo1 words are 5–8 characters with one insertion, deletion or substitution;
 * typo2 words are 9+ characters with two.
 */

export type RelevanceEndpoint = 'catalog' | 'intent' | 'list'

export type RelevanceKind =
  | 'english'
  | 'typo1'
  | 'typo2'
  | 'prefix'
  | 'ja-sentence'
  | 'hiragana'
  | 'katakana'
  | 'halfwidth'
  | 'compound'
  | 'mixed'
  | 'conversational-en'
  | 'synonym'

export const RELEVANCE_KINDS: readonly RelevanceKind[] = [
  'english', 'typo1', 'typo2', 'prefix', 'ja-sentence', 'hiragana',
  'katakana', 'halfwidth', 'compound', 'mixed', 'conversational-en', 'synonym'
]

export interface RelevanceCase {
  /** catalog: GET /api/catalog/search?q=, intent: GET /api/services/search/intent?q=, list: GET /api/services?query= */
  endpoint: RelevanceEndpoint
  q: string
  /** Endpoint URLs (from the fixtures) of every acceptable answer; one must be in the top 3. */
  expect: string[]
  kind: RelevanceKind
}

export const relevanceCases: RelevanceCase[] = [
  // english
  { endpoint: 'catalog', kind: 'english', q: 'weather forecast', expect: ['https://api.stormtrack.io/v3/forecast', 'https://api.tenki-x402.jp/v1/forecast'] }, // StormTrack Weather Forecast, テンキX 天気予報 API
  { endpoint: 'catalog', kind: 'english', q: 'background removal', expect: ['https://api.backdroperaser.com/v1/remove-background'] }, // Backdrop Eraser
  { endpoint: 'catalog', kind: 'english', q: 'hotel search', expect: ['https://api.stayfinder.travel/v1/hotels/search', 'https://api.yukemuri-yado.jp/v1/vacancy'] }, // StayFinder Hotel Search, ゆけむり 温泉宿 空室検索 API
  { endpoint: 'intent', kind: 'english', q: 'verifiable random numbers', expect: ['https://api.entropybeacon.org/v1/random'] }, // Entropy Beacon Random Numbers
  { endpoint: 'intent', kind: 'english', q: 'email delivery for password resets', expect: ['https://api.mailbolt.email/v1/send'] }, // MailBolt Email Delivery
  { endpoint: 'intent', kind: 'english', q: 'flight status', expect: ['https://api.flightwatch.live/v1/status'] }, // FlightWatch Flight Status
  { endpoint: 'list', kind: 'english', q: 'malware', expect: ['https://api.virusgate.net/v1/scan'] }, // VirusGate Malware Scan
  // typo1
  { endpoint: 'catalog', kind: 'typo1', q: 'wether forecast', expect: ['https://api.stormtrack.io/v3/forecast', 'https://api.tenki-x402.jp/v1/forecast'] }, // StormTrack Weather Forecast, テンキX 天気予報 API
  { endpoint: 'catalog', kind: 'typo1', q: 'nutriton', expect: ['https://api.nutrifacts.dev/v1/nutrition'] }, // NutriFacts Nutrition API
  { endpoint: 'catalog', kind: 'typo1', q: 'malwere scan', expect: ['https://api.virusgate.net/v1/scan'] }, // VirusGate Malware Scan
  { endpoint: 'catalog', kind: 'typo1', q: 'fligt status', expect: ['https://api.flightwatch.live/v1/status'] }, // FlightWatch Flight Status
  { endpoint: 'list', kind: 'typo1', q: 'weathr', expect: ['https://api.stormtrack.io/v3/forecast', 'https://api.tenki-x402.jp/v1/forecast'] }, // StormTrack Weather Forecast, テンキX 天気予報 API
  // typo2
  { endpoint: 'catalog', kind: 'typo2', q: 'trnscripton', expect: ['https://api.whisperline.io/v1/transcribe', 'https://api.koelog.jp/v1/stream/recognize'] }, // Whisperline Speech to Text, こえログ リアルタイム音声認識
  { endpoint: 'catalog', kind: 'typo2', q: 'screeenshoot', expect: ['https://api.shotapi.dev/v1/capture'] }, // ShotAPI Screenshot & PDF
  { endpoint: 'catalog', kind: 'typo2', q: 'tranzlaton', expect: ['https://api.lingo402.com/v1/documents/translate', 'https://api.honyaku-gate.jp/v1/translate'] }, // Lingo402 Document Translation, ほんやくゲート 翻訳 API
  { endpoint: 'catalog', kind: 'typo2', q: 'geolcaton', expect: ['https://api.iplocate.net/v1/lookup'] }, // IPLocate
  { endpoint: 'list', kind: 'typo2', q: 'hotel avalabilty', expect: ['https://api.stayfinder.travel/v1/hotels/search', 'https://api.yukemuri-yado.jp/v1/vacancy'] }, // StayFinder Hotel Search, ゆけむり 温泉宿 空室検索 API
  // prefix
  { endpoint: 'catalog', kind: 'prefix', q: 'screensh', expect: ['https://api.shotapi.dev/v1/capture'] }, // ShotAPI Screenshot & PDF
  { endpoint: 'catalog', kind: 'prefix', q: 'geoco', expect: ['https://api.geopin.dev/v1/geocode', 'https://api.jusho-navi.jp/v1/zipcode'] }, // GeoPin Geocoding, 住所ナビ 郵便番号・住所検索 API
  { endpoint: 'catalog', kind: 'prefix', q: 'ipfs pinn', expect: ['https://api.pinvault.io/v1/pins'] }, // PinVault IPFS Pinning
  { endpoint: 'catalog', kind: 'prefix', q: 'スクレイ', expect: ['https://api.ec-price.jp/v1/search', 'https://api.scraperelay.com/v1/scrape'] }, // ECプライス収集 API, ScrapeRelay Web Scraping
  { endpoint: 'list', kind: 'prefix', q: 'nutri', expect: ['https://api.nutrifacts.dev/v1/nutrition'] }, // NutriFacts Nutrition API
  // ja-sentence
  { endpoint: 'intent', kind: 'ja-sentence', q: '東京の天気予報を知りたい', expect: ['https://api.tenki-x402.jp/v1/forecast', 'https://api.stormtrack.io/v3/forecast'] }, // テンキX 天気予報 API, StormTrack Weather Forecast
  { endpoint: 'intent', kind: 'ja-sentence', q: '英語の契約書を日本語に翻訳したい', expect: ['https://api.honyaku-gate.jp/v1/translate', 'https://api.lingo402.com/v1/documents/translate'] }, // ほんやくゲート 翻訳 API, Lingo402 Document Translation
  { endpoint: 'intent', kind: 'ja-sentence', q: '会議の録音を文字起こししたい', expect: ['https://api.koelog.jp/v1/stream/recognize', 'https://api.whisperline.io/v1/transcribe'] }, // こえログ リアルタイム音声認識, Whisperline Speech to Text
  { endpoint: 'intent', kind: 'ja-sentence', q: '郵便番号から住所を調べたい', expect: ['https://api.jusho-navi.jp/v1/zipcode', 'https://api.postalcode.world/v1/lookup'] }, // 住所ナビ 郵便番号・住所検索 API, PostalCode World
  { endpoint: 'intent', kind: 'ja-sentence', q: '冷蔵庫の余り物で作れるレシピを探しています', expect: ['https://api.kyou-no-kondate.jp/v1/recipes'] }, // きょうの献立 レシピ API
  { endpoint: 'intent', kind: 'ja-sentence', q: '新宿から横浜までの乗り換えを調べたい', expect: ['https://api.norikae-meijin.jp/v1/routes'] }, // のりかえ名人 乗換案内 API
  // hiragana
  { endpoint: 'catalog', kind: 'hiragana', q: 'ほんやく', expect: ['https://api.honyaku-gate.jp/v1/translate', 'https://api.lingo402.com/v1/documents/translate'] }, // ほんやくゲート 翻訳 API, Lingo402 Document Translation
  { endpoint: 'catalog', kind: 'hiragana', q: 'かぶか', expect: ['https://api.kabuka-sokuho.jp/v1/quotes', 'https://api.tickertape.dev/v1/quote'] }, // カブカ速報 株価 API, TickerTape Stock Quotes
  { endpoint: 'catalog', kind: 'hiragana', q: 'しゅくじつ', expect: ['https://api.shukujitsu.jp/v1/holidays'] }, // 祝日カレンダー API
  { endpoint: 'catalog', kind: 'hiragana', q: 'てんき よほう', expect: ['https://api.tenki-x402.jp/v1/forecast', 'https://api.stormtrack.io/v3/forecast'] }, // テンキX 天気予報 API, StormTrack Weather Forecast
  { endpoint: 'intent', kind: 'hiragana', q: 'てんきよほう', expect: ['https://api.tenki-x402.jp/v1/forecast', 'https://api.stormtrack.io/v3/forecast'] }, // テンキX 天気予報 API, StormTrack Weather Forecast
  { endpoint: 'list', kind: 'hiragana', q: 'かわせ', expect: ['https://fx.kawase-rate.jp/api/v1/rates'] }, // 為替レートJP
  // katakana
  { endpoint: 'catalog', kind: 'katakana', q: 'テンキ', expect: ['https://api.tenki-x402.jp/v1/forecast', 'https://api.stormtrack.io/v3/forecast'] }, // テンキX 天気予報 API, StormTrack Weather Forecast
  { endpoint: 'catalog', kind: 'katakana', q: 'ホンヤク', expect: ['https://api.honyaku-gate.jp/v1/translate', 'https://api.lingo402.com/v1/documents/translate'] }, // ほんやくゲート 翻訳 API, Lingo402 Document Translation
  { endpoint: 'catalog', kind: 'katakana', q: 'ジオコーディング', expect: ['https://api.jusho-navi.jp/v1/zipcode', 'https://api.geopin.dev/v1/geocode'] }, // 住所ナビ 郵便番号・住所検索 API, GeoPin Geocoding
  { endpoint: 'intent', kind: 'katakana', q: 'ニュース', expect: ['https://api.news-digest.jp/v1/headlines', 'https://api.headlinehub.news/v2/headlines', 'https://api.tekiji-watch.jp/v1/disclosures'] }, // ニュースダイジェストJP, Headline Hub News Headlines, 適時開示ウォッチ
  { endpoint: 'list', kind: 'katakana', q: 'ホテル', expect: ['https://api.stayfinder.travel/v1/hotels/search', 'https://api.yukemuri-yado.jp/v1/vacancy'] }, // StayFinder Hotel Search, ゆけむり 温泉宿 空室検索 API
  // halfwidth
  { endpoint: 'catalog', kind: 'halfwidth', q: 'ﾃﾝｷ', expect: ['https://api.tenki-x402.jp/v1/forecast', 'https://api.stormtrack.io/v3/forecast'] }, // テンキX 天気予報 API, StormTrack Weather Forecast
  { endpoint: 'catalog', kind: 'halfwidth', q: 'ﾚｼﾋﾟ', expect: ['https://api.kyou-no-kondate.jp/v1/recipes'] }, // きょうの献立 レシピ API
  { endpoint: 'catalog', kind: 'halfwidth', q: 'ｽｸﾚｲﾋﾟﾝｸﾞ', expect: ['https://api.ec-price.jp/v1/search', 'https://api.scraperelay.com/v1/scrape'] }, // ECプライス収集 API, ScrapeRelay Web Scraping
  { endpoint: 'intent', kind: 'halfwidth', q: 'ﾎﾃﾙを探して', expect: ['https://api.stayfinder.travel/v1/hotels/search', 'https://api.yukemuri-yado.jp/v1/vacancy'] }, // StayFinder Hotel Search, ゆけむり 温泉宿 空室検索 API
  { endpoint: 'intent', kind: 'halfwidth', q: 'ｶﾌﾞｶを知りたい', expect: ['https://api.kabuka-sokuho.jp/v1/quotes', 'https://api.tickertape.dev/v1/quote'] }, // カブカ速報 株価 API, TickerTape Stock Quotes
  // compound
  { endpoint: 'catalog', kind: 'compound', q: '音声認識', expect: ['https://api.koelog.jp/v1/stream/recognize', 'https://api.whisperline.io/v1/transcribe'] }, // こえログ リアルタイム音声認識, Whisperline Speech to Text
  { endpoint: 'catalog', kind: 'compound', q: '画像生成', expect: ['https://api.egaki-ai.jp/v1/images/generate', 'https://api.promptcanvas.ai/v1/generate'] }, // えがきAI 画像生成, Promptcanvas Image Generation
  { endpoint: 'catalog', kind: 'compound', q: '郵便番号検索', expect: ['https://api.jusho-navi.jp/v1/zipcode', 'https://api.postalcode.world/v1/lookup'] }, // 住所ナビ 郵便番号・住所検索 API, PostalCode World
  { endpoint: 'catalog', kind: 'compound', q: '経費精算', expect: ['https://api.receipt-ocr.jp/v1/scan'] }, // レシートOCR 経費精算 API
  { endpoint: 'intent', kind: 'compound', q: '音声合成', expect: ['https://api.yomiage-kun.jp/v2/tts', 'https://tts.voicecraft.app/v1/synthesize'] }, // よみあげ君 音声合成 API, VoiceCraft Text-to-Speech
  { endpoint: 'intent', kind: 'compound', q: '機械翻訳', expect: ['https://api.honyaku-gate.jp/v1/translate', 'https://api.lingo402.com/v1/documents/translate'] }, // ほんやくゲート 翻訳 API, Lingo402 Document Translation
  // mixed
  { endpoint: 'catalog', kind: 'mixed', q: 'OCR 画像', expect: ['https://ocr.docscan.cloud/v1/extract', 'https://api.receipt-ocr.jp/v1/scan'] }, // DocScan OCR, レシートOCR 経費精算 API
  { endpoint: 'catalog', kind: 'mixed', q: 'SMS 認証', expect: ['https://api.tsuuchitto.jp/v1/sms/verify', 'https://api.texthop.co/v1/sms'] }, // つうちっと SMS認証 API, TextHop SMS
  { endpoint: 'catalog', kind: 'mixed', q: 'IP 位置情報', expect: ['https://api.iplocate.net/v1/lookup'] }, // IPLocate
  { endpoint: 'catalog', kind: 'mixed', q: 'NFT メタデータ', expect: ['https://api.nftmeta.tools/v1/metadata'] }, // NFT Metadata Resolver
  { endpoint: 'intent', kind: 'mixed', q: 'PDFを翻訳したい', expect: ['https://api.lingo402.com/v1/documents/translate'] }, // Lingo402 Document Translation
  { endpoint: 'intent', kind: 'mixed', q: 'QRコードを作りたい', expect: ['https://api.qr-sakusei.jp/v1/qrcode'] }, // QRコード作成 API
  // conversational-en
  { endpoint: 'intent', kind: 'conversational-en', q: 'I want to find an API that converts speech to text please', expect: ['https://api.whisperline.io/v1/transcribe', 'https://api.koelog.jp/v1/stream/recognize'] }, // Whisperline Speech to Text, こえログ リアルタイム音声認識
  { endpoint: 'intent', kind: 'conversational-en', q: 'Could you recommend a service to send SMS verification codes?', expect: ['https://api.tsuuchitto.jp/v1/sms/verify', 'https://api.texthop.co/v1/sms'] }, // つうちっと SMS認証 API, TextHop SMS
  { endpoint: 'intent', kind: 'conversational-en', q: 'I need something that tells me the weather forecast for tomorrow', expect: ['https://api.stormtrack.io/v3/forecast', 'https://api.tenki-x402.jp/v1/forecast'] }, // StormTrack Weather Forecast, テンキX 天気予報 API
  { endpoint: 'intent', kind: 'conversational-en', q: 'Hi, can you help me find a hotel booking API?', expect: ['https://api.stayfinder.travel/v1/hotels/search', 'https://api.yukemuri-yado.jp/v1/vacancy'] }, // StayFinder Hotel Search, ゆけむり 温泉宿 空室検索 API
  { endpoint: 'intent', kind: 'conversational-en', q: 'I\'m looking for an API to remove the background from product photos', expect: ['https://api.backdroperaser.com/v1/remove-background'] }, // Backdrop Eraser
  { endpoint: 'intent', kind: 'conversational-en', q: 'Please show me the latest news headlines', expect: ['https://api.headlinehub.news/v2/headlines', 'https://api.news-digest.jp/v1/headlines'] }, // Headline Hub News Headlines, ニュースダイジェストJP
  // synonym
  { endpoint: 'catalog', kind: 'synonym', q: 'stock price', expect: ['https://api.kabuka-sokuho.jp/v1/quotes', 'https://api.tickertape.dev/v1/quote'] }, // カブカ速報 株価 API, TickerTape Stock Quotes
  { endpoint: 'catalog', kind: 'synonym', q: 'forex', expect: ['https://fx.kawase-rate.jp/api/v1/rates'] }, // 為替レートJP
  { endpoint: 'catalog', kind: 'synonym', q: 'zipcode', expect: ['https://api.jusho-navi.jp/v1/zipcode', 'https://api.postalcode.world/v1/lookup'] }, // 住所ナビ 郵便番号・住所検索 API, PostalCode World
  { endpoint: 'catalog', kind: 'synonym', q: '電子メール', expect: ['https://api.mailbolt.email/v1/send'] }, // MailBolt Email Delivery
  { endpoint: 'catalog', kind: 'synonym', q: '仮想通貨', expect: ['https://api.tokenticker.xyz/v1/price', 'https://api.onchain-soneki.jp/v1/report'] }, // TokenTicker Crypto Price, オンチェーン損益レポート
  { endpoint: 'intent', kind: 'synonym', q: 'スクショ', expect: ['https://api.shotapi.dev/v1/capture'] }, // ShotAPI Screenshot & PDF
  { endpoint: 'intent', kind: 'synonym', q: '株式の値段を知りたい', expect: ['https://api.kabuka-sokuho.jp/v1/quotes', 'https://api.tickertape.dev/v1/quote'] }, // カブカ速報 株価 API, TickerTape Stock Quotes
  { endpoint: 'list', kind: 'synonym', q: 'recipe', expect: ['https://api.kyou-no-kondate.jp/v1/recipes'] }, // きょうの献立 レシピ API
]

export default relevanceCases
