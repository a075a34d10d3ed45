/** What a ranked document shows: its score and how each query word met it (page only). */
import { MATCH_EXACTNESS } from '../match-rules.js'
import type { PlannedWord } from './query-plan.js'
import { SEARCH_ATTRIBUTES, type MatchedToken, type SearchHit } from '../search-engine.js'
import { DESCRIPTION_BIT, slotOf, type MemoryIndex } from './memory-index.js'
import { MAX_DISTANCE, MAX_QUERY_WORDS, type RankedDoc } from './ranking.js'

const NAME = SEARCH_ATTRIBUTES.indexOf('name')
const CATEGORY = SEARCH_ATTRIBUTES.indexOf('category')
const DESCRIPTION = SEARCH_ATTRIBUTES.indexOf('description')

/** Score in [0, 1]: the bucket ranks read as one mixed-radix number, so it orders exactly like the ranking. */
export function scoreOf (doc: RankedDoc, words: number): number {
  const n = Math.min(words, MAX_QUERY_WORDS)
  const digits: Array<[number, number]> = [
    [doc.tier, 2],
    [n - doc.words, n],
    [doc.typos, 2 * n + 1],
    [doc.proximity, MAX_DISTANCE * Math.max(0, n - 1) + 1],
    [doc.attr, 2 * n + 1],
    [doc.exactness, 2 * n + 1]
  ]
  let rank = 0
  let range = 1
  for (const [value, radix] of digits) {
    rank = rank * radix + Math.min(value, radix - 1)
    range *= radix
  }
  return Math.round((1 - rank / range) * 10000) / 10000
}

/** For each query word the document matched, its best match: fewest typos and most exact, then earliest attribute. */
export function matchedTokensOf (index: MemoryIndex, slot: number, plan: readonly PlannedWord[]): MatchedToken[] {
  const tokens: MatchedToken[] = []
  plan.slice(0, MAX_QUERY_WORDS).forEach((word, w) => {
    let best: (MatchedToken & { order: number }) | undefined
    const consider = (term: string, kind: MatchedToken['kind'], typos: number, attribute: number): void => {
      const order = (MATCH_EXACTNESS[kind] + typos) * 10 + attribute
      if (best === undefined || order < best.order) {
        best = { word: plan[w]?.text ?? term, term, attribute: SEARCH_ATTRIBUTES[attribute] ?? 'description', kind, typos, order }
      }
    }
    for (const { term, kind, typos } of word.candidates) {
      const posting = index.postings.get(term)
      const at = posting?.find(slot) ?? -1
      if (posting !== undefined && at >= 0) {
        for (let i = at; i < posting.length && slotOf(posting.entries[i] as number) === slot; i++) {
          consider(term, kind, typos, ((posting.entries[i] as number) & DESCRIPTION_BIT) !== 0 ? DESCRIPTION : NAME)
        }
      }
      for (const [code] of index.categoryTerms.get(term) ?? []) {
        if (index.columns.category[slot] === code) consider(term, kind, typos, CATEGORY)
      }
    }
    if (best !== undefined) {
      const { order: _order, ...token } = best
      tokens.push(token)
    }
  })
  return tokens
}

export function hitOf (index: MemoryIndex, doc: RankedDoc, plan: readonly PlannedWord[]): SearchHit {
  return { id: index.ids[doc.slot] as string, score: scoreOf(doc, plan.length), matchedTokens: matchedTokensOf(index, doc.slot, plan) }
}
