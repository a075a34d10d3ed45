/**
 * Ranking over the in-memory postings, as Meilisearch does it: a bucket sort on
 * words → typo → proximity → attribute → exactness, then trust score and id, that
 * orders only the buckets the requested page falls in.
 *
 * One pass over the postings of the query's terms marks, per document, which query words
 * it matched and how well (bit masks: word matched; with 0 / ≤ 1 typos; in the name / in
 * the name or category; exactly / at most by expansion) and each word's first position per
 * attribute. Every rule but proximity is then O(1) per document from those masks.
 * The buckets of the first rule are counted for every match (the total needs that pass
 * anyway); a bucket wholly before the page is skipped uncounted further, and only buckets
 * that overlap the page are split by the next rule, down to the id.
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
  return (((x + (x >>> 4)) & 0x0F0F0F0F) * 0x01010101) >>> 24
}

/**
 * Per-document working arrays of one searcher, reused across queries and cleared only
 * where a query wrote (the documents it touched).
 */
export class Scratch {
  size = 0
  matched = new Uint32Array(0)
  noTypo = new Uint32Array(0)
  oneTypo = new Uint32Array(0)
  inName = new Uint32Array(0)
  inNameOrCategory = new Uint32Array(0)
  exact = new Uint32Array(0)
  expanded = new Uint32Array(0)
  touched = new Uint32Array(0)
  /** First position of word w in attribute a: positions[w * 3 + a]. */
  positions: Uint16Array[] = []

  fit (slots: number): void {
    if (slots <= this.size) return
    const size = Math.max(1024, slots + (slots >>> 2))
    for (const key of ['matched', 'noTypo', 'oneTypo', 'inName', 'inNameOrCategory', 'exact', 'expanded', 'touched'] as const) this[key] = new Uint32Array(size)
    this.positions = []
    this.size = size
  }

  positionsOf (w: number, a: number): Uint16Array {
    let array = this.positions[w * ATTRIBUTES + a]
    if (array === undefined) {
      array = new Uint16Array(this.size).fill(UNSET)
      this.positions[w * ATTRIBUTES + a] = array
    }
    return array
  }

  /** Approximate bytes held. */
  get bytes (): number {
    return this.size * 4 * 8 + this.positions.reduce((sum, array) => sum + (array?.byteLength ?? 0), 0)
  }
}

/** Marks every document the plan's terms meet; returns how many documents were touched. */
function markMatches (index: MemoryIndex, plan: readonly PlannedWord[], scratch: Scratch): number {
  const { matched, noTypo, oneTypo, inName, inNameOrCategory, exact, expanded, touched } = scratch
  const withPositions = plan.length > 1
  let count = 0
  plan.forEach((word, w) => {
    const bit = (1 << w) >>> 0
    const name = withPositions ? scratch.positionsOf(w, 0) : undefined
    const category = withPositions ? scratch.positionsOf(w, 1) : undefined
    const description = withPositions ? scratch.positionsOf(w, 2) : undefined
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
          if (matched[d] === 0) touched[count++] = d
          matched[d] = (matched[d] as number) | bit
          noTypo[d] = (noTypo[d] as number) | typoBit0
          oneTypo[d] = (oneTypo[d] as number) | typoBit1
          exact[d] = (exact[d] as number) | exactBit
          expanded[d] = (expanded[d] as number) | expandedBit
          const inDescription = (entry & DESCRIPTION_BIT) !== 0
          if (!inDescription) {
            inName[d] = (inName[d] as number) | bit
            inNameOrCategory[d] = (inNameOrCategory[d] as number) | bit
          }
          if (withPositions) {
            const position = entry & NO_POSITION
            if (position !== NO_POSITION) {
              const positions = (inDescription ? description : name) as Uint16Array
              if (position < (positions[d] as number)) positions[d] = position
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
          if (matched[d] === 0) touched[count++] = d
          matched[d] = (matched[d] as number) | bit
          noTypo[d] = (noTypo[d] as number) | typoBit0
          oneTypo[d] = (oneTypo[d] as number) | typoBit1
          exact[d] = (exact[d] as number) | exactBit
          expanded[d] = (expanded[d] as number) | expandedBit
          inNameOrCategory[d] = (inNameOrCategory[d] as number) | bit
          if (withPositions && position < ((category as Uint16Array)[d] as number)) (category as Uint16Array)[d] = position
        }
      }
    }
  })
  return count
}

function clearMarks (scratch: Scratch, count: number, words: number): void {
  const { matched, noTypo, oneTypo, inName, inNameOrCategory, exact, expanded, touched } = scratch
  const positions = words > 1 ? scratch.positions.slice(0, words * ATTRIBUTES).filter((p): p is Uint16Array => p !== undefined) : []
  for (let i = 0; i < count; i++) {
    const d = touched[i] as number
    matched[d] = 0; noTypo[d] = 0; oneTypo[d] = 0; inName[d] = 0; inNameOrCategory[d] = 0; exact[d] = 0; expanded[d] = 0
    for (const array of positions) array[d] = UNSET
  }
}

/** A predicate for the filter, or undefined when nothing can pass it. */
function filterOf (index: MemoryIndex, filter: ServiceFilter): ((slot: number) => boolean) | undefined {
  const category = filter.category === undefined ? -1 : index.categories.get(filter.category)
  const status = filter.status === undefined ? -1 : index.statuses.get(filter.status)
  if (category === undefined || status === undefined) return undefined
  const maxPrice = filter.maxPriceAtomic ?? Infinity
  const chains = filter.chain === undefined ? undefined : index.chainSetMembers.map((members) => members.includes(filter.chain as string))
  const { alive, price, chainSet } = index
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
  const m = scratch.matched[d] as number
  const words = popcount(m)
  return {
    slot: d,
    words,
    typos: popcount(m & ~(scratch.noTypo[d] as number)) + popcount(m & ~(scratch.oneTypo[d] as number)),
    proximity: proximityOf(scratch, d, n, m, words),
    attr: popcount(m & ~(scratch.inName[d] as number)) + popcount(m & ~(scratch.inNameOrCategory[d] as number)),
    exactness: popcount(m & ~(scratch.exact[d] as number)) + popcount(m & ~(scratch.expanded[d] as number))
  }
}

/**
 * Proximity: for each pair of consecutive query words both matched, their closest first
 * positions in a shared attribute (reversed order one step further, capped); a pair never
 * seen together counts as the cap.
 */
function proximityOf (scratch: Scratch, d: number, n: number, m: number, words: number): number {
  if (n < 2) return 0
  let saved = 0
  for (let w = 0; w + 1 < n; w++) {
    if (((m >>> w) & 3) !== 3) continue
    let best = MAX_DISTANCE
    for (let a = 0; a < ATTRIBUTES; a++) {
      const first = (scratch.positions[w * ATTRIBUTES + a] as Uint16Array)[d] as number
      const second = (scratch.positions[(w + 1) * ATTRIBUTES + a] as Uint16Array)[d] as number
      if (first === UNSET || second === UNSET) continue
      const distance = second > first ? second - first : first - second + 1
      if (distance < best) best = distance
    }
    saved += MAX_DISTANCE - best
  }
  return MAX_DISTANCE * (words - 1) - saved
}

type KeyOf = (d: number) => number

/** Documents grouped by an integer key, ascending (a counting sort: keys are small). */
function bucketize (docs: Uint32Array, keyOf: KeyOf): Array<Uint32Array> {
  const keys = new Int32Array(docs.length)
  let min = Infinity
  let max = -Infinity
  for (let i = 0; i < docs.length; i++) {
    const key = keyOf(docs[i] as number)
    keys[i] = key
    if (key < min) min = key
    if (key > max) max = key
  }
  if (docs.length === 0) return []
  const counts = new Int32Array(max - min + 2)
  for (let i = 0; i < keys.length; i++) { const k = (keys[i] as number) - min + 1; counts[k] = (counts[k] as number) + 1 }
  for (let k = 1; k < counts.length; k++) counts[k] = (counts[k] as number) + (counts[k - 1] as number)
  const starts = counts.slice()
  const sorted = new Uint32Array(docs.length)
  for (let i = 0; i < docs.length; i++) { const k = (keys[i] as number) - min; const at = starts[k] as number; starts[k] = at + 1; sorted[at] = docs[i] as number }
  const buckets: Uint32Array[] = []
  for (let k = 0; k + 1 < counts.length; k++) {
    if ((counts[k + 1] as number) > (counts[k] as number)) buckets.push(sorted.subarray(counts[k], counts[k + 1]))
  }
  return buckets
}

/**
 * Appends to `out` the documents of `docs` at rank positions [from, to), ranking by
 * `levels[level…]` and then by id; buckets outside the window are not ranked further.
 */
function window (index: MemoryIndex, docs: Uint32Array, levels: readonly KeyOf[], level: number, from: number, to: number, out: number[]): void {
  if (docs.length === 1 || level === levels.length) {
    const ordered = docs.length === 1 ? [docs[0] as number] : [...docs].sort((a, b) => ((index.ids[a] as string) < (index.ids[b] as string) ? -1 : 1))
    for (let i = from; i < to && i < ordered.length; i++) out.push(ordered[i] as number)
    return
  }
  let position = 0
  for (const bucket of bucketize(docs, levels[level] as KeyOf)) {
    const end = position + bucket.length
    if (end > from) window(index, bucket, levels, level + 1, Math.max(0, from - position), Math.min(bucket.length, to - position), out)
    position = end
    if (position >= to) break
  }
}

/** The first `k` documents in an explicit sort order (a bounded heap; ties broken by id in the same direction). */
function topBySort (index: MemoryIndex, docs: Uint32Array, sort: ServiceSort, k: number): number[] {
  const sign = sort.order === 'asc' ? 1 : -1
  const value: (d: number) => number | string = sort.field === 'price'
    ? (d) => index.price[d] as number
    : sort.field === 'trustScore'
      ? (d) => index.trust[d] as number
      : sort.field === 'createdAt' ? (d) => index.created[d] as number : (d) => index.nameSort[d] as string
  const compare = (a: number, b: number): number => {
    const va = value(a)
    const vb = value(b)
    if (va !== vb) return (va < vb ? -1 : 1) * sign
    return ((index.ids[a] as string) < (index.ids[b] as string) ? -1 : 1) * sign
  }
  if (k >= docs.length / 4) return [...docs].sort(compare).slice(0, k)
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
  for (const d of docs) {
    if (heap.length < k) { heap.push(d); up(heap.length - 1) } else if (k > 0 && compare(d, heap[0] as number) < 0) { heap[0] = d; down(0) }
  }
  return heap.sort(compare)
}

export function rank (index: MemoryIndex, scratch: Scratch, query: RankQuery): RankResult {
  const plan = query.plan.slice(0, MAX_QUERY_WORDS)
  const n = plan.length
  const accept = filterOf(index, query.filter)
  if (n === 0 || accept === undefined) return { total: 0, docs: [], ...(query.facets === undefined ? {} : { facetDistribution: facetsOf(index, new Uint32Array(0), query.facets) }) }
  scratch.fit(index.slots)
  const touched = markMatches(index, plan, scratch)
  try {
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
      const { matched, noTypo, oneTypo, inName, inNameOrCategory, exact, expanded } = scratch
      const radix = 2 * MAX_QUERY_WORDS + 1
      const levels: KeyOf[] = [
        (d) => { const m = matched[d] as number; return (n - popcount(m)) * radix + popcount(m & ~(noTypo[d] as number)) + popcount(m & ~(oneTypo[d] as number)) },
        ...(n > 1 ? [(d: number) => { const m = matched[d] as number; return proximityOf(scratch, d, n, m, popcount(m)) }] : []),
        (d) => {
          const m = matched[d] as number
          const attr = popcount(m & ~(inName[d] as number)) + popcount(m & ~(inNameOrCategory[d] as number))
          return attr * radix + popcount(m & ~(exact[d] as number)) + popcount(m & ~(expanded[d] as number))
        },
        (d) => 255 - (index.trust[d] as number)
      ]
      slots = []
      window(index, matches, levels, 0, offset, end, slots)
    }
    const docs = slots.map((d) => criteria(scratch, d, n))
    return { total, docs, ...(query.facets === undefined ? {} : { facetDistribution: facetsOf(index, matches, query.facets) }) }
  } finally {
    clearMarks(scratch, touched, n)
  }
}
