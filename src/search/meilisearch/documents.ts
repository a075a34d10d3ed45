/**
 * SearchDocument → Meilisearch document, and query words → Meilisearch query text.
 *
 * Japanese recall must not depend on Meilisearch's own segmenter, so each attribute is
 * indexed three ways: the raw text (Meilisearch analyses it itself: English, typos,
 * prefixes), `<attribute>_ja` with the kuromoji output already in the SearchDocument
 * (surfaces, base forms, bigrams of long kanji/katakana runs, space-separated) and
 * `<attribute>_kana` with every reading in hiragana, so a query typed in kana (てんき)
 * meets the kanji word (天気), and `<attribute>_stem` with the stems of its English words
 * (stemOf), so analysis meets analyze. Queries are analysed by the same analyzer (QueryWord)
 * and kana words are sent in hiragana, the form the readings are stored in.
 */
import { isJapanese } from '../analysis/normalize.js'
import { stemOf } from '../analysis/word-forms.js'
import { SEARCH_ATTRIBUTES, type QueryWord, type SearchAttribute, type SearchDocument } from '../search-engine.js'
import { isTestListing } from '../../domain/networks.js'
import type { ServiceStatus } from '../../domain/trust.js'

/** The four indexed forms of each searchable attribute. */
export const TEXT_FIELDS: Record<SearchAttribute, { raw: string, ja: string, kana: string, stem: string }> = {
  name: { raw: 'name', ja: 'name_ja', kana: 'name_kana', stem: 'name_stem' },
  // `category` itself is the category id (a filter); its names are searched as categoryText.
  category: { raw: 'categoryText', ja: 'category_ja', kana: 'category_kana', stem: 'category_stem' },
  description: { raw: 'description', ja: 'description_ja', kana: 'description_kana', stem: 'description_stem' }
}

/** Id of the one document holding the index's checkpoint; it has no searchable text, so no query finds it. */
export const META_ID = 'catalog_meta'

export interface MeiliServiceDocument {
  id: string
  seq: number
  category: string
  status: ServiceStatus
  networks: string[]
  priceAtomic: number
  trustScore: number
  nameSort: string
  createdAt: string
  /** payToKey of the payment address (a filter). */
  payTo: string
  /** x402 extension keys the endpoint declares (a filter; absent in documents indexed before it). */
  extensions: string[]
  /** isTestListing of the networks (a filter; absent in documents indexed before it, which count as real). */
  testnet: boolean
  name: string
  categoryText: string
  description: string
  name_ja: string
  name_kana: string
  category_ja: string
  category_kana: string
  description_ja: string
  description_kana: string
  /** Stems of the English words (absent in documents indexed before them: those match by their words only). */
  name_stem: string
  category_stem: string
  description_stem: string
}

/**
 * The checkpoint lives in the index it describes and is written in the same task as the
 * documents: a task is atomic, and a swap moves documents and checkpoint together.
 */
export interface MeiliMetaDocument {
  id: typeof META_ID
  checkpoint: number
  /** Changes with every applied batch and swap (the response cache's token). */
  version: string
}

const KANA_ONLY = /^[\u3041-\u3096\u309D\u309E\u30A1-\u30FA\u30FC-\u30FE]+$/u
const KATAKANA = /[\u30A1-\u30F6\u30FD\u30FE]/gu

/** カタカナ → かたかな (ー and other marks are kept). */
export function katakanaToHiragana (text: string): string {
  return text.replace(KATAKANA, (ch) => String.fromCharCode(ch.charCodeAt(0) - 0x60))
}

export function isKanaOnly (text: string): boolean {
  return KANA_ONLY.test(text)
}

function unique (values: Iterable<string>): string {
  return [...new Set(values)].join(' ')
}

export function toMeiliDocument (doc: SearchDocument): MeiliServiceDocument {
  const fields: Record<string, string> = {}
  for (const attribute of SEARCH_ATTRIBUTES) {
    const terms = doc.terms[attribute]
    const names = TEXT_FIELDS[attribute]
    fields[names.ja] = unique(terms.filter((t) => isJapanese(t.term)).map((t) => t.term))
    fields[names.kana] = unique(terms.filter((t) => t.fragment !== true && isKanaOnly(t.term)).map((t) => katakanaToHiragana(t.term)))
    fields[names.stem] = unique(terms.flatMap((t) => t.fragment === true ? [] : [stemOf(t.term) ?? []].flat()))
  }
  return {
    id: doc.id,
    seq: doc.seq,
    category: doc.category,
    status: doc.status,
    networks: [...doc.chains],
    priceAtomic: doc.priceAtomic,
    trustScore: doc.trustScore,
    nameSort: doc.nameSort,
    createdAt: doc.createdAt,
    payTo: doc.payTo,
    extensions: [...doc.extensions],
    testnet: isTestListing(doc.chains),
    name: doc.text.name,
    categoryText: doc.text.category,
    description: doc.text.description,
    name_ja: fields.name_ja ?? '',
    name_kana: fields.name_kana ?? '',
    category_ja: fields.category_ja ?? '',
    category_kana: fields.category_kana ?? '',
    description_ja: fields.description_ja ?? '',
    description_kana: fields.description_kana ?? '',
    name_stem: fields.name_stem ?? '',
    category_stem: fields.category_stem ?? '',
    description_stem: fields.description_stem ?? ''
  }
}

/** The word as sent: kana in hiragana (the readings' form), anything else as analysed. */
export function queryForm (word: QueryWord): string {
  return isKanaOnly(word.text) ? katakanaToHiragana(word.text) : word.text
}

/**
 * The query text. Meilisearch matches the last word as a prefix unless the query ends with
 * a separator, so a trailing space turns prefix search off (intent queries).
 */
export function queryText (words: readonly QueryWord[], prefixLastWord: boolean): string {
  const text = words.map(queryForm).join(' ')
  return text === '' || prefixLastWord ? text : `${text} `
}

export function hasJapanese (words: readonly QueryWord[]): boolean {
  return words.some((word) => isJapanese(word.text))
}

/** At most this many queries per search: the words as analysed plus expansion variants. */
export const MAX_QUERY_VARIANTS = 4
/**
 * Federation weights: another form of an English word (its stem met in `<attribute>_stem`)
 * and a romaji reading rank below the words typed, a slip below those.
 */
export const FORM_WEIGHT = 0.9
export const READING_WEIGHT = 0.9
export const SLIP_WEIGHT = 0.8

/**
 * The query's words as sent, then its English words' stems, then its expansions
 * (QueryWord.expansions: romaji readings, kana slips) as variants Meilisearch searches
 * alongside in one federated search, at lower weight. The stem variant replaces every word
 * whose stem differs from it (a stem equal to the word is met by the words as sent, in
 * `<attribute>_stem`); variant i replaces every word that has an i-th expansion by its
 * hiragana form. Meilisearch cannot stem, read romaji nor count a slip as one typo itself;
 * a variant is the nearest it offers. Only the first MAX_QUERY_VARIANTS variants are sent.
 */
export function queryVariants (words: readonly QueryWord[]): Array<{ words: QueryWord[], weight: number }> {
  const variants: Array<{ words: QueryWord[], weight: number }> = [{ words: [...words], weight: 1 }]
  let stemmed = false
  const stems = words.map((word) => {
    const stem = stemOf(word.text)
    if (stem === undefined || stem === word.text) return word
    stemmed = true
    return { text: stem, forms: [stem] }
  })
  if (stemmed) variants.push({ words: stems, weight: FORM_WEIGHT })
  for (let i = 0; variants.length < MAX_QUERY_VARIANTS; i++) {
    let typos = 0
    let used = false
    const replaced = words.map((word) => {
      const expansion = word.expansions?.[i]
      const form = expansion?.forms[0]
      if (expansion === undefined || form === undefined) return word
      used = true
      typos = Math.max(typos, expansion.typos)
      return { text: form, forms: expansion.forms }
    })
    if (!used) break
    variants.push({ words: replaced, weight: typos === 0 ? READING_WEIGHT : SLIP_WEIGHT })
  }
  return variants
}
