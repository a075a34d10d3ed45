/**
 * Ranking over the in-memory postings, as Meilisearch does it: a leading tier (text
 * matches before category-only ones), words → typo → proximity → attribute → exactness,
 * then trust score and id, ordering only as much as the requested page needs.
 *
 * Per query word, a bitset of the documents it meets, split by attribute, typos and
 * exactness (word-sets.ts, cached across queries). The matches are their union (the
 * total is its popcount after the filter); each rule's count per document is computed for
 * 32 documents at a time with bitwise operations, its buckets counted by popcount, and
 * only the buckets the page reaches are cut by the next rule (see cut). Proximity is read
 * per document (word positions), into the same bit planes, in each bucket the page reaches
 * it with; small buckets, and trust and id at the end, are ranked per document.
 */
import { popcount } from '../index/bits.js'
import type { PlannedWord } from './query-plan.js'
import { FACET_FIELDS, type FacetDistribution, type FacetField } from '../../search-engine.js'
import type { Page, ServiceFilter, ServiceSort } from '../../../domain/catalog-query.js'
import { compareText } from '../../../domain/sort-keys.js'
import { MATCH_EXACTNESS } from '../../match-rules.js'
import type { Dimension } from '../../../lib/service-columns.js'
import type { MemoryIndex } from '../index/memory-index.js'
import { ANY, ATTRIBUTES, EXACT, EXPANDED, FAR, NAME, NAME_OR_CATEGORY, NO_TYPO, ONE_TYPO, SETS, TEXT, WordSetCache, type WordSets } from './word-sets.js'
import { TopHeap } from './top-heap.js'
import { mapPacked } from '../index/packed.js'

/** Word distance at and beyond which two words count as unrelated (Meilisearch caps proximity too). */
export const MAX_DISTANCE = 8
/** Query words beyond this many are not searched (one bit each in the per-document masks). */
export const MAX_QUERY_WORDS = 32

export interface RankedDoc {
  slot: number
  /** 1 when the document's only link to the query is its category name (no word in its name or description), else 0. */
  tier: number
  words: number
  typos: number
  proximity: number
  attr: number
  exactness: number
  /** The query words the document matched, as bits (word w: 1 << w); of those, the ones matched exactly and at most by expansion. */
  matched: number
  exact: number
  expanded: number
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

/** The rules buckets are cut by, in order; then trust score and id. */
const TIER = 0
const WORDS = 1
const TYPO = 2
const PROXIMITY = 3
const ATTRIBUTE = 4
/** Then exactness: planesAt's last case. */
const EXACTNESS = 5
const TRUST = 6
/** A bucket this small is ranked document by document instead of being cut further. */
const SMALL_BUCKET = 48
/** Bit planes of a rule's per-document count (proximity: at most MAX_DISTANCE per pair of 32 words, < 2^8). */
const PLANES = 8
/**
 * Words a pass over every block reads unrolled, with no loop over the words per block (that
 * loop took a third of the pass). A query of fewer words is padded: the union and zero-count
 * passes with its first word (OR and AND give the same with it twice), the counting passes
 * with empty blocks (Scratch.empty).
 */
const UNROLLED = 3

/**
 * Working memory of one searcher, reused across queries (allocating megabytes per query
 * counts as external memory and makes V8 run full collections): per rule level a bucket
 * bitset and the bit planes of the rule's count per block; the match list for sorts and
 * facets; and the cache of per-word sets.
 */
export class Scratch {
  blocks = 0
  #buckets: Uint32Array[] = []
  #planes: Int32Array[] = []
  slots = new Uint32Array(0)
  key = new Float64Array(0)
  /** Documents per proximity value in the bucket being cut (its values are sparse: empty ones take no pass). */
  readonly proximityCounts = new Int32Array(1 << PLANES)
  readonly heap = new TopHeap()
  /** zeroPass's first and last blocks holding a document. */
  readonly span = new Int32Array(2)
  /** Blocks of no documents: what a counting pass pads a query of fewer than UNROLLED words with. */
  empty = new Uint32Array(0)

  constructor (readonly cache = new WordSetCache()) {}

  /** Makes room for an index of `blocks` 32-slot blocks. */
  begin (blocks: number): void {
    if (blocks <= this.blocks) return
    this.blocks = Math.max(32, blocks + (blocks >>> 2))
    this.#buckets = []
    this.#planes = []
    this.empty = new Uint32Array(this.blocks)
  }

  bucket (level: number): Uint32Array {
    return (this.#buckets[level] ??= new Uint32Array(this.blocks))
  }

  planes (level: number): Int32Array {
    return (this.#planes[level] ??= new Int32Array(this.blocks * PLANES))
  }

  /** Room for `count` matches in `slots` and `key`. */
  matches (count: number): void {
    if (count <= this.slots.length) return
    const size = Math.max(1024, count + (count >>> 2))
    this.slots = new Uint32Array(size)
    this.key = new Float64Array(size)
  }

  /** Approximate bytes held (the word-set cache included). */
  get bytes (): number {
    let bytes = this.slots.byteLength + this.key.byteLength + this.heap.bytes + this.cache.bytes
    for (const bucket of this.#buckets) bytes += bucket?.byteLength ?? 0
    for (const planes of this.#planes) bytes += planes?.byteLength ?? 0
    return bytes
  }
}

/** One query's view: the planned words' sets and the columns the ranking reads. */
interface Context {
  n: number
  sets: WordSets[]
  bits: Uint32Array[]
  /** Blocks of 32 slots in use (the loops' bound). */
  blocks: number
  /** Where word w's set s starts in bits[w]: offsets[w * SETS + s] (WordSets.offsets). */
  offsets: Int32Array
  /** Each slot's place by trust, then id (MemoryIndex.trustRanks). */
  trustRank: Uint32Array
  /** Slots by trust, then id (MemoryIndex.trustOrder). */
  trustOrder: Int32Array
  slots: number
  scratch: Scratch
  /** Per rule, the query words that can count in it (others add 0 to every document). */
  counted: Int32Array
  /** Radix of typo, attribute and exactness counts (at most 2 per word). */
  radix: number
  proximities: number
  /**
   * The words rule's first bucket over every match (documents with every word), made by
   * rank's pass over the matches into bucket 1 when the ranking starts with that rule: its
   * size (-1 when not made) and first and last blocks.
   */
  everyWord: number
  everyFirst: number
  everyLast: number
  /** Proximity's arrays (wordPositions), gathered when a document's proximity is first read. */
  positions?: { rankBases: Uint32Array[], positions: Array<Uint16Array | undefined> }
}

/** The facet fields as the columns' dimensions. */
const DIMENSION_OF: Record<FacetField, Dimension> = { category: 'category', status: 'status', network: 'chain' }

function facetsOf (index: MemoryIndex, docs: Uint32Array, fields: readonly FacetField[]): FacetDistribution {
  const asked = FACET_FIELDS.filter((field) => fields.includes(field))
  const counts = index.columns.facets(docs, asked.map((field) => DIMENSION_OF[field]))
  return Object.fromEntries(asked.map((field) => [field, counts[DIMENSION_OF[field]] ?? {}]))
}

/** The largest value of a rule's count cut in bit planes (proximity, typo, attribute, exactness) for an n-word query, in a bucket of documents matching `words` of them. */
function maxValue (rule: number, n: number, words: number): number {
  return rule === PROXIMITY ? MAX_DISTANCE * (words - 1) : 2 * n
}

/** Per rule counted over two word sets (typo, attribute, exactness): the sets a word's match must also be in. */
const SECOND_SET = [-1, -1, NO_TYPO, -1, NAME, EXACT]
const THIRD_SET = [-1, -1, ONE_TYPO, -1, NAME_OR_CATEGORY, EXPANDED]

/** Adds a bit vector to the bit-sliced counters planes[o …]: one count per bit position. */
function add (planes: Int32Array, o: number, x: number): void {
  for (let p = o; x !== 0; p++) {
    const carry = (planes[p] as number) & x
    planes[p] = (planes[p] as number) ^ x
    x = carry
  }
}

/** Bit planes of a rule's count for block i (every document of the block at once): typo, attribute or exactness. */
function planesAt (ctx: Context, rule: number, i: number, planes: Int32Array, o: number, width: number): void {
  // Not fill(): a builtin call per block costs more than the block's whole count. No count
  // exceeds the rule's maximum, so no carry reaches past `width` planes.
  for (let p = o; p < o + width; p++) planes[p] = 0
  const { bits, offsets } = ctx
  const counted = ctx.counted[rule] as number
  const second = SECOND_SET[rule] as number
  const third = THIRD_SET[rule] as number
  for (let w = 0; w < bits.length; w++) {
    if (((counted >>> w) & 1) === 0) continue
    const b = bits[w] as Uint32Array
    const any = b[i] as number
    add(planes, o, any & ~(b[(offsets[w * SETS + second] as number) + i] as number))
    add(planes, o, any & ~(b[(offsets[w * SETS + third] as number) + i] as number))
  }
}

/**
 * Bit planes of proximity for block i, document by document (its words' positions), and
 * the documents per value. Apart from planesAt, which stays small enough to be inlined.
 */
function proximityPlanesAt (ctx: Context, i: number, planes: Int32Array, o: number, width: number, within: number): void {
  for (let p = o; p < o + width; p++) planes[p] = 0
  const { bits } = ctx
  const counts = ctx.scratch.proximityCounts
  for (let x = within; x !== 0; x &= x - 1) {
    const bit = x & -x
    let m = 0
    for (let w = 0; w < bits.length; w++) if ((((bits[w] as Uint32Array)[i] as number) & bit) !== 0) m |= 1 << w
    const value = proximityOf(ctx, i * 32 + 31 - Math.clz32(bit), m, popcount(m))
    counts[value] = (counts[value] as number) + 1
    for (let v = value, p = o; v !== 0; v >>>= 1, p++) if ((v & 1) !== 0) planes[p] = (planes[p] as number) | bit
  }
}

/**
 * The documents of blocks lo…hi of `set` whose count for `rule` (any but proximity) is 0,
 * into `into` (for the tier: the documents with a word in their name or description).
 * A word's count is 0 where its matches all lie in its second set (which lies within the
 * third). Returns their number; the first and last blocks holding some go in scratch.span.
 * The counted words' arrays and set starts are gathered once per pass, not read through the
 * context per block; one loop for any number of words, as a branch first taken long after
 * start deoptimizes the pass and cut with it.
 */
function zeroPass (ctx: Context, rule: number, set: Uint32Array, into: Uint32Array, lo: number, hi: number): number {
  const { bits, offsets } = ctx
  const counted = ctx.counted[rule] as number
  // The counted words' arrays and where the set each contributes starts: TIER ORs the words'
  // TEXT sets, WORDS ANDs their ANY sets, the others AND (not matched, or in the second set).
  const set2 = rule === TIER ? TEXT : rule === WORDS ? ANY : SECOND_SET[rule] as number
  const arrays: Uint32Array[] = []
  const starts: number[] = []
  for (let w = 0; w < bits.length; w++) {
    if (((counted >>> w) & 1) === 0) continue
    arrays.push(bits[w] as Uint32Array)
    starts.push(offsets[w * SETS + set2] as number)
  }
  const k = arrays.length
  let count = 0
  let first = -1
  let last = -1
  if (k <= UNROLLED) {
    const [a0, a1 = a0, a2 = a0] = arrays as [Uint32Array, Uint32Array?, Uint32Array?]
    const [s0, s1 = s0, s2 = s0] = starts as [number, number?, number?]
    for (let i = lo; i <= hi; i++) {
      const within = set[i] as number
      const zero = rule === TIER
        ? within & ((a0[s0 + i] as number) | (a1[s1 + i] as number) | (a2[s2 + i] as number))
        : rule === WORDS
          ? within & (a0[i] as number) & (a1[i] as number) & (a2[i] as number)
          : within & (~(a0[i] as number) | (a0[s0 + i] as number)) & (~(a1[i] as number) | (a1[s1 + i] as number)) & (~(a2[i] as number) | (a2[s2 + i] as number))
      into[i] = zero
      if (zero !== 0) { if (first < 0) first = i; last = i; count += popcount(zero) }
    }
    ctx.scratch.span[0] = first
    ctx.scratch.span[1] = last
    return count
  }
  for (let i = lo; i <= hi; i++) {
    const within = set[i] as number
    let zero = 0
    if (within !== 0) {
      if (rule === TIER) {
        for (let w = 0; w < k; w++) zero |= (arrays[w] as Uint32Array)[(starts[w] as number) + i] as number
        zero &= within
      } else if (rule === WORDS) {
        zero = within
        for (let w = 0; w < k; w++) zero &= (arrays[w] as Uint32Array)[i] as number
      } else {
        zero = within
        for (let w = 0; w < k; w++) {
          const b = arrays[w] as Uint32Array
          zero &= ~(b[i] as number) | (b[(starts[w] as number) + i] as number)
        }
      }
    }
    into[i] = zero
    if (zero !== 0) { if (first < 0) first = i; last = i; count += popcount(zero) }
  }
  ctx.scratch.span[0] = first
  ctx.scratch.span[1] = last
  return count
}

/**
 * At most how many documents of a bucket (of documents matching `words` query words) count
 * 0 for `rule`, from the sizes of the word sets zeroPass intersects: for words, every word's
 * matches; for typo, attribute and exactness, when each document matches every counted
 * word, each counted word's second set.
 */
function zeroBound (ctx: Context, rule: number, words: number): number {
  const { n, sets } = ctx
  if (rule !== WORDS && n > 1 && words < n) return Infinity
  const counted = ctx.counted[rule] as number
  const set = rule === WORDS ? ANY : SECOND_SET[rule] as number
  let bound = Infinity
  for (let w = 0; w < n; w++) if (((counted >>> w) & 1) !== 0) bound = Math.min(bound, (sets[w] as WordSets).size(set))
  return bound
}

/** The documents of a block whose count equals v. */
function equalTo (planes: Int32Array, o: number, width: number, within: number, v: number): number {
  let m = within
  for (let p = 0; p < width; p++) m &= ((v >>> p) & 1) === 1 ? planes[o + p] as number : ~(planes[o + p] as number)
  return m
}

/**
 * Appends to `out` the first `need` documents of the bucket `set` (blocks lo…hi, `size`
 * documents) in ranking order, cutting it by `rule` and the rules after it, Meilisearch's
 * bucket sort: a rule's count per document is a few bitwise operations per 32 documents
 * (bit-sliced counters); a rule on which the whole bucket ties is skipped; buckets are made
 * in the rule's order, one pass each, only until the page is full, and each is cut further.
 * The words rule, and a count of 0–2 over documents matching one word, count in each
 * bucket's pass (byCounts); the others go into bit planes first.
 * Proximity's count is per document (positions) but cut the same way, so the rules after it
 * stay bitwise; a small bucket, and trust and id, are ranked per document (rankDocuments).
 */
function cut (ctx: Context, level: number, set: Uint32Array, lo: number, hi: number, size: number, need: number, rule: number, words: number, out: number[]): void {
  const n = ctx.n
  // Rules that cannot tell this bucket's documents apart are skipped: proximity for fewer
  // than two words, and a rule no query word can count in (one word, no typo candidate, no
  // category match, no expansion).
  while (rule === PROXIMITY ? words < 2 : rule < TRUST && ctx.counted[rule] === 0) rule++
  if (rule === TRUST && need * ctx.slots < size * size) {
    // Every rule ties: the first documents of the whole catalog by trust and id that are in
    // the bucket, met after about need × slots / size steps, fewer than the bucket holds.
    byTrust(ctx, set, lo, hi, need, out)
    return
  }
  // Proximity is cut in bit planes when the bucket holds at least one document per block it
  // spans; a sparser one is ranked document by document (each further rule's pass walks the
  // blocks, which costs more than reading its few documents' criteria).
  if (size <= SMALL_BUCKET || rule === TRUST || (rule === PROXIMITY && size < hi - lo + 1)) {
    rankDocuments(ctx, set, lo, hi, need, rule, out)
    return
  }
  const child = ctx.scratch.bucket(level + 1)
  if (rule === TIER) {
    // Two buckets: documents with a query word in their name or description, then those met
    // through their category name only; each one pass, no bit planes (their path, taken by few
    // queries, was first met by a query long after start and deoptimized cut).
    const text = zeroPass(ctx, TIER, set, child, lo, hi)
    if (text === 0 || text === size) { cut(ctx, level, set, lo, hi, size, need, rule + 1, words, out); return }
    const take = Math.min(need, text)
    cut(ctx, level + 1, child, ctx.scratch.span[0] as number, ctx.scratch.span[1] as number, text, take, rule + 1, words, out)
    need -= take
    if (need <= 0) return
    // The rest, in place: the cut above only read `child`.
    restInPlace(set, child, lo, hi, ctx.scratch.span)
    cut(ctx, level + 1, child, ctx.scratch.span[0] as number, ctx.scratch.span[1] as number, size - text, need, rule + 1, words, out)
    return
  }
  // The first bucket alone first: when it fills the page (most queries), or holds the whole
  // bucket (a tie), the rule's planes and other buckets are never made. Not when it cannot
  // fill the page (its pass would be lost).
  const everyWord = level === 0 && rule === WORDS ? everyWordBucket(ctx) : -1
  // Rules whose buckets are found by counting passes (byCounts) rather than bit planes.
  const counting = rule === WORDS || (words === 1 && rule !== PROXIMITY)
  if (rule !== PROXIMITY && need < size && zeroBound(ctx, rule, words) >= need) {
    const count = everyWord >= 0 ? everyWord : zeroPass(ctx, rule, set, child, lo, hi)
    const all = rule === WORDS ? n : words
    if (count === size) { cut(ctx, level, set, lo, hi, size, need, rule + 1, all, out); return }
    if (count >= need) { cut(ctx, level + 1, child, ctx.scratch.span[0] as number, ctx.scratch.span[1] as number, count, need, rule + 1, all, out); return }
    if (counting) { byCounts(ctx, rule, level, set, lo, hi, size, need, count, out); return }
  }
  if (counting) { byCounts(ctx, rule, level, set, lo, hi, size, need, everyWord, out); return }
  const top = maxValue(rule, n, words)
  const width = 32 - Math.clz32(top)
  const planes = ctx.scratch.planes(level)
  const counts = ctx.scratch.proximityCounts
  if (rule === PROXIMITY) counts.fill(0, 0, top + 1)
  // Per bit plane: whether some document of the bucket has it set, and whether some has it
  // clear. The first bucket (count 0) is made in the same pass.
  let set1 = 0
  let set0 = 0
  let count = 0
  let first = -1
  let last = -1
  for (let i = lo; i <= hi; i++) {
    const within = set[i] as number
    if (within === 0) { child[i] = 0; continue }
    const o = i * PLANES
    if (rule === PROXIMITY) proximityPlanesAt(ctx, i, planes, o, width, within); else planesAt(ctx, rule, i, planes, o, width)
    let zero = within
    for (let p = 0; p < width; p++) {
      const plane = planes[o + p] as number
      set1 |= (plane & within) === 0 ? 0 : 1 << p
      set0 |= (~plane & within) === 0 ? 0 : 1 << p
      zero &= ~plane
    }
    child[i] = zero
    if (zero !== 0) { if (first < 0) first = i; last = i; count += popcount(zero) }
  }
  if ((set1 & set0) === 0) {
    // Every document of the bucket has the same count (set1): the rule cannot order them.
    cut(ctx, level, set, lo, hi, size, need, rule + 1, words, out)
    return
  }
  // Buckets in the rule's order, each found by one pass; only those the page reaches are made.
  for (let v = 0, left = size; v <= top && need > 0 && left > 0; v++) {
    if (v > 0 && rule === PROXIMITY && counts[v] === 0) continue
    if (v > 0) {
      count = 0
      first = -1
      last = -1
      for (let i = lo; i <= hi; i++) {
        const within = set[i] as number
        const m = within === 0 ? 0 : equalTo(planes, i * PLANES, width, within, v)
        child[i] = m
        if (m !== 0) { if (first < 0) first = i; last = i; count += popcount(m) }
      }
    }
    if (count === 0) continue
    left -= count
    const take = Math.min(need, count)
    cut(ctx, level + 1, child, first, last, count, take, rule + 1, words, out)
    need -= take
  }
}

/** The size of the words rule's first bucket made by rank's pass (its span put in scratch.span), or -1. */
function everyWordBucket (ctx: Context): number {
  ctx.scratch.span[0] = ctx.everyFirst
  ctx.scratch.span[1] = ctx.everyLast
  return ctx.everyWord
}

/** child = set minus child over blocks lo…hi; its first and last non-empty blocks go in span. */
function restInPlace (set: Uint32Array, child: Uint32Array, lo: number, hi: number, span: Int32Array): void {
  let first = -1
  let last = -1
  for (let i = lo; i <= hi; i++) {
    const rest = (set[i] as number) & ~(child[i] as number)
    child[i] = rest
    if (rest !== 0) { if (first < 0) first = i; last = i }
  }
  span[0] = first
  span[1] = last
}

/**
 * A rule's buckets each found by one pass that counts in locals (countPass), only until the
 * page is full, rather than bit planes of the count for every block first (written, then read
 * once per bucket): the words rule's (all words, all but one, …), and typo, attribute or
 * exactness over documents that each match one word (a count of 0, 1 or 2). Most pages fill
 * from the first or second bucket; the words rule's planes were a quarter of a three-word
 * query's ranking, and two-word queries whose words seldom meet fill most of their page from
 * documents holding one. `zero`: the first bucket's size when it is already in the child
 * bucket (zeroPass, or rank's pass; its span in scratch.span), else -1.
 */
function byCounts (ctx: Context, rule: number, level: number, set: Uint32Array, lo: number, hi: number, size: number, need: number, zero: number, out: number[]): void {
  const { n } = ctx
  const child = ctx.scratch.bucket(level + 1)
  const span = ctx.scratch.span
  const values = rule === WORDS ? n : 3
  for (let v = 0, left = size; v < values && need > 0 && left > 0; v++) {
    let count: number
    if (v === 0 && zero >= 0) count = zero
    else if (rule === WORDS && n === 2 && v === 1) {
      // The rest (each holds one word): the bucket of both words, still in `child`, taken out.
      restInPlace(set, child, lo, hi, span)
      count = left
    } else count = countPass(ctx, rule, set, child, lo, hi, v)
    if (count === 0) continue
    const words = rule === WORDS ? n - v : 1
    // Every document counts the same: the rule cannot order them.
    if (count === size) { cut(ctx, level, set, lo, hi, size, need, rule + 1, words, out); return }
    left -= count
    const take = Math.min(need, count)
    cut(ctx, level + 1, child, span[0] as number, span[1] as number, count, take, rule + 1, words, out)
    need -= take
  }
}

/**
 * The documents of blocks lo…hi of `set` whose count for `rule` is v, into `into`; their
 * number (first and last blocks in scratch.span). The words rule counts the words a document
 * holds (its bucket v holds n - v); the others, over documents matching one word, that word's
 * matches outside the rule's second and third sets.
 */
function countPass (ctx: Context, rule: number, set: Uint32Array, into: Uint32Array, lo: number, hi: number, v: number): number {
  const { bits, offsets } = ctx
  const counted = ctx.counted[rule] as number
  const second = SECOND_SET[rule] as number
  const third = THIRD_SET[rule] as number
  // The words rule's bucket v holds exactly n - v words.
  const k = bits.length - v
  let count = 0
  let first = -1
  let last = -1
  if (bits.length <= UNROLLED) {
    // Padded with empty blocks (a word that adds nothing to a count); the typo, attribute and
    // exactness counts read each counted word's match set and its second and third sets.
    const { empty } = ctx.scratch
    const words: Uint32Array[] = []
    const seconds: number[] = []
    const thirds: number[] = []
    for (let w = 0; w < bits.length; w++) {
      if (rule !== WORDS && ((counted >>> w) & 1) === 0) continue
      words.push(bits[w] as Uint32Array)
      seconds.push(offsets[w * SETS + second] as number)
      thirds.push(offsets[w * SETS + third] as number)
    }
    const [a0 = empty, a1 = empty, a2 = empty] = words
    const [s0 = 0, s1 = 0, s2 = 0] = seconds
    const [t0 = 0, t1 = 0, t2 = 0] = thirds
    for (let i = lo; i <= hi; i++) {
      const within = set[i] as number
      let m = 0
      if (rule === WORDS) {
        // The number of words each document holds, as two bit planes (at most 3: no carry out).
        const x0 = (a0[i] as number) & within
        const x1 = (a1[i] as number) & within
        const x2 = (a2[i] as number) & within
        const c0 = x0 ^ x1 ^ x2
        const c1 = (x0 & x1) | (x2 & (x0 ^ x1))
        m = within & ((k & 1) !== 0 ? c0 : ~c0) & ((k & 2) !== 0 ? c1 : ~c1)
      } else {
        // Each counted word adds one for its matches outside its second set, one more outside
        // its third. A document of these buckets holds one word: at most 2, two planes.
        const b0 = a0[i] as number
        const b1 = a1[i] as number
        const b2 = a2[i] as number
        const y = (b0 & ~(a0[s0 + i] as number)) | (b1 & ~(a1[s1 + i] as number)) | (b2 & ~(a2[s2 + i] as number))
        const z = (b0 & ~(a0[t0 + i] as number)) | (b1 & ~(a1[t1 + i] as number)) | (b2 & ~(a2[t2 + i] as number))
        const c0 = y ^ z
        const c1 = y & z
        m = within & ((v & 1) !== 0 ? c0 : ~c0) & ((v & 2) !== 0 ? c1 : ~c1)
      }
      into[i] = m
      if (m !== 0) { if (first < 0) first = i; last = i; count += popcount(m) }
    }
    ctx.scratch.span[0] = first
    ctx.scratch.span[1] = last
    return count
  }
  for (let i = lo; i <= hi; i++) {
    const within = set[i] as number
    let m = 0
    if (within !== 0) {
      // The count's bit planes (at most 32 words: 6 planes). A document of the typo, attribute
      // and exactness buckets holds one word: at most 2, two planes with no carry out.
      let c0 = 0
      let c1 = 0
      let c2 = 0
      let c3 = 0
      let c4 = 0
      let c5 = 0
      if (rule !== WORDS) {
        for (let w = 0; w < bits.length; w++) {
          if (((counted >>> w) & 1) === 0) continue
          const b = bits[w] as Uint32Array
          const any = b[i] as number
          let x = any & ~(b[(offsets[w * SETS + second] as number) + i] as number)
          c1 |= c0 & x
          c0 ^= x
          x = any & ~(b[(offsets[w * SETS + third] as number) + i] as number)
          c1 |= c0 & x
          c0 ^= x
        }
        m = within & ((v & 1) !== 0 ? c0 : ~c0) & ((v & 2) !== 0 ? c1 : ~c1)
      } else {
        for (let w = 0; w < bits.length; w++) {
          let x = ((bits[w] as Uint32Array)[i] as number) & within
          let carry = c0 & x
          c0 ^= x
          x = carry
          if (x === 0) continue
          carry = c1 & x
          c1 ^= x
          x = carry
          if (x === 0) continue
          carry = c2 & x
          c2 ^= x
          x = carry
          if (x === 0) continue
          carry = c3 & x
          c3 ^= x
          x = carry
          if (x === 0) continue
          carry = c4 & x
          c4 ^= x
          c5 ^= carry
        }
        m = within & ((k & 1) !== 0 ? c0 : ~c0) & ((k & 2) !== 0 ? c1 : ~c1) & ((k & 4) !== 0 ? c2 : ~c2) &
          ((k & 8) !== 0 ? c3 : ~c3) & ((k & 16) !== 0 ? c4 : ~c4) & ((k & 32) !== 0 ? c5 : ~c5)
      }
    }
    into[i] = m
    if (m !== 0) { if (first < 0) first = i; last = i; count += popcount(m) }
  }
  ctx.scratch.span[0] = first
  ctx.scratch.span[1] = last
  return count
}

/**
 * Appends the first `need` documents of `set` in trust-then-id order. Only blocks lo…hi of a
 * bucket are written for this query (the arrays are reused): slots outside are not read.
 */
function byTrust (ctx: Context, set: Uint32Array, lo: number, hi: number, need: number, out: number[]): void {
  const order = ctx.trustOrder
  for (let k = 0; k < order.length && need > 0; k++) {
    const slot = order[k] as number
    const block = slot >>> 5
    if (block < lo || block > hi || (((set[block] as number) >>> (slot & 31)) & 1) === 0) continue
    out.push(slot)
    need--
  }
}

/**
 * A document's masks over the query words, one per set of MASK_SETS (matched, in name, in name
 * or category, exact, at most expanded, 0 typos, ≤ 1 typo, in text).
 */
function masksOf (ctx: Context, slot: number, masks: Int32Array): void {
  for (let s = 0; s < MASK_SETS.length; s++) masks[s] = 0
  const i = slot >>> 5
  const b = slot & 31
  const { bits, offsets } = ctx
  for (let w = 0; w < bits.length; w++) {
    const word = bits[w] as Uint32Array
    if ((((word[i] as number) >>> b) & 1) === 0) continue
    const bit = 1 << w
    masks[M_ANY] = (masks[M_ANY] as number) | bit
    for (let s = 1; s < MASK_SETS.length; s++) if ((((word[(offsets[w * SETS + (MASK_SETS[s] as number)] as number) + i] as number) >>> b) & 1) === 1) masks[s] = (masks[s] as number) | bit
  }
}
/** The word sets behind each mask of masksOf. */
const MASK_SETS = [ANY, NAME, NAME_OR_CATEGORY, EXACT, EXPANDED, NO_TYPO, ONE_TYPO, TEXT]
const M_ANY = 0
const M_NAME = 1
const M_NAME_OR_CATEGORY = 2
const M_EXACT = 3
const M_EXPANDED = 4
const M_NO_TYPO = 5
const M_ONE_TYPO = 6
const M_TEXT = 7

/**
 * Proximity: for each pair of consecutive query words both matched, their closest first
 * positions in a shared attribute (reversed order one step further, capped); a pair never
 * seen together counts as the cap. Each word's ranks and positions are read from arrays
 * gathered once per query (wordPositions), not through a getter and a method per pair.
 */
function proximityOf (ctx: Context, slot: number, m: number, words: number): number {
  const { n, bits } = ctx
  if (n < 2) return 0
  const { rankBases, positions } = wordPositions(ctx)
  const i = slot >>> 5
  const below = ((1 << (slot & 31)) >>> 0) - 1
  let saved = 0
  for (let w = 0; w + 1 < n; w++) {
    if (((m >>> w) & 3) !== 3) continue
    const positionsA = positions[w] ??= (ctx.sets[w] as WordSets).positions
    const positionsC = positions[w + 1] ??= (ctx.sets[w + 1] as WordSets).positions
    // The document's triple in each word's positions: its rank among the word's matches.
    const pa = (((rankBases[w] as Uint32Array)[i] as number) + popcount(((bits[w] as Uint32Array)[i] as number) & below)) * ATTRIBUTES
    const pc = (((rankBases[w + 1] as Uint32Array)[i] as number) + popcount(((bits[w + 1] as Uint32Array)[i] as number) & below)) * ATTRIBUTES
    let best = MAX_DISTANCE
    for (let t = 0; t < ATTRIBUTES; t++) {
      const storedFirst = positionsA[pa + t] as number
      const storedSecond = positionsC[pc + t] as number
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
 * Each query word's match ranks per block, and its first positions once a document's pair
 * needs them (WordSets builds them on first use: a word whose pairs never meet costs none).
 */
function wordPositions (ctx: Context): { rankBases: Uint32Array[], positions: Array<Uint16Array | undefined> } {
  return (ctx.positions ??= { rankBases: mapPacked(ctx.sets, (sets) => sets.rankBase), positions: mapPacked(ctx.sets, () => undefined) })
}

const scratchMasks = new Int32Array(8)

/** The ranking criteria of a document, read off the word sets. */
function criteria (ctx: Context, slot: number): RankedDoc {
  const masks = scratchMasks
  masksOf(ctx, slot, masks)
  const m = masks[M_ANY] as number
  const words = popcount(m)
  return {
    slot,
    tier: masks[M_TEXT] === 0 ? 1 : 0,
    words,
    typos: popcount(m & ~(masks[M_NO_TYPO] as number)) + popcount(m & ~(masks[M_ONE_TYPO] as number)),
    proximity: proximityOf(ctx, slot, m, words),
    attr: popcount(m & ~(masks[M_NAME] as number)) + popcount(m & ~(masks[M_NAME_OR_CATEGORY] as number)),
    exactness: popcount(m & ~(masks[M_EXACT] as number)) + popcount(m & ~(masks[M_EXPANDED] as number)),
    matched: m,
    exact: masks[M_EXACT] as number,
    expanded: masks[M_EXPANDED] as number
  }
}

/**
 * The first `need` documents of a bucket by every rule from `rule` on, as one number per
 * document (each rule a digit of its own radix, so the number orders exactly like the rules
 * applied in turn), then by trust and id (one integer, the slot's place in the trust
 * order): a bounded heap of `need`, where a document whose best possible number (its
 * proximity at the least its matched pairs allow) is already above the heap's worst is
 * dropped before its proximity is computed. The bucket was cut by every rule before `rule`,
 * so its documents tie on those: from proximity on, tier, words and typos are not read, and
 * after it proximity is not computed. From TRUST on, only the trust order is read.
 */
function rankDocuments (ctx: Context, set: Uint32Array, lo: number, hi: number, need: number, rule: number, out: number[]): void {
  if (need <= 0 || lo < 0) return
  const { n, radix, proximities, trustRank, bits, offsets } = ctx
  const tierSize = (n + 1) * radix
  const square = radix * radix
  const heap = ctx.scratch.heap.reset(need)
  const early = rule < PROXIMITY
  const proximity = n > 1 && rule <= PROXIMITY
  const pairMask = (2 ** Math.max(0, n - 1)) - 1
  for (let i = lo; i <= hi; i++) {
    for (let x = set[i] as number; x !== 0; x &= x - 1) {
      const b = 31 - Math.clz32(x & -x)
      const slot = i * 32 + b
      if (rule === TRUST) { heap.offer(0, trustRank[slot] as number, slot); continue }
      // The document's masks over the query words (bit w: word w), in locals.
      let m = 0
      let name = 0
      let nameOrCategory = 0
      let exact = 0
      let expanded = 0
      let noTypo = 0
      let oneTypo = 0
      let text = 0
      for (let w = 0; w < n; w++) {
        const word = bits[w] as Uint32Array
        if ((((word[i] as number) >>> b) & 1) === 0) continue
        const o = w * SETS
        m |= 1 << w
        name |= ((((word[(offsets[o + NAME] as number) + i] as number) >>> b) & 1) << w)
        nameOrCategory |= ((((word[(offsets[o + NAME_OR_CATEGORY] as number) + i] as number) >>> b) & 1) << w)
        exact |= ((((word[(offsets[o + EXACT] as number) + i] as number) >>> b) & 1) << w)
        expanded |= ((((word[(offsets[o + EXPANDED] as number) + i] as number) >>> b) & 1) << w)
        if (!early) continue
        noTypo |= ((((word[(offsets[o + NO_TYPO] as number) + i] as number) >>> b) & 1) << w)
        oneTypo |= ((((word[(offsets[o + ONE_TYPO] as number) + i] as number) >>> b) & 1) << w)
        text |= ((((word[(offsets[o + TEXT] as number) + i] as number) >>> b) & 1) << w)
      }
      const words = popcount(m)
      const rule1 = early ? (text === 0 ? tierSize : 0) + (n - words) * radix + popcount(m & ~noTypo) + popcount(m & ~oneTypo) : 0
      const attr = popcount(m & ~name) + popcount(m & ~nameOrCategory)
      const exactness = popcount(m & ~exact) + popcount(m & ~expanded)
      // The key without proximity; proximity adds `square` per unit (the rules' digits in turn).
      const base = rule1 * proximities * square + attr * radix + exactness
      // A document's place in the trust order is read only when its key does not decide: the
      // read misses the CPU's caches for most documents of a sparse bucket (a third of this
      // loop's time when it was read first).
      if (!proximity) {
        if (base <= heap.worstKey) heap.offer(base, trustRank[slot] as number, slot)
        continue
      }
      // Each matched consecutive pair saves at most MAX_DISTANCE - 1.
      const pairs = popcount(m & (m >>> 1) & pairMask)
      const least = base + (MAX_DISTANCE * Math.max(0, words - 1) - (MAX_DISTANCE - 1) * pairs) * square
      const worst = heap.worstKey
      if (least > worst || (least === worst && !heap.admits(least, trustRank[slot] as number))) continue
      const key = base + proximityOf(ctx, slot, m, words) * square
      if (key <= heap.worstKey) heap.offer(key, trustRank[slot] as number, slot)
    }
  }
  heap.drainInto(out)
}

/** The first `k` matched slots in an explicit sort order (ties broken by id in the same direction). */
function topBySort (index: MemoryIndex, scratch: Scratch, count: number, sort: ServiceSort, k: number): number[] {
  const sign = sort.order === 'asc' ? 1 : -1
  const numeric = sort.field === 'price' ? index.price : sort.field === 'trustScore' ? index.trust : sort.field === 'createdAt' ? index.created : undefined
  const { slots, key } = scratch
  const idRank = index.idRanks()
  // Names compare as strings in the tie-break; numeric fields order by the key, then id rank.
  for (let i = 0; i < count; i++) key[i] = numeric === undefined ? 0 : (numeric[slots[i] as number] as number) * sign
  const nameSort = index.nameSort
  const tie = (a: number, b: number): number => {
    const da = slots[a] as number
    const db = slots[b] as number
    // Code-point order, as the store lists names (UTF-16 `<` would put U+10000 and up first).
    const byName = numeric === undefined ? compareText(nameSort[da] as string, nameSort[db] as string) : 0
    return (byName !== 0 ? byName : (idRank[da] as number) - (idRank[db] as number)) * sign
  }
  return firstK(count, k, key, tie).map((i) => slots[i] as number)
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

/** Per rule, the words that can count in it: see Context.counted. */
function countedWords (index: MemoryIndex, plan: readonly PlannedWord[]): Int32Array {
  const counted = new Int32Array(TRUST)
  const all = plan.length >= 32 ? -1 : (1 << plan.length) - 1
  const some = (test: (candidate: PlannedWord['candidates'][number]) => boolean): number =>
    plan.reduce((mask, word, w) => word.candidates.some(test) ? mask | (1 << w) : mask, 0)
  // Tier: a document met only through a category name needs a word with category matches.
  counted[TIER] = some((c) => index.categoryTerms.has(c.term)) === 0 ? 0 : all
  counted[WORDS] = plan.length > 1 ? all : 0
  counted[TYPO] = some((c) => c.typos > 0)
  counted[ATTRIBUTE] = all
  counted[EXACTNESS] = some((c) => MATCH_EXACTNESS[c.kind] > 0)
  return counted
}

export function rank (index: MemoryIndex, scratch: Scratch, query: RankQuery): RankResult {
  // Sliced only when longer: loading `slice` off the plan array was a deopt loop in V8 11 (a
  // "wrong map" at every call for hundreds of searches).
  const plan = query.plan.length > MAX_QUERY_WORDS ? query.plan.slice(0, MAX_QUERY_WORDS) : query.plan
  const n = plan.length
  const accept = index.columns.matcher(query.filter)
  if (n === 0 || accept === undefined) return { total: 0, docs: [], ...(query.facets === undefined ? {} : { facetDistribution: facetsOf(index, new Uint32Array(0), query.facets) }) }
  const blocks = (index.slots + 31) >>> 5
  scratch.begin(blocks)
  scratch.cache.begin()
  const sets = mapPacked(plan, (word) => scratch.cache.get(index, word))
  const bits = mapPacked(sets, (s) => s.bits)
  // The matches: any word's documents, those the filter rejects cleared. Their count is the exact total.
  const matched = scratch.bucket(0)
  const accepted = scratch.cache.filter(index, query.filter, accept)
  const counted = countedWords(index, plan)
  // Several words and no category match: the ranking starts by cutting every match by the
  // words rule, whose first bucket (every word) is made here, in the same pass (cut's zeroPass
  // over every block was ~8 % of a mixed query's time).
  const every = n > 1 && counted[TIER] === 0 && query.sort === undefined ? scratch.bucket(1) : undefined
  let total = 0
  let lo = -1
  let hi = -1
  let everyWord = 0
  let everyFirst = -1
  let everyLast = -1
  const [b0, b1 = b0, b2 = b0] = bits as [Uint32Array, Uint32Array?, Uint32Array?]
  for (let i = 0; i < blocks; i++) {
    let x = 0
    let y = -1
    if (n <= UNROLLED) {
      const a = b0[i] as number
      const b = b1[i] as number
      const c = b2[i] as number
      x = a | b | c
      y = a & b & c
    } else {
      for (let w = 0; w < n; w++) {
        const b = (bits[w] as Uint32Array)[i] as number
        x |= b
        y &= b
      }
    }
    x &= accepted[i] as number
    matched[i] = x
    if (x !== 0) {
      if (lo < 0) lo = i
      hi = i
      total += popcount(x)
    }
    if (every !== undefined) {
      y &= x
      every[i] = y
      if (y !== 0) {
        if (everyFirst < 0) everyFirst = i
        everyLast = i
        everyWord += popcount(y)
      }
    }
  }
  const radix = 2 * n + 1
  const offsets = new Int32Array(n * SETS)
  for (let w = 0; w < n; w++) offsets.set((sets[w] as WordSets).offsets, w * SETS)
  const ctx: Context = { n, sets, bits, blocks, offsets, counted, everyWord: every === undefined ? -1 : everyWord, everyFirst, everyLast, trustRank: index.trustRanks(), trustOrder: index.trustOrder(), slots: index.slots, scratch, radix, proximities: MAX_DISTANCE * Math.max(0, n - 1) + 1 }
  // The matches as a list of slots, for an explicit sort and for facets.
  const list = (): number => {
    scratch.matches(total)
    let count = 0
    for (let i = lo; i <= hi && i >= 0; i++) for (let x = matched[i] as number; x !== 0; x &= x - 1) scratch.slots[count++] = i * 32 + 31 - Math.clz32(x & -x)
    return count
  }
  const { offset, limit } = query.page
  const end = Math.min(total, offset + limit)
  let page: number[] = []
  if (offset < total) {
    if (query.sort !== undefined) {
      const count = list()
      page = topBySort(index, scratch, count, query.sort, end).slice(offset)
    } else {
      const ordered: number[] = []
      cut(ctx, 0, matched, lo, hi, total, end, TIER, 0, ordered)
      page = ordered.slice(offset)
    }
  }
  const docs = mapPacked(page, (slot) => criteria(ctx, slot))
  const result: RankResult = { total, docs }
  if (query.facets !== undefined) {
    // list() may grow scratch.slots: read it after.
    const count = list()
    result.facetDistribution = facetsOf(index, scratch.slots.subarray(0, count), query.facets)
  }
  return result
}
