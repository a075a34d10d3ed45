/**
 * Ranking over the in-memory postings, as Meilisearch does it: words → typo → proximity →
 * attribute → exactness, then trust score and id, ordering only as much as the requested
 * page needs.
 *
 * The postings of the query's terms are read together in slot order (a k-way merge), and
 * each matched document's marks are gathered at once: which query words it matched and
 * how well (bit masks: word matched; with 0 / ≤ 1 typos; in the name / in the name or
 * category; exactly / at most by expansion) and each word's first position per attribute.
 * Every rule but proximity is then O(1) per document from those masks.
 * The buckets of the first rule are counted for every match (the total needs that pass
 * anyway); buckets after the one that completes the page are dropped unranked, and the
 * rest are ranked by all rules at once (see byRelevance) into a heap the size of the page.
 */
import { popcount } from './bits.js'
import { MATCH_EXACTNESS } from '../match-rules.js'
import type { PlannedWord } from './query-plan.js'
import { FACET_FIELDS, type FacetDistribution, type FacetField } from '../search-engine.js'
import type { Page, ServiceFilter, ServiceSort } from '../../domain/catalog-query.js'
import { compareText } from '../../domain/sort-keys.js'
import type { Dimension } from '../../lib/service-columns.js'
import { DESCRIPTION_BIT, NO_POSITION, slotOf, type MemoryIndex } from './memory-index.js'

/** Word distance at and beyond which two words count as unrelated (Meilisearch caps proximity too). */
export const MAX_DISTANCE = 8
/** Query words beyond this many are not searched (one bit each in the per-document masks). */
export const MAX_QUERY_WORDS = 32
const ATTRIBUTES = 3
/** Positions are stored as FAR - position, so that none (0) is the smallest. */
const FAR = 0xFFFF

export interface RankedDoc {
  slot: number
  /** 1 when the document's only link to the query is its category name (no word in its name or description), else 0. */
  tier: number
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

/** Offsets of a matched document's marks in `Scratch.marks` (bit masks over the query words). */
const MATCHED = 0
const NO_TYPO = 1
const ONE_TYPO = 2
const IN_NAME = 3
const IN_NAME_OR_CATEGORY = 4
const EXACT = 5
const EXPANDED = 6
const IN_TEXT = 7
/** Marks per matched document. */
const MARKS = 8

/**
 * Working arrays of one searcher, reused across queries, indexed by match number (the
 * matches in slot order): the slot, the marks side by side, the first positions.
 */
export class Scratch {
  size = 0
  slots = new Uint32Array(0)
  marks = new Uint32Array(0)
  /**
   * Per-match working arrays of the ranking, reused: allocating them per query (megabytes
   * for a broad one) counts as external memory, which makes V8 run full collections.
   */
  filtered = new Uint32Array(0)
  rule1 = new Int32Array(0)
  kept = new Uint32Array(0)
  score = new Float64Array(0)
  /**
   * First position of word w in attribute a (name, category, description), stored as
   * FAR - position (0: none): positions[j * stride + w * 3 + a]. Zero means unset, so the
   * part a query wrote is cleared by one fill, not per document.
   */
  positions = new Uint16Array(0)
  /** The current query's: 3 per word when it has several words, else 0. */
  stride = 0
  /** How many positions the last query may have written. */
  written = 0

  /** Makes room for `slots` documents and a query of `words` words. */
  begin (slots: number, words: number): void {
    if (slots > this.size) {
      this.size = Math.max(1024, slots + (slots >>> 2))
      this.slots = new Uint32Array(this.size)
      this.marks = new Uint32Array(this.size * MARKS)
      this.filtered = new Uint32Array(this.size)
      this.rule1 = new Int32Array(this.size)
      this.kept = new Uint32Array(this.size)
      this.score = new Float64Array(this.size)
      this.positions = new Uint16Array(0)
    }
    this.positions.fill(0, 0, this.written)
    this.written = 0
    this.stride = words > 1 ? words * ATTRIBUTES : 0
    if (this.size * this.stride > this.positions.length) this.positions = new Uint16Array(this.size * this.stride)
  }

  /** Approximate bytes held. */
  get bytes (): number {
    return this.slots.byteLength + this.marks.byteLength + this.positions.byteLength + this.filtered.byteLength + this.rule1.byteLength + this.kept.byteLength + this.score.byteLength
  }
}

/** One posting a query reads, with the marks its entries set. */
interface Source {
  entries: Uint32Array
  length: number
  /** Term postings hold packed entries (slot, attribute, position); category postings bare slots. */
  packed: boolean
  word: number
  bit: number
  typoBit0: number
  typoBit1: number
  exactBit: number
  expandedBit: number
  /** A category posting's position of the term in the category text. */
  categoryPosition: number
}

function sourcesOf (index: MemoryIndex, plan: readonly PlannedWord[]): Source[] {
  const sources: Source[] = []
  plan.forEach((word, w) => {
    const bit = (1 << w) >>> 0
    for (const candidate of word.candidates) {
      const exactness = MATCH_EXACTNESS[candidate.kind]
      const marks = {
        word: w,
        bit,
        typoBit0: candidate.typos === 0 ? bit : 0,
        typoBit1: candidate.typos <= 1 ? bit : 0,
        exactBit: exactness === 0 ? bit : 0,
        expandedBit: exactness <= 1 ? bit : 0
      }
      const posting = index.postings.get(candidate.term)
      if (posting !== undefined && posting.length > 0) sources.push({ entries: posting.entries, length: posting.length, packed: true, ...marks, categoryPosition: 0 })
      for (const [code, position] of index.categoryTerms.get(candidate.term) ?? []) {
        const docs = index.categoryDocs[code]
        if (docs !== undefined && docs.length > 0) sources.push({ entries: docs.entries, length: docs.length, packed: false, ...marks, categoryPosition: position })
      }
    }
  })
  return sources
}

/**
 * Marks every document the plan's terms meet; returns how many. The postings are sorted
 * by slot, so they are read together as a k-way merge (a heap of their heads): each
 * document's marks are gathered from all of them at once and written once, in slot order,
 * to the next match number. Every read and write moves forward: no per-slot arrays to
 * clear, and no cache miss per entry.
 */
function markMatches (index: MemoryIndex, plan: readonly PlannedWord[], scratch: Scratch): number {
  const sources = sourcesOf(index, plan)
  const k = sources.length
  const next = new Int32Array(k)
  const head = new Int32Array(k)
  const heap = new Int32Array(k)
  let size = 0
  const slotAt = (source: Source, i: number): number => source.packed ? slotOf(source.entries[i] as number) : source.entries[i] as number
  const siftDown = (from: number): void => {
    let i = from
    const s = heap[i] as number
    const key = head[s] as number
    for (;;) {
      let child = 2 * i + 1
      if (child >= size) break
      if (child + 1 < size && (head[heap[child + 1] as number] as number) < (head[heap[child] as number] as number)) child++
      if ((head[heap[child] as number] as number) >= key) break
      heap[i] = heap[child] as number
      i = child
    }
    heap[i] = s
  }
  for (let s = 0; s < k; s++) {
    head[s] = slotAt(sources[s] as Source, 0)
    heap[size++] = s
  }
  for (let i = (size >> 1) - 1; i >= 0; i--) siftDown(i)

  const { slots, marks, positions, stride } = scratch
  let count = 0
  let current = -1
  let at = 0
  let p = 0
  while (size > 0) {
    const s = heap[0] as number
    const source = sources[s] as Source
    const { entries, length, packed, bit, typoBit0, typoBit1, exactBit, expandedBit } = source
    const name = source.word * ATTRIBUTES
    const category = FAR - source.categoryPosition
    // A run: this posting's entries up to the next head of another posting need no heap work.
    let bound = Infinity
    if (size > 1) bound = head[heap[1] as number] as number
    if (size > 2 && (head[heap[2] as number] as number) < bound) bound = head[heap[2] as number] as number
    let i = next[s] as number
    let d = head[s] as number
    for (;;) {
      if (d !== current) {
        current = d
        slots[count] = d
        at = count * MARKS
        marks[at] = 0; marks[at + 1] = 0; marks[at + 2] = 0; marks[at + 3] = 0; marks[at + 4] = 0; marks[at + 5] = 0; marks[at + 6] = 0; marks[at + 7] = 0
        p = count * stride
        count++
      }
      marks[at + MATCHED] = (marks[at + MATCHED] as number) | bit
      marks[at + NO_TYPO] = (marks[at + NO_TYPO] as number) | typoBit0
      marks[at + ONE_TYPO] = (marks[at + ONE_TYPO] as number) | typoBit1
      marks[at + EXACT] = (marks[at + EXACT] as number) | exactBit
      marks[at + EXPANDED] = (marks[at + EXPANDED] as number) | expandedBit
      if (packed) {
        const entry = entries[i] as number
        const inDescription = (entry & DESCRIPTION_BIT) !== 0
        marks[at + IN_TEXT] = (marks[at + IN_TEXT] as number) | bit
        if (!inDescription) {
          marks[at + IN_NAME] = (marks[at + IN_NAME] as number) | bit
          marks[at + IN_NAME_OR_CATEGORY] = (marks[at + IN_NAME_OR_CATEGORY] as number) | bit
        }
        const position = entry & NO_POSITION
        if (stride > 0 && position !== NO_POSITION) {
          const q = p + name + (inDescription ? 2 : 0)
          if (FAR - position > (positions[q] as number)) positions[q] = FAR - position
        }
      } else {
        marks[at + IN_NAME_OR_CATEGORY] = (marks[at + IN_NAME_OR_CATEGORY] as number) | bit
        if (stride > 0 && category > (positions[p + name + 1] as number)) positions[p + name + 1] = category
      }
      i++
      if (i === length) break
      d = packed ? slotOf(entries[i] as number) : entries[i] as number
      if (d > bound) break
    }
    // The posting's next slot goes back into the heap, or the posting leaves it.
    if (i < length) {
      next[s] = i
      head[s] = d
    } else {
      heap[0] = heap[--size] as number
    }
    if (size > 1) siftDown(0)
  }
  scratch.written = count * stride
  return count
}

/** The facet fields as the columns' dimensions. */
const DIMENSION_OF: Record<FacetField, Dimension> = { category: 'category', status: 'status', network: 'chain' }

function facetsOf (index: MemoryIndex, docs: Uint32Array, fields: readonly FacetField[]): FacetDistribution {
  const asked = FACET_FIELDS.filter((field) => fields.includes(field))
  const counts = index.columns.facets(docs, asked.map((field) => DIMENSION_OF[field]))
  return Object.fromEntries(asked.map((field) => [field, counts[DIMENSION_OF[field]] ?? {}]))
}

/** The ranking criteria of match number `j`, read off its marks. */
function criteria (scratch: Scratch, j: number, n: number): RankedDoc {
  const marks = scratch.marks
  const at = j * MARKS
  const m = marks[at + MATCHED] as number
  const words = popcount(m)
  return {
    slot: scratch.slots[j] as number,
    tier: marks[at + IN_TEXT] === 0 ? 1 : 0,
    words,
    typos: popcount(m & ~(marks[at + NO_TYPO] as number)) + popcount(m & ~(marks[at + ONE_TYPO] as number)),
    proximity: proximityOf(scratch, j, n, m, words),
    attr: popcount(m & ~(marks[at + IN_NAME] as number)) + popcount(m & ~(marks[at + IN_NAME_OR_CATEGORY] as number)),
    exactness: popcount(m & ~(marks[at + EXACT] as number)) + popcount(m & ~(marks[at + EXPANDED] as number))
  }
}

/**
 * Proximity: for each pair of consecutive query words both matched, their closest first
 * positions in a shared attribute (reversed order one step further, capped); a pair never
 * seen together counts as the cap.
 */
function proximityOf (scratch: Scratch, j: number, n: number, m: number, words: number): number {
  if (n < 2) return 0
  const positions = scratch.positions
  const p = j * scratch.stride
  let saved = 0
  for (let w = 0; w + 1 < n; w++) {
    if (((m >>> w) & 3) !== 3) continue
    let best = MAX_DISTANCE
    for (let a = 0; a < ATTRIBUTES; a++) {
      const storedFirst = positions[p + w * ATTRIBUTES + a] as number
      const storedSecond = positions[p + (w + 1) * ATTRIBUTES + a] as number
      if (storedFirst === 0 || storedSecond === 0) continue
      const first = FAR - storedFirst
      const second = FAR - storedSecond
      const distance = second > first ? second - first : first - second + 1
      if (distance < best) best = distance
    }
    saved += MAX_DISTANCE - best
  }
  return MAX_DISTANCE * (words - 1) - saved
}

/**
 * The match numbers at rank positions [from, to) by relevance. Rule 1 (words, then typos) is
 * a counting sort over every match: its buckets after the one that reaches `to` are
 * dropped unranked. The documents left are ordered by all the rules read as one number
 * (each rule a digit of its own radix, so the number orders exactly like the rules
 * applied in turn, as Meilisearch's bucket sort does), then by id; a bounded heap keeps
 * the first `to`: the matches are never sorted, only the page is.
 */
function byRelevance (index: MemoryIndex, scratch: Scratch, matches: Uint32Array, n: number, from: number, to: number): number[] {
  const { marks, slots } = scratch
  // Typo, attribute and exactness counts are each at most 2 per word.
  const radix = 2 * n + 1
  const rule1 = scratch.rule1
  // The leading tier (category-only matches last), then words, then typos.
  const tierSize = (n + 1) * radix
  const counts = new Int32Array(2 * tierSize)
  for (let i = 0; i < matches.length; i++) {
    const at = (matches[i] as number) * MARKS
    const m = marks[at + MATCHED] as number
    const key = (marks[at + IN_TEXT] === 0 ? tierSize : 0) + (n - popcount(m)) * radix + popcount(m & ~(marks[at + NO_TYPO] as number)) + popcount(m & ~(marks[at + ONE_TYPO] as number))
    rule1[i] = key
    counts[key] = (counts[key] as number) + 1
  }
  let last = 0
  for (let seen = 0; last < counts.length; last++) {
    seen += counts[last] as number
    if (seen >= to) break
  }
  const kept = scratch.kept
  let count = 0
  for (let i = 0; i < matches.length; i++) if ((rule1[i] as number) <= last) kept[count++] = i
  const proximities = MAX_DISTANCE * Math.max(0, n - 1) + 1
  const trust = index.trust
  const score = scratch.score
  for (let c = 0; c < count; c++) {
    const i = kept[c] as number
    const j = matches[i] as number
    const at = j * MARKS
    const m = marks[at + MATCHED] as number
    const proximity = n > 1 ? proximityOf(scratch, j, n, m, popcount(m)) : 0
    const attr = popcount(m & ~(marks[at + IN_NAME] as number)) + popcount(m & ~(marks[at + IN_NAME_OR_CATEGORY] as number))
    const exactness = popcount(m & ~(marks[at + EXACT] as number)) + popcount(m & ~(marks[at + EXPANDED] as number))
    score[c] = ((((rule1[i] as number) * proximities + proximity) * radix + attr) * radix + exactness) * 256 + 255 - (trust[slots[j] as number] as number)
  }
  const ids = index.ids
  const matchAt = (c: number): number => matches[kept[c] as number] as number
  const ordered = firstK(count, to, score, (a, b) => (ids[slots[matchAt(a)] as number] as string) < (ids[slots[matchAt(b)] as number] as string) ? -1 : 1)
  return ordered.slice(from).map(matchAt)
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

/** The first `k` match numbers in an explicit sort order (ties broken by id in the same direction). */
function topBySort (index: MemoryIndex, scratch: Scratch, matches: Uint32Array, sort: ServiceSort, k: number): number[] {
  const sign = sort.order === 'asc' ? 1 : -1
  const numeric = sort.field === 'price' ? index.price : sort.field === 'trustScore' ? index.trust : sort.field === 'createdAt' ? index.created : undefined
  const slots = scratch.slots
  const slotAt = (i: number): number => slots[matches[i] as number] as number
  // Names compare as strings in the tie-break; numeric fields order by the key.
  const key = scratch.score
  for (let i = 0; i < matches.length; i++) key[i] = numeric === undefined ? 0 : (numeric[slotAt(i)] as number) * sign
  const { ids, nameSort } = index
  const tie = (a: number, b: number): number => {
    const da = slotAt(a)
    const db = slotAt(b)
    // Code-point order, as the store lists names (UTF-16 `<` would put U+10000 and up first).
    const byName = numeric === undefined ? compareText(nameSort[da] as string, nameSort[db] as string) : 0
    return (byName !== 0 ? byName : compareText(ids[da] as string, ids[db] as string)) * sign
  }
  return firstK(matches.length, k, key, tie).map((i) => matches[i] as number)
}

export function rank (index: MemoryIndex, scratch: Scratch, query: RankQuery): RankResult {
  const plan = query.plan.slice(0, MAX_QUERY_WORDS)
  const n = plan.length
  const accept = index.columns.matcher(query.filter)
  if (n === 0 || accept === undefined) return { total: 0, docs: [], ...(query.facets === undefined ? {} : { facetDistribution: facetsOf(index, new Uint32Array(0), query.facets) }) }
  scratch.begin(index.slots, n)
  const matched = markMatches(index, plan, scratch)
  const slots = scratch.slots
  // Match numbers of the documents that pass the filter.
  const kept = scratch.filtered
  let total = 0
  for (let j = 0; j < matched; j++) if (accept(slots[j] as number)) kept[total++] = j
  const matches = kept.subarray(0, total)
  const { offset, limit } = query.page
  const end = Math.min(total, offset + limit)
  let page: number[]
  if (offset >= total) {
    page = []
  } else if (query.sort !== undefined) {
    page = topBySort(index, scratch, matches, query.sort, end).slice(offset)
  } else {
    page = byRelevance(index, scratch, matches, n, offset, end)
  }
  const docs: RankedDoc[] = []
  for (const j of page) docs.push(criteria(scratch, j, n))
  const result: RankResult = { total, docs }
  if (query.facets !== undefined) result.facetDistribution = facetsOf(index, matches.map((j) => slots[j] as number), query.facets)
  return result
}
