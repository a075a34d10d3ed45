/**
 * A stream of distinct search queries drawn from the catalog's own text, so no cache can
 * answer a repeat: English words, 1- and 2-typo variants, prefixes, multi-word queries,
 * Japanese words, and whole requests in Japanese and English. Deterministic from a seed.
 */
import type { SeedEntry } from './generate.js'
import { prng } from './generate.js'

export const QUERY_KINDS = ['english', 'typo1', 'typo2', 'prefix', 'multi-word', 'japanese', 'ja-sentence', 'en-sentence'] as const
export type QueryKind = typeof QUERY_KINDS[number]
/** Kinds asked as keywords (catalog search, list ?query=); the rest are requests (intent search). */

const LETTERS = 'abcdefghijklmnopqrstuvwxyz'
const JAPANESE_RUN = /[\p{Script=Han}\p{Script=Katakana}ー]{2,6}/gu

/** One typo inside `word` (never its first letter): a substitution, a deletion or a transposition. */
function typo (word: string, random: () => number): string {
  const chars = [...word]
  const i = 1 + Math.floor(random() * (chars.length - 2))
  const roll = random()
  const letters = [...LETTERS].filter((c) => c !== chars[i])
  if (roll < 0.4) chars[i] = letters[Math.floor(random() * letters.length)] as string
  else if (roll < 0.7) chars.splice(i, 1)
  else [chars[i], chars[i + 1]] = [chars[i + 1] as string, chars[i] as string]
  return chars.join('')
}

export function queryStream (entries: readonly SeedEntry[], perKind: number, seed = 11): Map<QueryKind, string[]> {
  const random = prng(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T
  const english = new Set<string>()
  const japanese = new Set<string>()
  for (const entry of entries.slice(0, 5000)) {
    for (const word of `${entry.name} ${entry.description}`.toLowerCase().split(/[^a-z]+/)) if (word.length >= 4) english.add(word)
    for (const run of `${entry.name} ${entry.description}`.matchAll(JAPANESE_RUN)) japanese.add(run[0])
  }
  const words = [...english]
  const long = (min: number, max = Infinity): string[] => words.filter((w) => w.length >= min && w.length <= max)
  const jaWords = [...japanese]
  const edit = (word: string): string => typo(word, random)
  const makers: Record<QueryKind, () => string> = {
    english: () => pick(words),
    typo1: () => edit(pick(long(5, 8))),
    typo2: () => edit(edit(pick(long(9)))),
    prefix: () => { const w = pick(long(6)); return w.slice(0, 3 + Math.floor(random() * (w.length - 4))) },
    'multi-word': () => Array.from({ length: 2 + Math.floor(random() * 2) }, () => pick(words)).join(' '),
    japanese: () => pick(jaWords),
    'ja-sentence': () => pick([
      (a: string, b: string) => `${a}を探しています`,
      (a: string, b: string) => `${a}と${b}ができるAPIが欲しい`,
      (a: string, b: string) => `東京の${a}について教えてください`,
      (a: string, b: string) => `${a}の${b}を調べたい`
    ])(pick(jaWords), pick(jaWords)),
    'en-sentence': () => pick([
      (a: string, b: string) => `I want to find an API for ${a} and ${b} please`,
      (a: string, b: string) => `looking for a ${a} service that does ${b}`,
      (a: string, b: string) => `which api can ${a} my ${b}`
    ])(pick(words), pick(words))
  }
  const stream = new Map<QueryKind, string[]>()
  const seen = new Set<string>()
  for (const kind of QUERY_KINDS) {
    const queries: string[] = []
    for (let attempt = 0; queries.length < perKind && attempt < perKind * 50; attempt++) {
      const q = makers[kind]()
      if (q.length < 2 || q.length > 200 || seen.has(q)) continue
      seen.add(q)
      queries.push(q)
    }
    stream.set(kind, queries)
  }
  return stream
}

export const LIST_SORTS = ['price', 'trustScore', 'name', 'createdAt'] as const

/**
 * 300 distinct list URLs: a random price bound from 0.000001 to ~5 USDC (log-uniform), each
 * sort field in turn, a random offset up to 5,000 (a quarter of small catalogs).
 */
export function listPaths (n: number, random: () => number): string[] {
  return Array.from({ length: 300 }, (_, i) => `/api/services?maxPricePerRequest=${Math.max(0.000001, 10 ** (random() * 6.7 - 6)).toFixed(6)}&sortBy=${LIST_SORTS[i % 4] as string}&offset=${Math.floor(random() * Math.min(5000, n / 4))}&limit=20`)
}

/**
 * The shapes people type (issue 19), each asked through the endpoint that serves it:
 * common single words, 2–3 common-word combinations, typos and prefixes of common words,
 * common Japanese words, the catalog's rare (brand-like) words, requests in English and
 * Japanese built from common words ("looking for weather and data", 天気を検索したい), and
 * bilingual keywords (issue 37): two or three words mixing common English words and Japanese
 * compounds ("flight 予約 hotel"), in random order.
 * "Common" is by document frequency in the generated catalog: the words that match
 * thousands of services at 100k, where ranking costs the most.
 */
export const SHAPES = ['common-word', 'common-2-3', 'typo', 'prefix', 'japanese', 'rare-word', 'en-sentence', 'ja-sentence', 'mixed'] as const
export type Shape = typeof SHAPES[number]
export const INTENT_SHAPES: readonly Shape[] = ['en-sentence', 'ja-sentence']
/** The common-word stream: every shape except the rare words (and the mixed shape, newer than the stream's figures). */
export const COMMON_SHAPES: readonly Shape[] = SHAPES.filter((shape) => shape !== 'rare-word' && shape !== 'mixed')

const STOP_WORDS = new Set(['and', 'the', 'for', 'with', 'from', 'into', 'any', 'per', 'via', 'its', 'your', 'that', 'this', 'are', 'all', 'one', 'other', 'than', 'each', 'can', 'over', 'more', 'their', 'them', 'you', 'not', 'has', 'have', 'will', 'also', 'only', 'most', 'such', 'when', 'who', 'our'])

/** The `count` most frequent words (by services containing them) matching `pattern`. */
function frequent (entries: readonly SeedEntry[], words: (text: string) => Iterable<string>, count: number): string[] {
  const df = new Map<string, number>()
  for (const entry of entries) for (const word of new Set(words(`${entry.name} ${entry.description}`))) df.set(word, (df.get(word) ?? 0) + 1)
  return [...df].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, count).map(([word]) => word)
}

export function shapeStream (entries: readonly SeedEntry[], perShape: number, seed = 13): Map<Shape, string[]> {
  const random = prng(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T
  const sample = entries.slice(0, 5000)
  const english = frequent(sample, (text) => text.toLowerCase().split(/[^a-z]+/).filter((w) => w.length >= 3 && !STOP_WORDS.has(w)), 80)
  const japanese = frequent(sample, (text) => [...text.matchAll(JAPANESE_RUN)].map((m) => m[0]).filter((w) => [...w].length <= 4), 60)
  const rare = queryStream(entries, perShape, seed + 1).get('english') as string[]
  const distinct = (count: number): string[] => {
    const words = new Set<string>()
    while (words.size < count) words.add(pick(english))
    return [...words]
  }
  const edit = (word: string): string => typo(word, random)
  const makers: Record<Shape, () => string> = {
    'common-word': () => pick(english),
    'common-2-3': () => distinct(2 + Math.floor(random() * 2)).join(' '),
    typo: () => edit(pick(english.filter((w) => w.length >= 5))),
    prefix: () => { const w = pick(english.filter((w) => w.length >= 5)); return w.slice(0, 3 + Math.floor(random() * (w.length - 4))) },
    japanese: () => pick(japanese),
    'rare-word': () => pick(rare),
    'en-sentence': () => { const [a, b] = distinct(2) as [string, string]; return pick([`looking for ${a} and ${b}`, `I need an API for ${a} ${b}`, `which service can do ${a} with ${b}`, `${a} ${b} api please`]) },
    'ja-sentence': () => { const a = pick(japanese); const b = pick(japanese); return pick([`${a}を検索したい`, `${a}と${b}ができるAPIが欲しい`, `${a}の${b}を調べたい`, `${a}を探しています`]) },
    mixed: () => {
      const [a, b] = distinct(2) as [string, string]
      const words = random() < 0.5 ? [a, pick(japanese)] : [a, pick(japanese), b]
      return words.sort(() => random() - 0.5).join(' ')
    }
  }
  const stream = new Map<Shape, string[]>()
  for (const shape of SHAPES) stream.set(shape, Array.from({ length: perShape }, () => makers[shape]()))
  return stream
}
