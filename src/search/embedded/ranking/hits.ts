/** What a ranked document shows: its score and how each query word met it (page only). */
import { MATCH_EXACTNESS } from '../../match-rules.js'
import type { PlannedWord } from './query-plan.js'
import { SEARCH_ATTRIBUTES, type MatchedToken, type SearchHit } from '../../search-engine.js'
import { DESCRIPTION_BIT, slotOf, type MemoryIndex } from '../index/memory-index.js'
import { MAX_DISTANCE, MAX_QUERY_WORDS, type RankedDoc } from './ranking.js'

const NAME = SEARCH_ATTRIBUTES.indexOf('name')
const CATEGORY = SEARCH_ATTRIBUTES.indexOf('category')
const DESCRIPTION = SEARCH_ATTRIBUTES.indexOf('description')

/** Score in [0, 1]: the bucket ranks read as one mixed-radix number, so it orders exactly like the ranking. */
export function scoreOf (doc: RankedDoc, words: number): number {
  const n = Math.min(words, MAX_QUERY_WORDS)
  const counts = 2 * n + 1
  // Digits (value, radix) from the most significant: tier, words missing, typos, proximity, attribute, exactness.
  const values = [doc.tier, n - doc.words, doc.typos, doc.proximity, doc.attr, doc.exactness]
  const radixes = [2, n, counts, MAX_DISTANCE * Math.max(0, n - 1) + 1, counts, counts]
  let rank = 0
  let range = 1
  for (let d = 0; d < values.length; d++) {
    const radix = radixes[d] as number
    rank = rank * radix + Math.min(values[d] as number, radix - 1)
    range *= radix
  }
  return Math.round((1 - rank / range) * 10000) / 10000
}

/** For each query word the document matched, its best match: fewest typos and most exact, then earliest attribute. */
export function matchedTokensOf (index: MemoryIndex, slot: number, plan: readonly PlannedWord[]): MatchedToken[] {
  const tokens: MatchedToken[] = []
  const words = Math.min(plan.length, MAX_QUERY_WORDS)
  for (let w = 0; w < words; w++) {
    const word = plan[w] as PlannedWord
    // The best match as (candidate, attribute), read into a token once at the end.
    let best = -1
    let bestAttribute = 0
    let bestOrder = Infinity
    for (let c = 0; c < word.candidates.length; c++) {
      const { term, kind, typos } = word.candidates[c] as PlannedWord['candidates'][number]
      const exactness = (MATCH_EXACTNESS[kind] + typos) * 10
      if (exactness >= bestOrder) continue
      const posting = index.postings.get(term)
      const at = posting?.find(slot) ?? -1
      if (posting !== undefined && at >= 0) {
        for (let i = at; i < posting.length && slotOf(posting.entries[i] as number) === slot; i++) {
          const attribute = ((posting.entries[i] as number) & DESCRIPTION_BIT) !== 0 ? DESCRIPTION : NAME
          if (exactness + attribute < bestOrder) { bestOrder = exactness + attribute; best = c; bestAttribute = attribute }
        }
      }
      for (const [code] of index.categoryTerms.get(term) ?? []) {
        if (index.columns.category[slot] === code && exactness + CATEGORY < bestOrder) { bestOrder = exactness + CATEGORY; best = c; bestAttribute = CATEGORY }
      }
    }
    const found = word.candidates[best]
    if (found !== undefined) tokens.push({ word: word.text, term: found.term, attribute: SEARCH_ATTRIBUTES[bestAttribute] ?? 'description', kind: found.kind, typos: found.typos })
  }
  return tokens
}

export function hitOf (index: MemoryIndex, doc: RankedDoc, plan: readonly PlannedWord[]): SearchHit {
  return { id: index.ids[doc.slot] as string, score: scoreOf(doc, plan.length), matchedTokens: matchedTokensOf(index, doc.slot, plan) }
}
