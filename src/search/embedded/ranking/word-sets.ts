/**
 * Per query word (with its typo, prefix, synonym and reading derivations), the documents it
 * meets as bitsets over slots, split the ways the ranking rules ask (Meilisearch's
 * approach): matched at all; in the name or description; in the name; in the name or
 * category; by a 0-typo / ≤ 1-typo candidate; exactly / at most by expansion. Plus the
 * word's first position per attribute for every document it meets (proximity), stored
 * densely in match order and found by rank (a prefix popcount per block).
 *
 * Building one reads the word's postings once; the sets are cached across queries (common
 * words repeat), with the filters' bitsets, bounded in bytes. They are kept across writes:
 * slots only grow and a removal only clears a slot's columns (memory-index.ts), so a write
 * never changes what a set says about an older slot. A cached set is brought up to date
 * when next used, by reading only the posting entries of the slots added since; a filter's
 * set also clears the slots removed since. (A dead slot may stay in a word's sets, as it
 * does in a fresh build: the filter's set masks it.)
 */
import type { ServiceFilter } from '../../../domain/catalog-query.js'
import { MATCH_EXACTNESS } from '../../match-rules.js'
import { popcount } from '../index/bits.js'
import type { PlannedWord } from './query-plan.js'
import { DESCRIPTION_BIT, NO_POSITION, slotOf, type MemoryIndex } from '../index/memory-index.js'
import type { TermCandidate } from './query-plan.js'

/** The sets of a word, in this order (WordSets.offsets says where each lies in its bits). */
export const ANY = 0
export const TEXT = 1
export const NAME = 2
export const NAME_OR_CATEGORY = 3
export const NO_TYPO = 4
export const ONE_TYPO = 5
export const EXACT = 6
export const EXPANDED = 7
export const SETS = 8
/** Positions are stored as FAR - position, so that none (0) is the smallest. */
export const FAR = 0xFFFF
/** Attributes of a position triple: name, category, description. */
export const ATTRIBUTES = 3

/** Blocks of 32 slots the sets' layout grows by, so that writes seldom move every set. */
const STRIDE_STEP = 64

/** The layout of sets over `slots` slots: 32-bit words per set, the used blocks rounded up to STRIDE_STEP. */
export function strideOf (slots: number): number {
  return Math.max(STRIDE_STEP, Math.ceil(slots / (32 * STRIDE_STEP)) * STRIDE_STEP)
}

/**
 * The sets a candidate's matches also go in, besides ANY and the attribute sets: 0 typos,
 * ≤ 1 typo, exact, at most expanded. As a bit mask rather than a list: the loops below test
 * four constant flags per posting entry (iterating a list there was half of a build).
 */
function flagsOf (candidate: TermCandidate): number {
  const exactness = MATCH_EXACTNESS[candidate.kind]
  return (candidate.typos === 0 ? 1 : 0) | (candidate.typos <= 1 ? 2 : 0) | (exactness === 0 ? 4 : 0) | (exactness <= 1 ? 8 : 0)
}

/** The sets a flag of flagsOf puts a candidate's matches in. */
const FLAG_SETS = [[NO_TYPO, 1], [ONE_TYPO, 2], [EXACT, 4], [EXPANDED, 8]] as const

/** Whether some candidate of the word is a term of a category name (then TEXT and NAME_OR_CATEGORY differ from ANY and NAME). */
function hasCategory (index: MemoryIndex, word: PlannedWord): boolean {
  return word.candidates.some((c) => index.categoryTerms.has(c.term))
}

/**
 * Per set, the region of `bits` it lies in. Most sets of a word equal another: with no
 * category match TEXT is ANY and NAME_OR_CATEGORY is NAME; when every candidate has no typo,
 * or is exact, those sets are ANY; when none has, they are empty. Such a set shares the
 * region (the empty ones an all-zero region) instead of holding a copy: a plain word takes 2
 * regions, not 8, so the cache keeps more words (misses halved under the HTTP common-word stream).
 */
function layoutOf (index: MemoryIndex, word: PlannedWord): { region: Int8Array, regions: number } {
  let every = 15
  let some = 0
  for (const candidate of word.candidates) {
    const flags = flagsOf(candidate)
    every &= flags
    some |= flags
  }
  const region = new Int8Array(SETS).fill(-1)
  region[ANY] = 0
  let regions = 1
  const category = hasCategory(index, word)
  region[TEXT] = category ? regions++ : 0
  region[NAME] = regions++
  region[NAME_OR_CATEGORY] = category ? regions++ : region[NAME] as number
  for (const [set, flag] of FLAG_SETS) if ((every & flag) !== 0) region[set] = 0; else if ((some & flag) !== 0) region[set] = regions++
  // The empty sets, last.
  let empty = -1
  for (let s = 0; s < SETS; s++) if (region[s] === -1) region[s] = empty < 0 ? (empty = regions++) : empty
  return { region, regions }
}

/** A word's sets over the slots below `synced`; extend() adds the slots written since. */
export class WordSets {
  #positions: Uint16Array | undefined
  /** Slots covered: every slot below this. */
  synced = 0
  /** Documents in ANY (dead ones included: the filter's set removes them). */
  matched = 0
  /** 32-bit words per region (at least the used blocks). */
  stride: number
  /** Regions of `stride` 32-bit words, one after another: ANY is the first; layoutOf says which set lies where. */
  bits: Uint32Array
  /** Per set, its region's start in `bits`: set s of block i is bits[offsets[s] + i]. */
  readonly offsets = new Int32Array(SETS)
  /** Per used block, the documents matched (ANY) in the blocks before it. */
  rankBase: Uint32Array
  #region: Int8Array
  #regions: number
  /** Per set, its documents as counted when `synced` was #sizesAt (-1: not counted). */
  readonly #sizes = new Int32Array(SETS).fill(-1)
  #sizesAt = -1

  constructor (readonly index: MemoryIndex, readonly word: PlannedWord, into?: { bits: Uint32Array, rankBase: Uint32Array }) {
    this.stride = strideOf(index.slots)
    const { region, regions } = layoutOf(index, word)
    this.#region = region
    this.#regions = regions
    this.bits = into?.bits ?? new Uint32Array(regions * this.stride)
    this.rankBase = into?.rankBase ?? new Uint32Array(this.stride)
    this.#place()
  }

  /** Set s over the used blocks and beyond, to the stride (tests compare sets with this). */
  set (s: number): Uint32Array {
    const start = this.offsets[s] as number
    return this.bits.subarray(start, start + this.stride)
  }

  /** Documents in set s (dead ones included), counted once per extent of the sets. */
  size (s: number): number {
    if (this.#sizesAt !== this.synced) {
      this.#sizes.fill(-1)
      this.#sizesAt = this.synced
    }
    let size = this.#sizes[s] as number
    if (size < 0) {
      size = 0
      const start = this.offsets[s] as number
      const end = start + ((this.synced + 31) >>> 5)
      for (let i = start; i < end; i++) size += popcount(this.bits[i] as number)
      this.#sizes[s] = size
    }
    return size
  }

  #place (): void {
    for (let s = 0; s < SETS; s++) this.offsets[s] = (this.#region[s] as number) * this.stride
  }

  /**
   * Per matched document in slot order: first position in name, category, description
   * (FAR - position; 0: none). Built on first use (single-word queries and buckets of one
   * word never need them), then extended with the sets.
   */
  get positions (): Uint16Array {
    if (this.#positions === undefined) {
      this.#positions = new Uint16Array(this.matched * ATTRIBUTES)
      this.#addPositions(this.#positions, 0, this.synced)
    }
    return this.#positions
  }

  /** Bytes held; positions (6 bytes per match, or their capacity once grown) counted whether built yet or not, so the cache's bound holds. */
  get bytes (): number {
    return this.bits.byteLength + this.rankBase.byteLength + Math.max(this.matched * ATTRIBUTES * 2, this.#positions?.byteLength ?? 0) + 64
  }

  /** Offset of the slot's position triple (the slot must be matched). */
  positionsAt (slot: number): number {
    const block = slot >>> 5
    const below = ((1 << (slot & 31)) >>> 0) - 1
    return ((this.rankBase[block] as number) + popcount((this.bits[block] as number) & below)) * ATTRIBUTES
  }

  /**
   * Adds the slots from `synced` to the index's last: their bits, the ranks of the blocks
   * they are in, and (when built) their positions, which come after every older match's.
   */
  extend (): void {
    const { index, word } = this
    const from = this.synced
    const to = index.slots
    if (strideOf(to) > this.stride) this.#widen(strideOf(to))
    if (to <= from) return
    // A category named by a candidate's term since the layout was made: every match so far
    // was in the name or description, so TEXT was ANY and NAME_OR_CATEGORY was NAME.
    if (this.#region[TEXT] === 0 && hasCategory(index, word)) this.#split([[TEXT, ANY], [NAME_OR_CATEGORY, NAME]])
    const { bits, rankBase, offsets } = this
    const text = offsets[TEXT] as number
    const name = offsets[NAME] as number
    const nameOrCategory = offsets[NAME_OR_CATEGORY] as number
    const noTypo = offsets[NO_TYPO] as number
    const oneTypo = offsets[ONE_TYPO] as number
    const exact = offsets[EXACT] as number
    const expanded = offsets[EXPANDED] as number
    // Writes to a set sharing ANY's or NAME's region would repeat those: skipped.
    const ownText = text !== 0
    const ownNameOrCategory = nameOrCategory !== name
    let own = 0
    for (const [set, flag] of FLAG_SETS) if (offsets[set] !== 0) own |= flag
    for (const candidate of word.candidates) {
      // The marks a candidate gives do not depend on the document: OR its postings in.
      const flags = flagsOf(candidate) & own
      const setFlags = (i: number, bit: number): void => {
        if ((flags & 1) !== 0) bits[noTypo + i] = (bits[noTypo + i] as number) | bit
        if ((flags & 2) !== 0) bits[oneTypo + i] = (bits[oneTypo + i] as number) | bit
        if ((flags & 4) !== 0) bits[exact + i] = (bits[exact + i] as number) | bit
        if ((flags & 8) !== 0) bits[expanded + i] = (bits[expanded + i] as number) | bit
      }
      const posting = index.postings.get(candidate.term)
      if (posting !== undefined) {
        const { entries, length } = posting
        for (let e = posting.firstFrom(from); e < length; e++) {
          const entry = entries[e] as number
          const slot = slotOf(entry)
          const i = slot >>> 5
          const bit = 1 << (slot & 31)
          bits[i] = (bits[i] as number) | bit
          if (ownText) bits[text + i] = (bits[text + i] as number) | bit
          if ((entry & DESCRIPTION_BIT) === 0) {
            bits[name + i] = (bits[name + i] as number) | bit
            if (ownNameOrCategory) bits[nameOrCategory + i] = (bits[nameOrCategory + i] as number) | bit
          }
          setFlags(i, bit)
        }
      }
      for (const [code] of index.categoryTerms.get(candidate.term) ?? []) {
        const docs = index.categoryDocs[code]
        if (docs === undefined) continue
        for (let e = docs.firstAtLeast(from); e < docs.length; e++) {
          const slot = docs.entries[e] as number
          const i = slot >>> 5
          const bit = 1 << (slot & 31)
          bits[i] = (bits[i] as number) | bit
          bits[nameOrCategory + i] = (bits[nameOrCategory + i] as number) | bit
          setFlags(i, bit)
        }
      }
    }
    // Ranks from the first block that changed: the one `from` is in.
    const first = from >>> 5
    let matched = first * 32 < from ? rankBase[first] as number : this.matched
    for (let i = first, used = (to + 31) >>> 5; i < used; i++) {
      rankBase[i] = matched
      matched += popcount(bits[i] as number)
    }
    this.matched = matched
    this.synced = to
    let positions = this.#positions
    if (positions === undefined) return
    if (positions.length < matched * ATTRIBUTES) {
      // A quarter spare: writes arrive one document at a time.
      const grown = new Uint16Array(Math.max(matched * ATTRIBUTES, positions.length + (positions.length >>> 2)))
      grown.set(positions)
      positions = this.#positions = grown
    }
    this.#addPositions(positions, from, to)
  }

  /** Lays the regions out at a larger stride (the index outgrew the old one). */
  #widen (stride: number): void {
    const bits = new Uint32Array(this.#regions * stride)
    for (let r = 0; r < this.#regions; r++) bits.set(this.bits.subarray(r * this.stride, (r + 1) * this.stride), r * stride)
    const rankBase = new Uint32Array(stride)
    rankBase.set(this.rankBase)
    this.bits = bits
    this.rankBase = rankBase
    this.stride = stride
    this.#place()
  }

  /** Gives each set of `pairs` a region of its own, a copy of the set it shared one with. */
  #split (pairs: ReadonlyArray<readonly [number, number]>): void {
    const { stride } = this
    const regions = this.#regions + pairs.length
    const bits = new Uint32Array(regions * stride)
    bits.set(this.bits.subarray(0, this.#regions * stride))
    for (const [set, source] of pairs) {
      const start = this.offsets[source] as number
      bits.set(this.bits.subarray(start, start + stride), this.#regions * stride)
      this.#region[set] = this.#regions++
    }
    this.bits = bits
    this.#place()
  }

  /** Records the first positions of the matches of slots from…to-1 (their triples must be zero). */
  #addPositions (positions: Uint16Array, from: number, to: number): void {
    const { index } = this
    for (const { term } of this.word.candidates) {
      const posting = index.postings.get(term)
      if (posting !== undefined) {
        const { entries, length } = posting
        for (let e = posting.firstFrom(from); e < length; e++) {
          const entry = entries[e] as number
          const slot = slotOf(entry)
          if (slot >= to) break
          const position = entry & NO_POSITION
          if (position === NO_POSITION) continue
          const at = this.positionsAt(slot) + ((entry & DESCRIPTION_BIT) === 0 ? 0 : 2)
          if (FAR - position > (positions[at] as number)) positions[at] = FAR - position
        }
      }
      for (const [code, position] of index.categoryTerms.get(term) ?? []) {
        const docs = index.categoryDocs[code]
        if (docs === undefined) continue
        for (let e = docs.firstAtLeast(from); e < docs.length; e++) {
          const slot = docs.entries[e] as number
          if (slot >= to) break
          const at = this.positionsAt(slot) + 1
          if (FAR - position > (positions[at] as number)) positions[at] = FAR - position
        }
      }
    }
  }
}

/** Posting entries a word's candidates hold (category lists included): what building its sets reads. */
export function entriesOf (index: MemoryIndex, word: PlannedWord): number {
  let entries = 0
  for (const { term } of word.candidates) {
    entries += index.postings.get(term)?.length ?? 0
    for (const [code] of index.categoryTerms.get(term) ?? []) entries += index.categoryDocs[code]?.length ?? 0
  }
  return entries
}

/** The word's sets over every slot of the index, in `into` (zeroed, laid out at strideOf(index.slots)) if given. */
export function buildWordSets (index: MemoryIndex, word: PlannedWord, into?: { bits: Uint32Array, rankBase: Uint32Array }): WordSets {
  const sets = new WordSets(index, word, into)
  sets.extend()
  return sets
}

/**
 * A filter's accepted live slots below `synced`, as a bitset (the same filters repeat:
 * none, a status, a category): the matches are then the words' union AND this, with no
 * per-document test. A live slot's keys are written once and codes are never reused, so
 * whether a filter accepts it never changes; only removals clear bits.
 */
export class FilterSet {
  bits = new Uint32Array(0)
  synced = 0

  /** `removalsSeen`: the index's removals so far (a slot removed before is not accepted anyway). */
  constructor (readonly filter: ServiceFilter, public removalsSeen: number) {}

  get bytes (): number { return this.bits.byteLength + 64 }

  extend (index: MemoryIndex, accept: (slot: number) => boolean): void {
    const stride = strideOf(index.slots)
    if (this.bits.length < stride) {
      const bits = new Uint32Array(stride)
      bits.set(this.bits)
      this.bits = bits
    }
    extendFilter(this.bits, this.synced, index.slots, accept, index.removedSlots.subarray(this.removalsSeen, index.removals))
    this.synced = index.slots
    this.removalsSeen = index.removals
  }
}

/** Sets the bits of the slots from…to-1 that `accept` takes, and clears those of the `removed` slots. */
export function extendFilter (bits: Uint32Array, from: number, to: number, accept: (slot: number) => boolean, removed: ArrayLike<number>): void {
  for (let slot = from; slot < to; slot++) if (accept(slot)) bits[slot >>> 5] = (bits[slot >>> 5] as number) | (1 << (slot & 31))
  for (let r = 0; r < removed.length; r++) {
    const slot = removed[r] as number
    bits[slot >>> 5] = (bits[slot >>> 5] as number) & ~(1 << (slot & 31))
  }
}

/** A word's cache key: its candidates in any order (the sets do not depend on it; a prefix list reorders by frequency). */
export function wordKey (word: PlannedWord): string {
  let key = keys.get(word.candidates)
  if (key === undefined) {
    key = word.candidates.map((c) => `${c.term}\u0000${c.kind}\u0000${c.typos}`).sort().join('\u0001')
    keys.set(word.candidates, key)
  }
  return key
}
/** Keys of candidate lists a plan cache hands out again (PlanCache): made once per list. */
const keys = new WeakMap<readonly TermCandidate[], string>()

/** Bytes of word sets a searcher keeps (each search thread has its own). */
export const WORD_SET_CACHE_BYTES = 24 * 2 ** 20

export interface CacheEntry {
  value: WordSets | FilterSet
  /** Bytes counted for it (its key's included) when it was last stored or extended. */
  bytes: number
}

/**
 * Word sets and filter sets of recent queries, least recently used dropped first, bounded
 * in bytes; an entry is brought up to date with the index's writes when next used. All are
 * dropped when another copy of the index replaces this one (a reload or a compaction) or
 * older slots start matching more terms (MemoryIndex.categoryEpoch).
 */
export class WordSetCache {
  #index: MemoryIndex | undefined
  #epoch = -1
  readonly #entries = new Map<string, CacheEntry>()
  #bytes = 0
  /** Lookups answered by a cached entry (brought up to date), and by a new one. */
  hits = 0
  misses = 0

  constructor (readonly limit = WORD_SET_CACHE_BYTES) {}

  /** Bytes held: the entries (within `limit`) and the rare words' buffers. */
  get bytes (): number { return this.#bytes + this.pooledBytes }

  get pooledBytes (): number {
    let pooled = 0
    for (const { bits, rankBase } of this.#pool) pooled += bits.byteLength + rankBase.byteLength
    return pooled
  }

  /** The cached entries, least recently used first (tests compare them with fresh builds). */
  entries (): IterableIterator<[string, CacheEntry]> {
    return this.#entries.entries()
  }

  /**
   * Buffers for the sets of rare words, reused query after query: allocating ~150 KB per
   * rare word (at 100k slots) counts as external memory and makes V8 collect often, and
   * such a word costs less to rebuild than to cache.
   */
  #pool: Array<{ bits: Uint32Array, rankBase: Uint32Array }> = []
  #pooled = 0

  /** Starts a query: pooled sets of the previous one may be reused. */
  begin (): void { this.#pooled = 0 }

  /**
   * Drops every entry and the index they follow: before another copy of the index loads, so
   * the replaced copy is not kept reachable from here while the new one is built.
   */
  clear (): void {
    this.#entries.clear()
    this.#bytes = 0
    this.#index = undefined
    this.#epoch = -1
  }

  /** The word's sets over every slot of the index, laid out at strideOf(index.slots). */
  get (index: MemoryIndex, word: PlannedWord): WordSets {
    this.#follow(index)
    const key = wordKey(word)
    // A cached word is answered without counting its postings (rare words are never cached).
    if (!this.#entries.has(key) && entriesOf(index, word) < ((index.slots + 31) >>> 5) >>> 3) {
      const stride = strideOf(index.slots)
      let buffers = this.#pool[this.#pooled]
      if (buffers === undefined || buffers.rankBase.length !== stride) {
        buffers = { bits: new Uint32Array(SETS * stride), rankBase: new Uint32Array(stride) }
        this.#pool[this.#pooled] = buffers
      } else {
        buffers.bits.fill(0)
      }
      this.#pooled++
      return buildWordSets(index, word, buffers)
    }
    return this.#lookup(key, () => new WordSets(index, word), (sets) => { sets.extend() })
  }

  /** The live slots the filter accepts (`accept`: the index's matcher for it), as a bitset at least strideOf(index.slots) long. */
  filter (index: MemoryIndex, filter: ServiceFilter, accept: (slot: number) => boolean): Uint32Array {
    this.#follow(index)
    return this.#lookup(`\u0002${JSON.stringify(filter)}`, () => new FilterSet(filter, index.removals), (set) => { set.extend(index, accept) }).bits
  }

  /** Drops every entry when they were made from another copy of the index or before older slots met more terms. */
  #follow (index: MemoryIndex): void {
    if (index === this.#index && index.categoryEpoch === this.#epoch) return
    this.#entries.clear()
    this.#bytes = 0
    this.#index = index
    this.#epoch = index.categoryEpoch
  }

  #lookup<T extends WordSets | FilterSet> (key: string, create: () => T, extend: (value: T) => void): T {
    let entry = this.#entries.get(key)
    if (entry === undefined) {
      this.misses++
      entry = { value: create(), bytes: 0 }
    } else {
      this.hits++
      this.#entries.delete(key)
    }
    // Most recently used last.
    this.#entries.set(key, entry)
    const value = entry.value as T
    extend(value)
    this.#recount(key, entry)
    return value
  }

  /** Counts the entry's bytes again (new or extended), then drops the least recently used until within the limit. */
  #recount (key: string, entry: CacheEntry): void {
    const bytes = entry.value.bytes + key.length * 2
    this.#bytes += bytes - entry.bytes
    entry.bytes = bytes
    if (bytes > this.limit / 4) {
      // Too large to keep (it is still answered from).
      this.#entries.delete(key)
      this.#bytes -= bytes
      return
    }
    for (const [oldest, old] of this.#entries) {
      if (this.#bytes <= this.limit) break
      this.#entries.delete(oldest)
      this.#bytes -= old.bytes
    }
  }
}
