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
export const KEYWORD_KINDS: readonly QueryKind[] = ['english', 'typo1', 'typo2', 'prefix', 'multi-word', 'japanese']
export const SENTENCE_KINDS: readonly QueryKind[] = ['ja-sentence', 'en-sentence']

const LETTERS = 'abcdefghijklmnopqrstuvwxyz'
const JAPANESE_RUN = /[\p{Script=Han}\p{Script=Katakana}ー]{2,6}/gu

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
  const edit = (word: string): string => {
    const chars = [...word]
    const i = 1 + Math.floor(random() * (chars.length - 2))
    const roll = random()
    if (roll < 0.4) chars[i] = pick([...LETTERS].filter((c) => c !== chars[i]))
    else if (roll < 0.7) chars.splice(i, 1)
    else [chars[i], chars[i + 1]] = [chars[i + 1] as string, chars[i] as string]
    return chars.join('')
  }
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
