/**
 * Constraints people type into a search ("cheap weather API on solana", "0.01ドル以下の翻訳",
 * "verified OCR under $0.005"): price limits, cheapness, payment network and status, in
 * English and Japanese. Pure functions over the text: they find the phrases, say what they
 * mean as list filters, and hand back the text without them for the text search.
 * docs/search.md ("Constraints in the query") lists the rules.
 */
import type { SortField } from '../domain/catalog-query.js'
import { findCurrency, formatAtomic, parseUpperBound } from '../domain/money.js'
import { NETWORKS, resolveNetwork } from '../domain/networks.js'
import type { ServiceStatus } from '../domain/trust.js'
import { normalizeText } from './analysis/normalize.js'

/** What the text asked for, in the list API's terms (the values its query parameters take). */
export interface ParsedFilters {
  /** Inclusive upper bound in USDC, as a decimal string ("0.01"). */
  maxPricePerRequest?: string
  /** CAIP-2 id of the payment network. */
  chain?: string
  status?: ServiceStatus
  /** Order asked for ("cheap" → price, cheapest first). */
  sortBy?: SortField
}

export interface ParsedQuery {
  /** The normalized text with the constraint phrases taken out: what the text search looks for. */
  text: string
  filters: ParsedFilters
  /** The phrases taken out, in text order, as normalized. */
  removed: string[]
}

const USDC_DECIMALS = (findCurrency('USDC') as { decimals: number }).decimals

// Word edges for Latin words (\b knows only ASCII letters).
const B = '(?<![\\p{L}\\p{N}])'
const E = '(?![\\p{L}\\p{N}])'
const NUM = '(\\d+(?:\\.\\d+)?|\\.\\d+)'
// A following Japanese particle belongs to the constraint ("0.01ドル以下の翻訳" → "翻訳").
const JA_PARTICLE = '(?:\\s?(?:の|で|が|を|に|は|な|から))?'

// ---- Prices ----

/** Units a bare number after "under" may be counting instead of money ("under 5 seconds"). */
const NOT_MONEY = '(?!\\s?(?:ms|s|sec|secs|seconds?|min|mins|minutes?|hours?|h|days?|kb|mb|gb|tb|tokens?|words?|chars?|characters?|pages?|results?|items?|lines?|px|%|k|m|x|times)' + E + ')'
const N = `(?<![\\d.])${NUM}`
/** An amount: $0.01, 0.01 usdc, 0.01ドル, 1 cent, 1セント, a penny, or a bare number. */
const AMOUNT = `(?:\\$\\s?${NUM}|${N}\\s?(?:cents?${E}|¢|セント)|${N}\\s?(?:(?:usdc|usd|dollars?)${E}|米ドル|ドル|\\$)|${B}(?:a|one)\\s(?:cent|penny)${E}|${N}(?![\\d.\\p{Script=Latin}])${NOT_MONEY})`
const PER_REQUEST = `(?:\\s?(?:per|/|a|an|each)\\s?(?:request|req|call|query|use)${E})?`
const EN_BELOW = '(?:under|below|less\\sthan|cheaper\\sthan|lower\\sthan|at\\smost|up\\sto|no\\smore\\sthan|not\\smore\\sthan|max(?:imum)?|within|<=?|≤|≦)'
const EN_LEAD = `(?:${B}(?:for|at|priced|costing|costs?|that\\scosts?|price|pricing)\\s)?`
const EN_AFTER = `(?:or\\s(?:less|under|below|cheaper)|max(?:imum)?|at\\smost|and\\s(?:under|below))${E}`
const JA_LEAD = '(?:1?(?:リクエスト|回|コール|件)(?:あたり|当たり|につき)?\\s?)?'
const JA_BELOW = '(?:以下|未満|まで|以内|より安い|より安く|を下回る)'
const JA_CAP = '(?:最大|上限|最高)'

const PRICE_RULES: RegExp[] = [
  new RegExp(`${EN_LEAD}${B}${EN_BELOW}\\s?${AMOUNT}${PER_REQUEST}`, 'gu'),
  new RegExp(`${B}${AMOUNT}${PER_REQUEST}\\s?${EN_AFTER}`, 'gu'),
  new RegExp(`${JA_LEAD}${AMOUNT}\\s?${JA_BELOW}${JA_PARTICLE}`, 'gu'),
  new RegExp(`${JA_LEAD}${JA_CAP}\\s?${AMOUNT}${JA_PARTICLE}`, 'gu')
]

/** The bound a matched price phrase names, as a USDC decimal string, or undefined when it names none. */
export function priceOf (phrase: string): string | undefined {
  // "1回0.001ドル以下": the 1 counts requests, not money.
  const number = /\d+(?:\.\d+)?|\.\d+/.exec(phrase.replace(/^1(?=\s?(?:リクエスト|回|コール|件))/u, ''))?.[0]
  const cents = /cent|¢|セント|penny/.test(phrase)
  const value = number === undefined ? (cents ? '1' : undefined) : number.startsWith('.') ? `0${number}` : number
  if (value === undefined) return undefined
  // A cent is 10^4 atomic units of a 6-decimal currency: read the number with 4 decimals.
  const bound = parseUpperBound(value, cents ? USDC_DECIMALS - 2 : USDC_DECIMALS)
  if (!bound.ok) return undefined
  return formatAtomic(Math.min(bound.atomic, Number.MAX_SAFE_INTEGER), USDC_DECIMALS)
}

// ---- Cheapness and "free" ----

const CHEAP_RULES: RegExp[] = [
  new RegExp(`${B}(?:the\\s|very\\s|most\\s)?(?:cheapest|cheaper|cheap|inexpensive|affordable|low[-\\s]?cost|low[-\\s]?priced?|lowest[-\\s]?priced?|lowest\\scost)${E}`, 'gu'),
  new RegExp(`${B}(?:sort(?:ed)?|order(?:ed)?)\\sby\\s(?:the\\s)?(?:lowest\\s)?(?:price|cost)${E}`, 'gu'),
  // "free": every listed x402 service charges (a price > 0 is a registration rule), so a free
  // tier cannot be a price bound; it is read as "cheapest first".
  new RegExp(`${B}(?:(?:with\\s|has\\s|having\\s)?(?:an?\\s)?free\\s(?:tier|plan|quota|trial|calls|requests|usage)|for\\sfree|free\\sof\\scharge|free(?=\\s(?:apis?|services?|endpoints?)${E}))${E}`, 'gu'),
  new RegExp(`(?:一番|いちばん|最も|もっとも|なるべく|できるだけ|より)?(?:安い|安く|安め|安価|格安|最安値?|激安|低価格|低コスト|お手頃|手頃|リーズナブル|(?<![\\p{Script=Hiragana}])やすい|無料枠|無料プラン|無料|無償)(?:価格)?${JA_PARTICLE}`, 'gu')
]

// ---- Status ----

const STATUS_RULES: Array<[RegExp, ServiceStatus]> = [
  [new RegExp(`${B}(?:only\\s)?unverified(?:\\sonly)?${E}`, 'gu'), 'unverified'],
  [new RegExp(`${B}(?:only\\s)?verified(?:\\sonly)?${E}`, 'gu'), 'verified'],
  [new RegExp(`未検証${JA_PARTICLE}`, 'gu'), 'unverified'],
  [new RegExp(`(?:検証済み?|動作確認済み?|確認済み)${JA_PARTICLE}`, 'gu'), 'verified']
]

// ---- Networks ----

/** Names people use beyond the x402 names, per network (v1 name or CAIP-2 id). */
const EXTRA_NAMES: Record<string, { en?: string[], ja?: string[] }> = {
  ethereum: { en: ['eth', 'ethereum mainnet'], ja: ['イーサリアム', 'イーサ'] },
  base: { ja: ['ベース'] },
  'base-sepolia': { ja: ['ベースセポリア', 'ベース セポリア'] },
  solana: { en: ['sol'], ja: ['ソラナ'] },
  'solana-devnet': { ja: ['ソラナデブネット'] },
  polygon: { en: ['matic', 'polygon pos'], ja: ['ポリゴン'] },
  avalanche: { en: ['avax', 'avalanche c-chain'], ja: ['アバランチ', 'アバランチェ'] },
  sepolia: { ja: ['セポリア'] },
  'eip155:42161': { en: ['arbitrum', 'arbitrum one'], ja: ['アービトラム'] },
  'eip155:421614': { en: ['arbitrum sepolia'] },
  celo: { ja: ['セロ'] },
  sei: { ja: ['セイ'] }
}

/**
 * Names that are also ordinary words ("knowledge base", "story generation", "stable diffusion",
 * "abstract summarization", "sol"): a chain only with a word saying so ("on base", "base
 * network", "Base で", "ベースチェーン").
 */
const AMBIGUOUS = new Set(['base', 'story', 'stable', 'abstract', 'flare', 'sei', 'monad', 'sol', 'mainnet', 'ベース', 'セイ', 'セロ', 'イーサ'])

interface NetworkName { name: string, id: string }

function networkNames (): NetworkName[] {
  const names: NetworkName[] = []
  const add = (name: string, id: string): void => { names.push({ name: normalizeText(name), id }) }
  for (const network of NETWORKS) {
    if (network.v1Name === null) continue
    add(network.v1Name, network.id)
    if (network.v1Name.includes('-')) add(network.v1Name.replaceAll('-', ' '), network.id)
  }
  for (const [key, extra] of Object.entries(EXTRA_NAMES)) {
    const network = resolveNetwork(key)
    if (network === undefined) continue
    for (const name of [...(extra.en ?? []), ...(extra.ja ?? [])]) add(name, network.id)
  }
  // Longest first: "base sepolia" before "base".
  return names.sort((a, b) => b.name.length - a.name.length)
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s?')
const KATAKANA_EDGE = '[\\p{Script=Katakana}ー]'
const EN_BEFORE = '(?:on|via|over|using|through|in|with|accepting|accepts|pay(?:ing|s)?\\s(?:on|with|in|via))\\s(?:the\\s)?'
const EN_AFTER_NET = '\\s(?:network|chain|mainnet|blockchain)'
// "ソラナで使える", "Base で支払える": the network is how one pays, so the verb goes with it.
const JA_PAYABLE = '(?:使える|使えます|利用できる|支払える|払える|決済できる)?'
const JA_AFTER_NET = `\\s?(?:チェーン|ネットワーク)?(?:上|対応)?(?:で|の|に|を)?${JA_PAYABLE}`

function networkRule (names: NetworkName[], ambiguous: boolean): RegExp {
  const latin = names.filter((n) => /^[\p{Script=Latin}\d\s.-]+$/u.test(n.name) && AMBIGUOUS.has(n.name) === ambiguous).map((n) => escape(n.name))
  const japanese = names.filter((n) => !/^[\p{Script=Latin}\d\s.-]+$/u.test(n.name) && AMBIGUOUS.has(n.name) === ambiguous).map((n) => escape(n.name))
  const en = `(?:${latin.join('|')})`
  // Whole katakana words only: ベース in データベース is not Base (ベースチェーン is).
  const ja = `(?<!${KATAKANA_EDGE})(?:${japanese.join('|')})(?!(?!チェーン|ネットワーク)${KATAKANA_EDGE})`
  if (!ambiguous) {
    return new RegExp(`(?:${B}${EN_BEFORE})?(?:${B}${en}${E}(?:${EN_AFTER_NET}${E})?(?:\\s(?:で|上|の|に)(?=\\s|[^\\p{Script=Hiragana}]|$))?|${ja}${JA_AFTER_NET})`, 'gu')
  }
  // Said to be a chain: a preposition before, "network"/"chain" after, or a Japanese particle after.
  return new RegExp(`(?:${B}${EN_BEFORE}${en}${E}(?:${EN_AFTER_NET}${E})?|${B}${en}${EN_AFTER_NET}${E}|${B}${en}\\s?(?:チェーン|ネットワーク|上|で)(?:で|の|に)?${JA_PAYABLE}|${ja}\\s?(?:チェーン|ネットワーク|上|で)(?:上)?(?:で|の|に)?${JA_PAYABLE})`, 'gu')
}

const NAMES = networkNames()
const NAME_IDS = new Map(NAMES.map((n) => [n.name, n.id]))
const NETWORK_RULES = [networkRule(NAMES, false), networkRule(NAMES, true)]

/** The network a matched phrase names: its longest known name inside the phrase. */
function networkOf (phrase: string): string | undefined {
  for (const { name } of NAMES) {
    const at = phrase.indexOf(name)
    if (at < 0) continue
    const before = phrase.charAt(at - 1)
    const after = phrase.charAt(at + name.length)
    // Whole names only: "base" inside "database" is not Base.
    if (/[\p{L}\p{N}]/u.test(before) && /[a-z]/.test(name.charAt(0))) continue
    if (/[a-z0-9]/.test(after) && /[a-z0-9]$/.test(name)) continue
    return NAME_IDS.get(name)
  }
  return undefined
}

// ---- The parse ----

/** Connectives left dangling once the constraints around them are gone ("weather and cheap" → "weather"). */
const CONNECTIVES = new Set(['and', 'or', 'for', 'on', 'in', 'at', 'with', 'that', 'which', 'is', 'are', 'the', 'a', 'an', 'but', 'also', 'only', 'も', 'と', 'で', 'の', 'か', 'や'])
/** Text in double quotes or 「」 is what to search for, never a constraint. */
const QUOTED = /"[^"]*"|「[^」]*」/gu

interface Span { start: number, end: number }

/**
 * Finds the constraints in `text`. The first price bound and status win; two different
 * networks name no chain (either will do) but both are taken out of the text.
 */
export function parseConstraints (text: string): ParsedQuery {
  const normalized = normalizeText(text)
  const taken: Span[] = [...normalized.matchAll(QUOTED)].map((m) => ({ start: m.index, end: m.index + m[0].length }))
  const removed: Span[] = []
  const overlaps = (start: number, end: number): boolean => taken.some((s) => start < s.end && s.start < end)

  const claim = (rule: RegExp, on: (phrase: string, start: number) => boolean): void => {
    for (const match of normalized.matchAll(rule)) {
      const phrase = match[0]
      const start = match.index + (phrase.length - phrase.trimStart().length)
      const end = match.index + phrase.trimEnd().length
      if (end <= start || overlaps(start, end)) continue
      if (!on(normalized.slice(start, end), start)) continue
      const span = { start, end }
      taken.push(span)
      removed.push(span)
    }
  }

  const filters: ParsedFilters = {}
  // The first in the text wins, whichever rule found it.
  const prices: Array<[number, string]> = []
  const statuses: Array<[number, ServiceStatus]> = []
  const earliest = <T>(found: Array<[number, T]>): T | undefined => found.sort((a, b) => a[0] - b[0])[0]?.[1]
  for (const rule of PRICE_RULES) {
    claim(rule, (phrase, start) => {
      const price = priceOf(phrase)
      if (price === undefined) return false
      prices.push([start, price])
      return true
    })
  }
  for (const rule of CHEAP_RULES) claim(rule, () => { filters.sortBy = 'price'; return true })
  for (const [rule, status] of STATUS_RULES) claim(rule, (_phrase, start) => { statuses.push([start, status]); return true })
  const price = earliest(prices)
  if (price !== undefined) filters.maxPricePerRequest = price
  const status = earliest(statuses)
  if (status !== undefined) filters.status = status
  const chains = new Set<string>()
  for (const rule of NETWORK_RULES) {
    claim(rule, (phrase) => {
      const id = networkOf(phrase)
      if (id === undefined) return false
      chains.add(id)
      return true
    })
  }
  if (chains.size === 1) filters.chain = [...chains][0] as string

  removed.sort((a, b) => a.start - b.start)
  // Text between the constraints, and the constraints, in order. Connectives a constraint
  // leaves dangling go with it ("weather and cheap" → "weather").
  const out: string[] = []
  const phrases: string[] = []
  let at = 0
  for (let i = 0; i <= removed.length; i++) {
    const span = removed[i]
    const words = normalized.slice(at, span?.start ?? normalized.length).trim().split(/\s+/).filter((w) => w !== '')
    let first = 0
    let last = words.length
    if (i > 0) while (first < last && CONNECTIVES.has(words[first] as string)) first++
    if (span !== undefined) while (last > first && CONNECTIVES.has(words[last - 1] as string)) last--
    if (first > 0) phrases.push(words.slice(0, first).join(' '))
    out.push(...words.slice(first, last))
    if (last < words.length) phrases.push(words.slice(last).join(' '))
    if (span !== undefined) {
      phrases.push(normalized.slice(span.start, span.end))
      at = span.end
    }
  }
  return { text: out.join(' '), filters, removed: phrases }
}
