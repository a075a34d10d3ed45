/**
 * Relevance cases for search across scripts and languages, against the generated catalog
 * (bench/generate.ts): every listing there is one of a category's topics, written in English
 * or in Japanese, endpoint ending in the topic's path. A case names the topic it asks for and
 * the language of the listings that answer it:
 * - 'ja-en': a Japanese query whose answers are the topic's English listings (so only the
 *   lexicon can connect them: the Japanese listings of the topic do not count);
 * - 'en-ja': the other way round;
 * - 'romaji': a query in romaji, answered by the topic's listings in either language.
 * Everything else in the catalog is a distractor. Queries are what a person would type; they
 * were written before the lexicon's last additions were tuned and are not tuned to it.
 */
export type LanguageKind = 'ja-en' | 'en-ja' | 'romaji'

export interface LanguageCase {
  kind: LanguageKind
  /** catalog: keyword search (GET /api/catalog/search); intent: a request (GET /api/services/search/intent). */
  style: 'keywords' | 'intent'
  q: string
  category: string
  /** Endpoint paths (the topic's last path segments) of the acceptable topics. */
  paths: string[]
}

const c = (kind: LanguageKind, q: string, category: string, paths: string | string[], style: 'keywords' | 'intent' = 'keywords'): LanguageCase =>
  ({ kind, style, q, category, paths: Array.isArray(paths) ? paths : [paths] })

export const LANGUAGE_KINDS: readonly LanguageKind[] = ['ja-en', 'en-ja', 'romaji']

export const languageCases: LanguageCase[] = [
  // Japanese queries, English answers
  c('ja-en', '天気予報', 'weather', 'forecast'),
  c('ja-en', '雨雲レーダー', 'weather', 'radar'),
  c('ja-en', '過去の気象データ', 'weather', 'history', 'intent'),
  c('ja-en', '株価', 'finance', 'quotes'),
  c('ja-en', '為替レート', 'finance', 'fx'),
  c('ja-en', '企業の財務データが欲しい', 'finance', 'financials', 'intent'),
  c('ja-en', 'トークン価格', 'crypto-web3', 'prices'),
  c('ja-en', 'ウォレット分析', 'crypto-web3', 'wallets'),
  c('ja-en', 'ジオコーディング', 'maps-geo', 'geocode'),
  c('ja-en', '住所を緯度経度に変換したい', 'maps-geo', 'geocode', 'intent'),
  c('ja-en', 'ルート検索', 'maps-geo', 'route'),
  c('ja-en', '周辺スポット検索', 'maps-geo', 'places'),
  c('ja-en', 'ウェブ検索', 'search-scraping', 'search'),
  c('ja-en', 'スクレイピング', 'search-scraping', 'scrape'),
  c('ja-en', '価格比較', 'search-scraping', 'prices'),
  c('ja-en', '郵便番号検索', 'data-lookup', 'postal'),
  c('ja-en', '法人番号', 'data-lookup', 'companies'),
  c('ja-en', 'メールアドレス検証', 'data-lookup', 'validate-email'),
  c('ja-en', 'ショートメッセージ送信', 'communication', 'sms'),
  c('ja-en', 'メール配信', 'communication', 'email'),
  c('ja-en', 'プッシュ通知', 'communication', 'push'),
  c('ja-en', 'スクリーンショット', 'developer-tools', 'screenshot'),
  c('ja-en', 'コード実行', 'developer-tools', 'run'),
  c('ja-en', 'オブジェクトストレージ', 'storage', 'objects'),
  c('ja-en', 'アーカイブ保存', 'storage', 'archive'),
  c('ja-en', 'マルウェア検査', 'security', 'scan'),
  c('ja-en', '不正検知', 'security', 'fraud'),
  c('ja-en', '本人確認', 'security', 'kyc'),
  c('ja-en', '航空券検索', 'travel', 'flights'),
  c('ja-en', '乗換案内', 'travel', 'transit'),
  c('ja-en', 'ホテルの空室を調べたい', 'travel', 'hotels', 'intent'),
  c('ja-en', 'レシピ検索', 'food', 'recipes'),
  c('ja-en', '栄養成分', 'food', 'nutrition'),
  c('ja-en', '近くの飲食店を探したい', 'food', 'restaurants', 'intent'),
  c('ja-en', 'ニュース配信', 'news', 'headlines'),
  c('ja-en', 'メディアモニタリング', 'news', 'mentions'),
  c('ja-en', '記事分類', 'news', 'classify'),
  c('ja-en', '雑学', 'other', 'facts'),
  c('ja-en', '占い', 'other', 'horoscope'),
  c('ja-en', '祝日カレンダー', 'other', 'holidays'),
  c('ja-en', '要約', 'ai-llm', 'summarize'),
  c('ja-en', '埋め込みベクトル', 'ai-llm', 'embeddings'),
  c('ja-en', '感情分析', 'ai-llm', 'sentiment'),
  c('ja-en', '画像生成', 'image', 'generate'),
  c('ja-en', '文字認識', 'image', 'ocr'),
  c('ja-en', '背景除去', 'image', 'remove-background'),
  c('ja-en', '物体検出', 'image', 'detect'),
  c('ja-en', '文字起こし', 'speech-audio', 'transcribe'),
  c('ja-en', '音声合成', 'speech-audio', 'tts'),
  c('ja-en', 'ノイズ除去', 'speech-audio', 'denoise'),
  c('ja-en', '翻訳', 'translation', 'translate'),
  c('ja-en', '言語判定', 'translation', 'detect-language'),
  c('ja-en', '敬語チェック', 'translation', 'proofread'),
  c('ja-en', 'てんきよほう', 'weather', 'forecast'),
  c('ja-en', 'ほんやく', 'translation', 'translate'),
  // English queries, Japanese answers
  c('en-ja', 'weather forecast', 'weather', 'forecast'),
  c('en-ja', 'rain radar', 'weather', 'radar'),
  c('en-ja', 'stock quotes', 'finance', 'quotes'),
  c('en-ja', 'exchange rates', 'finance', 'fx'),
  c('en-ja', 'company financial statements', 'finance', 'financials'),
  c('en-ja', 'token prices', 'crypto-web3', 'prices'),
  c('en-ja', 'wallet analytics', 'crypto-web3', 'wallets'),
  c('en-ja', 'geocoding', 'maps-geo', 'geocode'),
  c('en-ja', 'route planning', 'maps-geo', 'route'),
  c('en-ja', 'web search', 'search-scraping', 'search'),
  c('en-ja', 'scraping', 'search-scraping', 'scrape'),
  c('en-ja', 'postal code lookup', 'data-lookup', 'postal'),
  c('en-ja', 'company registry', 'data-lookup', 'companies'),
  c('en-ja', 'email address validation', 'data-lookup', 'validate-email'),
  c('en-ja', 'push notifications', 'communication', 'push'),
  c('en-ja', 'screenshot', 'developer-tools', 'screenshot'),
  c('en-ja', 'run code in a sandbox', 'developer-tools', 'run', 'intent'),
  c('en-ja', 'object storage', 'storage', 'objects'),
  c('en-ja', 'malware scan', 'security', 'scan'),
  c('en-ja', 'fraud detection', 'security', 'fraud'),
  c('en-ja', 'identity verification', 'security', 'kyc'),
  c('en-ja', 'flight search', 'travel', 'flights'),
  c('en-ja', 'train transfers', 'travel', 'transit'),
  c('en-ja', 'hotel availability', 'travel', 'hotels'),
  c('en-ja', 'recipe search', 'food', 'recipes'),
  c('en-ja', 'nutrition facts', 'food', 'nutrition'),
  c('en-ja', 'news headlines', 'news', 'headlines'),
  c('en-ja', 'horoscope', 'other', 'horoscope'),
  c('en-ja', 'public holidays', 'other', 'holidays'),
  c('en-ja', 'I want to summarize long articles', 'ai-llm', 'summarize', 'intent'),
  c('en-ja', 'sentiment analysis', 'ai-llm', 'sentiment'),
  c('en-ja', 'image generation', 'image', 'generate'),
  c('en-ja', 'background removal', 'image', 'remove-background'),
  c('en-ja', 'speech to text', 'speech-audio', 'transcribe'),
  c('en-ja', 'text to speech', 'speech-audio', 'tts'),
  c('en-ja', 'machine translation', 'translation', 'translate'),
  c('en-ja', 'language detection', 'translation', 'detect-language'),
  c('en-ja', 'trivia', 'other', 'facts'),
  // Romaji
  c('romaji', 'tenki yohou', 'weather', 'forecast'),
  c('romaji', 'tenki yohoo', 'weather', 'forecast'),
  c('romaji', 'honyaku', 'translation', 'translate'),
  c('romaji', "hon'yaku", 'translation', 'translate'),
  c('romaji', 'kabuka', 'finance', 'quotes'),
  c('romaji', 'kawase', 'finance', 'fx'),
  c('romaji', 'youyaku', 'ai-llm', 'summarize'),
  c('romaji', 'gazou seisei', 'image', 'generate'),
  c('romaji', 'haikei jokyo', 'image', 'remove-background'),
  c('romaji', 'moji ninshiki', 'image', 'ocr'),
  c('romaji', 'onsei gousei', 'speech-audio', 'tts'),
  c('romaji', 'mojiokoshi', 'speech-audio', 'transcribe'),
  c('romaji', 'yuubin bangou', 'data-lookup', 'postal'),
  c('romaji', 'houjin bangou', 'data-lookup', 'companies'),
  c('romaji', 'norikae annai', 'travel', 'transit'),
  c('romaji', 'koukuuken', 'travel', 'flights'),
  c('romaji', 'reshipi', 'food', 'recipes'),
  c('romaji', 'eiyou seibun', 'food', 'nutrition'),
  c('romaji', 'inshokuten', 'food', 'restaurants'),
  c('romaji', 'nyuusu haishin', 'news', 'headlines'),
  c('romaji', 'sukureipingu', 'search-scraping', 'scrape'),
  c('romaji', 'sukuriinshotto', 'developer-tools', 'screenshot'),
  c('romaji', 'fusei kenchi', 'security', 'fraud'),
  c('romaji', 'honnin kakunin', 'security', 'kyc'),
  c('romaji', 'uranai', 'other', 'horoscope'),
  c('romaji', 'zatsugaku', 'other', 'facts'),
  c('romaji', 'shukujitsu', 'other', 'holidays'),
  c('romaji', 'kanjou bunseki', 'ai-llm', 'sentiment'),
  c('romaji', 'amagumo reedaa', 'weather', 'radar'),
  c('romaji', 'noizu jokyo', 'speech-audio', 'denoise'),
  c('romaji', 'keigo', 'translation', 'proofread')
]
