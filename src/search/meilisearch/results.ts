/**
 * Meilisearch hits → the port's SearchHit. The score is Meilisearch's `_rankingScore`; the
 * per-word matches are rebuilt from `_matchesPosition` (which says where, not how), by
 * comparing each matched text with the query word's forms, synonyms, prefix and typo
 * budget. That is coarser than the embedded engine, which knows how each term was planned.
 * A stem matched in `<attribute>_stem` is claimed as the attribute's own words of that stem.
 */
import { isJapanese, normalizeText } from '../analysis/normalize.js'
import { MATCH_EXACTNESS, typosBetween } from '../match-rules.js'
import { stemOf } from '../analysis/word-forms.js'
import { SEARCH_ATTRIBUTES, type MatchKind, type MatchedToken, type QueryWord, type SearchAttribute, type SearchHit, type SearchQuery, type SearchResult } from '../search-engine.js'
import { katakanaToHiragana, queryForm, TEXT_FIELDS } from './documents.js'
import { toFacetDistribution } from './facets.js'

export interface MatchPosition {
  start: number
  length: number
}

/** The parts of a Meilisearch search response the port's result is made of. */
export interface MeiliSearchResponse {
  hits: MeiliHit[]
  estimatedTotalHits: number
  facetDistribution?: Record<string, Record<string, number>>
}

export interface MeiliHit {
  id: string
  _rankingScore?: number
  _matchesPosition?: Record<string, MatchPosition[] | undefined>
  [field: string]: unknown
}

const FIELD_ATTRIBUTE = new Map<string, { attribute: SearchAttribute, form: 'raw' | 'ja' | 'kana' | 'stem' }>(
  SEARCH_ATTRIBUTES.flatMap((attribute) => (['raw', 'ja', 'kana', 'stem'] as const).map((form) => [TEXT_FIELDS[attribute][form], { attribute, form }] as const))
)

const LATIN_WORDS = /[a-z]+/gu

const WORD_AT_START = /^[\p{L}\p{N}\p{M}]+/u

/**
 * The matched text. Meilisearch documents `start` and `length` in UTF-8 bytes, though some
 * versions report `length` in characters: a length that would cut a character is read as
 * characters. The match never extends past the word it starts.
 */
export function matchedText (value: string, position: MatchPosition): string {
  const bytes = Buffer.from(value, 'utf8')
  const word = WORD_AT_START.exec(bytes.subarray(position.start).toString('utf8'))?.[0] ?? ''
  const wordBytes = Buffer.from(word, 'utf8')
  if (position.length >= wordBytes.length) return word
  const cut = wordBytes.subarray(0, position.length).toString('utf8')
  return cut.includes('\uFFFD') ? [...word].slice(0, position.length).join('') : cut
}

interface Found {
  attribute: SearchAttribute
  form: 'raw' | 'ja' | 'kana'
  text: string
}

/** Every matched text of a hit, with the attribute it is in. */
export function matchesOf (hit: MeiliHit): Found[] {
  const found: Found[] = []
  for (const [field, positions] of Object.entries(hit._matchesPosition ?? {})) {
    const where = FIELD_ATTRIBUTE.get(field)
    const value = hit[field]
    if (where === undefined || typeof value !== 'string' || positions === undefined) continue
    for (const position of positions) {
      const text = normalizeText(matchedText(value, position))
      if (text === '') continue
      if (where.form !== 'stem') { found.push({ ...where, form: where.form, text }); continue }
      // The stem stands for the words of the text that have it: those are what matched.
      const stem = normalizeText(matchedText(value, { start: position.start, length: Number.MAX_SAFE_INTEGER }))
      const raw = hit[TEXT_FIELDS[where.attribute].raw]
      const words = typeof raw === 'string' ? new Set(normalizeText(raw).match(LATIN_WORDS) ?? []) : new Set<string>()
      for (const word of words) if (stemOf(word) === stem) found.push({ attribute: where.attribute, form: 'raw', text: word })
    }
  }
  return found
}

/** How a query word met a matched text, or undefined when it did not. */
export function classify (word: QueryWord, found: Found, options: { prefix: boolean, synonyms: ReadonlyMap<string, readonly string[]> }): { kind: MatchKind, typos: number } | undefined {
  const forms = new Set([...word.forms, word.text, queryForm(word)].map(normalizeText).flatMap((f) => [f, katakanaToHiragana(f)]))
  const text = found.text
  if (forms.has(text)) return { kind: found.form === 'kana' ? 'alternative' : 'exact', typos: 0 }
  // A romaji reading or kana slip (QueryWord.expansions), searched as a query variant.
  for (const expansion of word.expansions ?? []) {
    const spellings = expansion.forms.map(normalizeText).flatMap((f) => [f, katakanaToHiragana(f)])
    if (spellings.includes(text)) return expansion.typos === 0 ? { kind: 'romaji', typos: 0 } : { kind: 'typo', typos: expansion.typos }
    if (expansion.typos === 0 && spellings.some((f) => (options.synonyms.get(f) ?? []).includes(text))) return { kind: 'synonym', typos: 0 }
  }
  for (const form of forms) {
    if ((options.synonyms.get(form) ?? []).includes(text)) return { kind: 'synonym', typos: 0 }
  }
  const stem = stemOf(text)
  if (stem !== undefined && [...forms].some((form) => stemOf(form) === stem)) return { kind: 'wordForm', typos: 0 }
  if (options.prefix) {
    for (const form of forms) if (text.startsWith(form)) return { kind: 'prefix', typos: 0 }
  }
  let fewest: number | undefined
  for (const form of forms) {
    const typos = typosBetween(form, text)
    if (typos !== undefined && (fewest === undefined || typos < fewest)) fewest = typos
  }
  if (fewest !== undefined) return { kind: 'typo', typos: fewest }
  // Meilisearch segmented a Japanese word, or a bigram of it matched: part of the word.
  for (const form of forms) {
    if (isJapanese(form) && (form.includes(text) || text.includes(form))) return { kind: 'fragment', typos: 0 }
  }
  return undefined
}

/** The synonyms of several words of a query word's forms (loadSynonyms' phrase terms). */
function phrasesOf (word: QueryWord, synonyms: ReadonlyMap<string, readonly string[]>): string[] {
  const forms = [...word.forms, word.text].map(normalizeText)
  return [...new Set(forms.flatMap((form) => (synonyms.get(form) ?? []).filter((synonym) => synonym.includes(' '))))]
}

/** Per query word, its best match (exactness, then typos, then attribute), in query order. */
export function matchedTokens (hit: MeiliHit, words: readonly QueryWord[], prefixLastWord: boolean, synonyms: ReadonlyMap<string, readonly string[]>): MatchedToken[] {
  const found = matchesOf(hit)
  const tokens: MatchedToken[] = []
  words.forEach((word, index) => {
    let best: (MatchedToken & { order: number }) | undefined
    const consider = (term: string, attribute: SearchAttribute, how: { kind: MatchKind, typos: number }): void => {
      const order = (MATCH_EXACTNESS[how.kind] + how.typos) * 10 + SEARCH_ATTRIBUTES.indexOf(attribute)
      if (best === undefined || order < best.order) best = { word: word.text, term, attribute, kind: how.kind, typos: how.typos, order }
    }
    for (const match of found) {
      const how = classify(word, match, { prefix: prefixLastWord && index === words.length - 1, synonyms })
      if (how !== undefined) consider(match.text, match.attribute, how)
    }
    // Meilisearch matches a synonym of several words word by word: the phrase is claimed when
    // all its words matched in one attribute, never one of them alone.
    for (const phrase of phrasesOf(word, synonyms)) {
      const parts = phrase.split(' ')
      for (const attribute of SEARCH_ATTRIBUTES) {
        if (parts.every((part) => found.some((match) => match.attribute === attribute && match.text === part))) consider(phrase, attribute, { kind: 'synonym', typos: 0 })
      }
    }
    if (best !== undefined) {
      const { order: _order, ...token } = best
      tokens.push(token)
    }
  })
  return tokens
}

export function toSearchHit (hit: MeiliHit, words: readonly QueryWord[], prefixLastWord: boolean, synonyms: ReadonlyMap<string, readonly string[]>): SearchHit {
  const score = Math.round((hit._rankingScore ?? 0) * 10000) / 10000
  return { id: hit.id, score, matchedTokens: matchedTokens(hit, words, prefixLastWord, synonyms) }
}

/**
 * A search response in the port's shape. Offset/limit paging answers estimatedTotalHits
 * (docs/search.md), so the total is reported as an estimate.
 */
export function toSearchResult (response: MeiliSearchResponse, query: Pick<SearchQuery, 'words' | 'prefixLastWord' | 'facets'>, synonyms: ReadonlyMap<string, readonly string[]>): SearchResult {
  const hits = response.hits.map((hit) => toSearchHit(hit, query.words, query.prefixLastWord, synonyms))
  const result: SearchResult = { total: response.estimatedTotalHits, totalExact: false, hits }
  if (query.facets !== undefined && query.facets.length > 0) result.facetDistribution = toFacetDistribution(query.facets, response.facetDistribution)
  return result
}
