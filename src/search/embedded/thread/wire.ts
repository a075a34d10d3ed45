/**
 * A search result as a search thread posts it to the API thread. Structured cloning copies
 * objects property by property on both threads, and a page's hits are ~100 small objects
 * (a hit, its matched tokens): cloning them cost ~45 µs per search across the two threads.
 * Here each page's strings go once into a table and every matched token is four numbers in
 * one Int32Array, which is cloned as bytes.
 */
import { MATCH_EXACTNESS } from '../../match-rules.js'
import { SEARCH_ATTRIBUTES, type MatchKind, type MatchedToken, type SearchHit, type SearchResult } from '../../search-engine.js'

/** Every match kind: the keys of a record the compiler keeps complete. */
const KINDS = Object.keys(MATCH_EXACTNESS) as MatchKind[]
/** A token's attribute and kind share one number: attribute × KIND_SPAN + kind. */
const KIND_SPAN = KINDS.length
const KIND_INDEX = new Map<MatchKind, number>(KINDS.map((kind, i) => [kind, i]))
const ATTRIBUTE_INDEX = new Map<string, number>(SEARCH_ATTRIBUTES.map((attribute, i) => [attribute, i]))

export interface WireResult {
  total: number
  totalExact: boolean
  facetDistribution?: SearchResult['facetDistribution']
  ids: string[]
  scores: Float64Array
  /** The words and terms of the page's matched tokens, each once. */
  strings: string[]
  /** Per hit: its number of tokens, then per token: word, term (indexes into strings), attribute × KIND_SPAN + kind, typos. */
  tokens: Int32Array
}

export function toWire (result: SearchResult): WireResult {
  const strings: string[] = []
  const stringIndex = new Map<string, number>()
  const indexOf = (text: string): number => {
    let i = stringIndex.get(text)
    if (i === undefined) {
      i = strings.length
      strings.push(text)
      stringIndex.set(text, i)
    }
    return i
  }
  let size = 0
  for (const hit of result.hits) size += 1 + 4 * hit.matchedTokens.length
  const tokens = new Int32Array(size)
  const scores = new Float64Array(result.hits.length)
  const ids: string[] = []
  let at = 0
  for (let h = 0; h < result.hits.length; h++) {
    const hit = result.hits[h] as SearchHit
    ids.push(hit.id)
    scores[h] = hit.score
    tokens[at++] = hit.matchedTokens.length
    for (const token of hit.matchedTokens) {
      tokens[at++] = indexOf(token.word)
      tokens[at++] = indexOf(token.term)
      tokens[at++] = (ATTRIBUTE_INDEX.get(token.attribute) as number) * KIND_SPAN + (KIND_INDEX.get(token.kind) as number)
      tokens[at++] = token.typos
    }
  }
  const wire: WireResult = { total: result.total, totalExact: result.totalExact, ids, scores, strings, tokens }
  if (result.facetDistribution !== undefined) wire.facetDistribution = result.facetDistribution
  return wire
}

export function fromWire (wire: WireResult): SearchResult {
  const { ids, scores, strings, tokens } = wire
  const hits: SearchHit[] = []
  let at = 0
  for (let h = 0; h < ids.length; h++) {
    const count = tokens[at++] as number
    const matchedTokens: MatchedToken[] = []
    for (let t = 0; t < count; t++, at += 4) {
      const code = tokens[at + 2] as number
      matchedTokens.push({
        word: strings[tokens[at] as number] as string,
        term: strings[tokens[at + 1] as number] as string,
        attribute: SEARCH_ATTRIBUTES[Math.floor(code / KIND_SPAN)] as MatchedToken['attribute'],
        kind: KINDS[code % KIND_SPAN] as MatchKind,
        typos: tokens[at + 3] as number
      })
    }
    hits.push({ id: ids[h] as string, score: scores[h] as number, matchedTokens })
  }
  const result: SearchResult = { total: wire.total, totalExact: wire.totalExact, hits }
  if (wire.facetDistribution !== undefined) result.facetDistribution = wire.facetDistribution
  return result
}
