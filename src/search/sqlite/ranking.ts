/**
 * Ranking over the in-memory postings, as Meilisearch does it: words → typo → proximity →
 * attribute → exactness, then trust score and id, ordering only as much as the requested
 * page needs.
 *
 * One pass over the postings of the query's terms marks, per document, which query words
 * it matched and how well (bit masks: word matched; with 0 / ≤ 1 typos; in the name / in
 * the name or category; exactly / at most by expansion) and each word's first position per
 * attribute. Every rule but proximity is then O(1) per document from those masks.
 * The buckets of the first rule are counted for every match (the total needs that pass
 * anyway); buckets after the one that completes the page are dropped unranked, and the
 * rest are ranked by all rules at once (see byRelevance) into a heap the size of the page.
 */
import { EXACTNESS, type PlannedWord } from '../query-plan.js'
import { FACET_FIELDS, type FacetDistribution, type FacetField } from '../search-engine.js'
import type { Page, ServiceFilter, ServiceSort } from '../../domain/catalog-query.js'
import { DESCRIPTION_BIT, NO_POSITION, slotOf, type MemoryIndex } from './memory-index.js'

/** Word distance at and beyond which two words count as unrelated (Meilisearch caps proximity too). */
export const MAX_DISTANCE = 8
/** Query words beyond this many are not searched (one bit each in the per-document masks). */
export const MAX_QUERY_WORDS = 32
const ATTRIBUTES = 3
const UNSET = 0xFFFF

export interface RankedDoc {
  slot: number
  words: number
  typos: number
  proximity: number
  attr: number
  exactness: number
}

export interface RankResult {
  total: number
  docs: RankedDoc[]
  facetDistribution?: FacetDistribution
}

export interface RankQuery {
  plan: readonly PlannedWord[]
  filter: ServiceFilter
  sort?: ServiceSort
  page: Page
  facets?: readonly FacetField[]
}

function popcount (x: number): number {
  x = x - ((x >>> 1) & 0x55555555)
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  // Math.imul keeps the product a 32-bit integer (a plain * would overflow into a double).
  return Math.imul((x + (x >>> 4)) & 0x0F0F0F0F, 0x01010101) >>> 24
}

/** Offsets of a document's marks in `Scratch.marks` (bit masks over the query words, then the query stamp). */
const MATCHED = 0
const NO_TYPO = 1
const ONE_TYPO = 2
const IN_NAME = 3
const IN_NAME_OR_CATEGORY = 4
const EXACT = 5
const EXPANDED = 6
const STAMP = 7
/** Marks per document: 8, so that a document's marks share one cache line. */
const MARKS = 8

/**
 * Per-document working arrays of one searcher, reused across queries. A document's marks
 * sit side by side, and its first positions too, so marking and ranking it touches a cache
 * line or two, not one per array. Nothing is cleared between queries: a document's marks
 * count only when their stamp is the current query's; its first touch in a query resets them.
 */
export class Scratch {
  size = 0
  stamp = 0
  marks = new Uint32Array(0)
  touched = new Uint32Array(0)
  /** First position of word w in attribute a (name, category, description): positions[d * stride + w * 3 + a]. */
  positions = new Uint16Array(0)
  /** The current query's: 3 per word when it has several words, else 0. */
  stride = 0

  /** Makes room for `slots` documents and a query of `words` words, and starts a new query. */
  begin (slots: number, words: number): void {
    if (slots > this.size) {
      this.size = Math.max(1024, slots + (slots >>> 2))
      this.marks = new Uint32Array(this.size * MARKS)
      this.touched = new Uint32Array(this.size)
      this.positions = new Uint16Array(0)
      this.stamp = 0
    }
    this.stride = words > 1 ? words * ATTRIBUTES : 0
    if (this.size * this.stride > this.positions.length) this.positions = new Uint16Array(this.size * this.stride)
    this.stamp = (this.stamp + 1) >>> 0
    if (this.stamp === 0) {
      for (let at = STAMP; at < this.marks.length; at += MARKS) this.marks[at] = 0
      this.stamp = 1
    }
  }

  /** Approximate bytes held. */
  get bytes (): number {
    return this.marks.byteLength + this.touched.byteLength + this.positions.byteLength
  }
}

/** A document's first touch in this query: empty marks, no positions; returns the new touched count. */
function touch (scratch: Scratch, d: number, count: number): number {
  scratch.touched[count] = d
  const marks = scratch.marks
  const at = d * MARKS
  marks[at] = 0; marks[at + 1] = 0; marks[at + 2] = 0; marks[at + 3] = 0; marks[at + 4] = 0; marks[at + 5] = 0; marks[at + 6] = 0
  marks[at + STAMP] = scratch.stamp
  const stride = scratch.stride
  if (stride > 0) {
    // A loop: TypedArray#fill costs more than these few stores.
    const positions = scratch.positions
    for (let p = d * stride, end = p + stride; p < end; p++) positions[p] = UNSET
  }
  return count + 1
}

/** Marks every document the plan's terms meet; returns how many documents were touched. */
function markMatches (index: MemoryIndex, plan: readonly PlannedWord[], scratch: Scratch): number {
  const { stamp, marks, positions, stride } = scratch
  const withPositions = stride > 0
  let count = 0
  // A plain loop, not forEach: `count` and the arrays stay locals of one function.
  for (let w = 0; w < plan.length; w++) {
    const word = plan[w] as PlannedWord
    const bit = (1 << w) >>> 0
    const name = w * ATTRIBUTES
    const category = name + 1
    const description = name + 2
    for (const candidate of word.candidates) {
      const typoBit0 = candidate.typos === 0 ? bit : 0
      const typoBit1 = candidate.typos <= 1 ? bit : 0
      const exactness = EXACTNESS[candidate.kind]
      const exactBit = exactness === 0 ? bit : 0
      const expandedBit = exactness <= 1 ? bit : 0
      const posting = index.postings.get(candidate.term)
      if (posting !== undefined) {
        const entries = posting.entries
        for (let i = 0, n = posting.length; i < n; i++) {
          const entry = entries[i] as number
          const d = slotOf(entry)
          const at = d * MARKS
          if (marks[at + STAMP] !== stamp) count = touch(scratch, d, count)
          marks[at + MATCHED] = (marks[at + MATCHED] as number) | bit
          marks[at + NO_TYPO] = (marks[at + NO_TYPO] as number) | typoBit0
          marks[at + ONE_TYPO] = (marks[at + ONE_TYPO] as number) | typoBit1
          marks[at + EXACT] = (marks[at + EXACT] as number) | exactBit
          marks[at + EXPANDED] = (marks[at + EXPANDED] as number) | expandedBit
          const inDescription = (entry & DESCRIPTION_BIT) !== 0
          if (!inDescription) {
            marks[at + IN_NAME] = (marks[at + IN_NAME] as number) | bit
            marks[at + IN_NAME_OR_CATEGORY] = (marks[at + IN_NAME_OR_CATEGORY] as number) | bit
          }
          if (withPositions) {
            const position = entry & NO_POSITION
            if (position !== NO_POSITION) {
              const p = d * stride + (inDescription ? description : name)
              if (position < (positions[p] as number)) positions[p] = position
            }
          }
        }
      }
      for (const [code, position] of index.categoryTerms.get(candidate.term) ?? []) {
        const docs = index.categoryDocs[code]
        if (docs === undefined) continue
        const slots = docs.entries
        for (let i = 0, n = docs.length; i < n; i++) {
          const d = slots[i] as number
          const at = d * MARKS
          if (marks[at + STAMP] !== stamp) count = touch(scratch, d, count)
          marks[at + MATCHED] = (marks[at + MATCHED] as number) | bit
          marks[at + NO_TYPO] = (marks[at + NO_TYPO] as number) | typoBit0
          marks[at + ONE_TYPO] = (marks[at + ONE_TYPO] as number) | typoBit1
          marks[at + EXACT] = (marks[at + EXACT] as number) | exactBit
          marks[at + EXPANDED] = (marks[at + EXPANDED] as number) | expandedBit
          marks[at + IN_NAME_OR_CATEGORY] = (marks[at + IN_NAME_OR_CATEGORY] as number) | bit
          if (withPositions) {
            const p = d * stride + category
            if (position < (positions[p] as number)) positions[p] = position
          }
        }
      }
    }
  }
  return count
}

/** A predicate for the filter, or undefined when nothing can pass it. */
function filterOf (index: MemoryIndex, filter: ServiceFilter): ((slot: number) => boolean) | undefined {
  const category = filter.category === undefined ? -1 : index.categories.get(filter.category)
  const status = filter.status === undefined ? -1 : index.statuses.get(filter.status)
  if (category === undefined || status === undefined) return undefined
  const maxPrice = filter.maxPriceAtomic ?? Infinity
  const chains = filter.chain === undefined ? undefined : index.chainSetMembers.map((members) => members.includes(filter.chain as string))
  const { alive, price, chainSet } = index
  if (category < 0 && status < 0 && maxPrice === Infinity && chains === undefined) return (d) => alive[d] === 1
  const categoryOf = index.category
  const statusOf = index.status
  return (d) => alive[d] === 1 &&
    (category < 0 || categoryOf[d] === category) &&
    (status < 0 || statusOf[d] === status) &&
    (price[d] as number) <= maxPrice &&
    (chains === undefined || chains[chainSet[d] as number] === true)
}

function facetsOf (index: MemoryIndex, docs: Uint32Array, fields: readonly FacetField[]): FacetDistribution {
  const asked = new Set(fields)
  const out: FacetDistribution = {}
  const count = (codes: ArrayLike<number>, values: readonly string[], members?: readonly string[][]): Record<string, number> => {
    const counts = new Float64Array(values.length)
    for (const d of docs) { const code = codes[d] as number; counts[code] = (counts[code] as number) + 1 }
    const result: Record<string, number> = {}
    if (members === undefined) {
      values.forEach((value, code) => { if ((counts[code] as number) > 0) result[value] = counts[code] as number })
    } else {
      members.forEach((chains, code) => {
        const n = counts[code] as number
        if (n > 0) for (const chain of chains) result[chain] = (result[chain] ?? 0) + n
      })
    }
    return result
  }
  for (const field of FACET_FIELDS) {
    if (!asked.has(field)) continue
    if (field === 'category') out.category = count(index.category, index.categories.values)
    else if (field === 'status') out.status = count(index.status, index.statuses.values)
    else out.network = count(index.chainSet, index.chainSets.values, index.chainSetMembers)
  }
  return out
}

/** The ranking criteria of one matched document, read off the marks. */
function criteria (scratch: Scratch, d: number, n: number): RankedDoc {
  const marks = scratch.marks
  const at = d * MARKS
  const m = marks[at + MATCHED] as number
  const words = popcount(m)
  return {
    slot: d,
    words,
    typos: popcount(m & ~(marks[at + NO_TYPO] as number)) + popcount(m & ~(marks[at + ONE_TYPO] as number)),
    proximity: proximityOf(scratch, d, n, m, words),
    attr: popcount(m & ~(marks[at + IN_NAME] as number)) + popcount(m & ~(marks[at + IN_NAME_OR_CATEGORY] as number)),
    exactness: popcount(m & ~(marks[at + EXACT] as number)) + popcount(m & ~(marks[at + EXPANDED] as number))
  }
}

/**
 * Proximity: for each pair of consecutive query words both matched, their closest first
 * positions in a shared attribute (reversed order one step further, capped); a pair never
 * seen together counts as the cap.
 */
function proximityOf (scratch: Scratch, d: number, n: number, m: number, words: number): number {
  if (n < 2) return 0
  const positions = scratch.positions
  const p = d * scratch.stride
  let saved = 0
  for (let w = 0; w + 1 < n; w++) {
    if (((m >>> w) & 3) !== 3) continue
    let best = MAX_DISTANCE
    for (let a = 0; a < ATTRIBUTES; a++) {
      const first = positions[p + w * ATTRIBUTES + a] as number
      const second = positions[p + (w + 1) * ATTRIBUTES + a] as number
      if (first === UNSET || second === UNSET) continue
      const distance = second > first ? second - first : first - second + 1
      if (distance < best) best = distance
    }
    saved += MAX_DISTANCE - best
  }
  return MAX_DISTANCE * (words - 1) - saved
}

/**
 * The documents at rank positions [from, to) by relevance. Rule 1 (words, then typos) is
 * a counting sort over every match: its buckets after the one that reaches `to` are
 * dropped unranked. The documents left are ordered by all the rules read as one number
 * (each rule a digit of its own radix, so the number orders exactly like the rules
 * applied in turn, as Meilisearch's bucket sort does), then by id; a bounded heap keeps
 * the first `to`: the matches are never sorted, only the page is.
 */
function byRelevance (index: MemoryIndex, scratch: Scratch, matches: Uint32Array, n: number, from: number, to: number): number[] {
  const marks = scratch.marks
  // Typo, attribute and exactness counts are each at most 2 per word.
  const radix = 2 * n + 1
  const rule1 = new Int32Array(matches.length)
  const counts = new Int32Array((n + 1) * radix)
  for (let i = 0; i < matches.length; i++) {
    const at = (matches[i] as number) * MARKS
    const m = marks[at + MATCHED] as number
    const key = (n - popcount(m)) * radix + popcount(m & ~(marks[at + NO_TYPO] as number)) + popcount(m & ~(marks[at + ONE_TYPO] as number))
    rule1[i] = key
    counts[key] = (counts[key] as number) + 1
  }
  let last = 0
  for (let seen = 0; last < counts.length; last++) {
    seen += counts[last] as number
    if (seen >= to) break
  }
  const kept = new Uint32Array(matches.length)
  let count = 0
  for (let i = 0; i < matches.length; i++) if ((rule1[i] as number) <= last) kept[count++] = i
  const proximities = MAX_DISTANCE * Math.max(0, n - 1) + 1
  const trust = index.trust
  const score = new Float64Array(count)
  for (let j = 0; j < count; j++) {
    const i = kept[j] as number
    const d = matches[i] as number
    const at = d * MARKS
    const m = marks[at + MATCHED] as number
    const proximity = n > 1 ? proximityOf(scratch, d, n, m, popcount(m)) : 0
    const attr = popcount(m & ~(marks[at + IN_NAME] as number)) + popcount(m & ~(marks[at + IN_NAME_OR_CATEGORY] as number))
    const exactness = popcount(m & ~(marks[at + EXACT] as number)) + popcount(m & ~(marks[at + EXPANDED] as number))
    score[j] = ((((rule1[i] as number) * proximities + proximity) * radix + attr) * radix + exactness) * 256 + 255 - (trust[d] as number)
  }
  const ids = index.ids
  const slotAt = (j: number): number => matches[kept[j] as number] as number
  const ordered = firstK(count, to, score, (a, b) => (ids[slotAt(a)] as string) < (ids[slotAt(b)] as string) ? -1 : 1)
  return ordered.slice(from).map(slotAt)
}

/**
 * The first `k` of the indexes [0, count) by `key`, ties by `tie`, sorted: a bounded heap,
 * where an index whose key is above the heap's worst is dropped on one comparison.
 */
function firstK (count: number, k: number, key: Float64Array, tie: (a: number, b: number) => number): number[] {
  const compare = (a: number, b: number): number => ((key[a] as number) - (key[b] as number)) || tie(a, b)
  if (k >= count / 4) return Array.from({ length: count }, (_, i) => i).sort(compare).slice(0, k)
  // A max-heap of the best k seen so far: the worst of them on top.
  const heap: number[] = []
  const up = (i: number): void => {
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (compare(heap[i] as number, heap[parent] as number) <= 0) return
      ;[heap[i], heap[parent]] = [heap[parent] as number, heap[i] as number]
      i = parent
    }
  }
  const down = (i: number): void => {
    for (;;) {
      const left = 2 * i + 1
      const right = left + 1
      let largest = i
      if (left < heap.length && compare(heap[left] as number, heap[largest] as number) > 0) largest = left
      if (right < heap.length && compare(heap[right] as number, heap[largest] as number) > 0) largest = right
      if (largest === i) return
      ;[heap[i], heap[largest]] = [heap[largest] as number, heap[i] as number]
      i = largest
    }
  }
  for (let i = 0; i < count; i++) {
    if (heap.length < k) {
      heap.push(i)
      up(heap.length - 1)
    } else if (k > 0 && (key[i] as number) <= (key[heap[0] as number] as number) && compare(i, heap[0] as number) < 0) {
      heap[0] = i
      down(0)
    }
  }
  return heap.sort(compare)
}

/** The first `k` documents in an explicit sort order (ties broken by id in the same direction). */
function topBySort (index: MemoryIndex, docs: Uint32Array, sort: ServiceSort, k: number): number[] {
  const sign = sort.order === 'asc' ? 1 : -1
  const numeric = sort.field === 'price' ? index.price : sort.field === 'trustScore' ? index.trust : sort.field === 'createdAt' ? index.created : undefined
  // Names compare as strings in the tie-break; numeric fields order by the key.
  const key = new Float64Array(docs.length)
  if (numeric !== undefined) for (let i = 0; i < docs.length; i++) key[i] = (numeric[docs[i] as number] as number) * sign
  const { ids, nameSort } = index
  const tie = (a: number, b: number): number => {
    const da = docs[a] as number
    const db = docs[b] as number
    if (numeric === undefined && nameSort[da] !== nameSort[db]) return ((nameSort[da] as string) < (nameSort[db] as string) ? -1 : 1) * sign
    return ((ids[da] as string) < (ids[db] as string) ? -1 : 1) * sign
  }
  return firstK(docs.length, k, key, tie).map((i) => docs[i] as number)
}

export function rank (index: MemoryIndex, scratch: Scratch, query: RankQuery): RankResult {
  const plan = query.plan.slice(0, MAX_QUERY_WORDS)
  const n = plan.length
  const accept = filterOf(index, query.filter)
  if (n === 0 || accept === undefined) return { total: 0, docs: [], ...(query.facets === undefined ? {} : { facetDistribution: facetsOf(index, new Uint32Array(0), query.facets) }) }
  scratch.begin(index.slots, n)
  const touched = markMatches(index, plan, scratch)
  const kept = new Uint32Array(touched)
  let total = 0
  for (let i = 0; i < touched; i++) {
    const d = scratch.touched[i] as number
    if (accept(d)) kept[total++] = d
  }
  const matches = kept.subarray(0, total)
  const { offset, limit } = query.page
  const end = Math.min(total, offset + limit)
  let slots: number[]
  if (offset >= total) {
    slots = []
  } else if (query.sort !== undefined) {
    slots = topBySort(index, matches, query.sort, end).slice(offset)
  } else {
    slots = byRelevance(index, scratch, matches, n, offset, end)
  }
  const docs: RankedDoc[] = []
  for (const d of slots) docs.push(criteria(scratch, d, n))
  const result: RankResult = { total, docs }
  if (query.facets !== undefined) result.facetDistribution = facetsOf(index, matches, query.facets)
  return result
}
