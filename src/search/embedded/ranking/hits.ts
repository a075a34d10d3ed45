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

/** A word's candidates by exactness, best first (a stable sort: ties keep the plan's order). */
function byExactness (candidates: PlannedWord['candidates']): PlannedWord['candidates'] {
  let sorted = sortedCandidates.get(candidates)
  if (sorted === undefined) {
    sorted = [...candidates].sort((a, b) => (MATCH_EXACTNESS[a.kind] + a.typos) - (MATCH_EXACTNESS[b.kind] + b.typos))
    sortedCandidates.set(candidates, sorted)
  }
  return sorted
}
/** Per candidate list a plan cache hands out again (PlanCache): sorted once, not per hit. */
const sortedCandidates = new WeakMap<PlannedWord['candidates'], PlannedWord['candidates']>()

/**
 * For each query word the document matched, its best match: fewest typos and most exact, then
 * earliest attribute. The ranking says which words the document matched and how exactly
 * (`doc`), so a word it did not match is not looked up, and candidates are read best first
 * from the level it matched at, stopping at the first level that matches: a translated word
 * has dozens of candidates, and looking each up in the document's postings was 7 % of a
 * search thread's time on two- and three-word queries.
 */
export function matchedTokensOf (index: MemoryIndex, doc: Pick<RankedDoc, 'slot' | 'matched' | 'exact' | 'expanded'>, plan: readonly PlannedWord[]): MatchedToken[] {
  const { slot } = doc
  const tokens: MatchedToken[] = []
  const words = Math.min(plan.length, MAX_QUERY_WORDS)
  for (let w = 0; w < words; w++) {
    const bit = 1 << w
    if ((doc.matched & bit) === 0) continue
    const word = plan[w] as PlannedWord
    const candidates = byExactness(word.candidates)
    // The least exactness + typos of a candidate that matched (its match sets, word-sets.ts).
    const level = (doc.exact & bit) !== 0 ? 0 : (doc.expanded & bit) !== 0 ? 1 : 2
    // The best match as (candidate, attribute), read into a token once at the end.
    let best: PlannedWord['candidates'][number] | undefined
    let bestAttribute = 0
    let bestOrder = Infinity
    for (let c = 0; c < candidates.length; c++) {
      const candidate = candidates[c] as PlannedWord['candidates'][number]
      const exactness = MATCH_EXACTNESS[candidate.kind] + candidate.typos
      if (exactness < level) continue
      const order = exactness * 10
      // Every candidate after this one is as exact or less: none can do better.
      if (order >= bestOrder) break
      const posting = index.postings.get(candidate.term)
      const at = posting?.find(slot) ?? -1
      if (posting !== undefined && at >= 0) {
        for (let i = at; i < posting.length && slotOf(posting.entries[i] as number) === slot; i++) {
          const attribute = ((posting.entries[i] as number) & DESCRIPTION_BIT) !== 0 ? DESCRIPTION : NAME
          if (order + attribute < bestOrder) { bestOrder = order + attribute; best = candidate; bestAttribute = attribute }
        }
      }
      for (const [code] of index.categoryTerms.get(candidate.term) ?? []) {
        if (index.columns.category[slot] === code && order + CATEGORY < bestOrder) { bestOrder = order + CATEGORY; best = candidate; bestAttribute = CATEGORY }
      }
    }
    if (best !== undefined) tokens.push({ word: word.text, term: best.term, attribute: SEARCH_ATTRIBUTES[bestAttribute] ?? 'description', kind: best.kind, typos: best.typos })
  }
  return tokens
}

export function hitOf (index: MemoryIndex, doc: RankedDoc, plan: readonly PlannedWord[]): SearchHit {
  return { id: index.ids[doc.slot] as string, score: scoreOf(doc, plan.length), matchedTokens: matchedTokensOf(index, doc, plan) }
}
