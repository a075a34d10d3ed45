/**
 * The catalog's bilingual taxonomy of paid APIs. Kept as data: ids are stable
 * (clients filter by them), names and descriptions may be edited freely.
 */
import { ValidationError } from '../errors.js'
export interface Category {
  id: string
  name: string
  nameJa: string
  description: string
}

export const CATEGORIES: readonly Category[] = [
  { id: 'ai-llm', name: 'AI & LLM', nameJa: 'AI・大規模言語モデル', description: 'Text generation, chat, embeddings, summarization and other model inference.' },
  { id: 'image', name: 'Image & Vision', nameJa: '画像・ビジョン', description: 'Image generation, editing, OCR, object detection and visual analysis.' },
  { id: 'speech-audio', name: 'Speech & Audio', nameJa: '音声・オーディオ', description: 'Speech recognition, text-to-speech, transcription and audio processing.' },
  { id: 'translation', name: 'Translation & Language', nameJa: '翻訳・言語', description: 'Machine translation, language detection and text analysis.' },
  { id: 'weather', name: 'Weather & Climate', nameJa: '天気・気象', description: 'Forecasts, current conditions, historical weather and climate data.' },
  { id: 'finance', name: 'Finance & Markets', nameJa: '金融・マーケット', description: 'Stock prices, FX rates, company data and market analytics.' },
  { id: 'crypto-web3', name: 'Crypto & Web3', nameJa: '暗号資産・Web3', description: 'On-chain data, token prices, wallets, NFTs and blockchain analytics.' },
  { id: 'maps-geo', name: 'Maps & Geo', nameJa: '地図・位置情報', description: 'Geocoding, routing, places and geographic data.' },
  { id: 'search-scraping', name: 'Search & Scraping', nameJa: '検索・スクレイピング', description: 'Web search, crawling, scraping and content extraction.' },
  { id: 'data-lookup', name: 'Data Lookup', nameJa: 'データ照会', description: 'Reference data, company registries, postal codes, enrichment and validation.' },
  { id: 'communication', name: 'Communication', nameJa: 'コミュニケーション', description: 'Email, SMS, push notifications and messaging.' },
  { id: 'developer-tools', name: 'Developer Tools', nameJa: '開発者ツール', description: 'Code execution, CI helpers, screenshots, PDF rendering and utilities.' },
  { id: 'storage', name: 'Storage', nameJa: 'ストレージ', description: 'File, object and data storage, pinning and archiving.' },
  { id: 'security', name: 'Security', nameJa: 'セキュリティ', description: 'Threat intelligence, malware scanning, fraud checks and identity verification.' },
  { id: 'travel', name: 'Travel', nameJa: '旅行・交通', description: 'Flights, hotels, rail and transit information.' },
  { id: 'food', name: 'Food & Recipes', nameJa: 'フード・レシピ', description: 'Recipes, nutrition data, restaurants and menus.' },
  { id: 'news', name: 'News & Media', nameJa: 'ニュース・メディア', description: 'News feeds, headlines, article analysis and media monitoring.' },
  { id: 'other', name: 'Other', nameJa: 'その他', description: 'Paid APIs that fit no other category.' }
]

const CATEGORY_IDS = new Set(CATEGORIES.map((c) => c.id))

export function isCategoryId (id: string): boolean {
  return CATEGORY_IDS.has(id)
}

/** `value` when it is a category id, else a ValidationError naming `field` (registration, lists, export). */
export function requireCategory (field: string, value: string): string {
  if (!isCategoryId(value)) throw new ValidationError(field, `unknown category "${value}"; see GET /api/categories`)
  return value
}
