/**
 * Per query word (with its typo, prefix, synonym and reading derivations), the documents it
 * meets as bitsets over slots, split the ways the ranking rules ask (Meilisearch's
 * approach): matched at all; in the name or description; in the name; in the name or
 * category; by a 0-typo / ≤ 1-typo candidate; exactly / at most by expansion. Plus the
 * word's first position per attribute for every document it meets (proximity), stored
 * densely in match order and found by rank (a prefix popcount per block).
 *
 * Building one reads the word's postings once; the sets are cached across queries (common
 * words repeat), with the filters' bitsets, bounded in bytes, and dropped whenever the
 * index changes.
 */
import type { ServiceFilter } from '../../domain/catalog-query.js'
import { MATCH_EXACTNESS } from '../match-rules.js'
import { popcount } from './bits.js'
import type { PlannedWord } from './query-plan.js'
import { DESCRIPTION_BIT, NO_POSITION, slotOf, type MemoryIndex } from './memory-index.js'

/** The sets of a word, each `blocks` 32-bit words long, one after another. */
export const ANY = 0
export const TEXT = 1
export const NAME = 2
export const NAME_OR_CATEGORY = 3
export const NO_TYPO = 4
export const ONE_TYPO = 5
export const EXACT = 6
export const EXPANDED = 7
const SETS = 8
/** Positions are stored as FAR - position, so that none (0) is the smallest. */
export const FAR = 0xFFFF
/** Attributes of a position triple: name, category, description. */
export const ATTRIBUTES = 3

export class WordSets {
  #positions: Uint16Array | undefined

  constructor (
    readonly blocks: number,
    /** SETS bitsets of `blocks` words: set s of block i at [s * blocks + i]. */
    readonly bits: Uint32Array,
    /** Per block, the documents matched (ANY) in the blocks before it. */
    readonly rankBase: Uint32Array,
    readonly matched: number,
    /** Builds `positions` on first use: single-word queries and buckets of one word never need them. */
    readonly fill: (sets: WordSets) => Uint16Array
  ) {}

  /** Per matched document in slot order: first position in name, category, description (FAR - position; 0: none). */
  get positions (): Uint16Array {
    return (this.#positions ??= this.fill(this))
  }

  /** Bytes held; positions (6 bytes per match) counted whether built yet or not, so the cache's bound holds. */
  get bytes (): number { return this.bits.byteLength + this.rankBase.byteLength + this.matched * ATTRIBUTES * 2 + 64 }

  /** Offset of the slot's position triple (the slot must be matched). */
  positionsAt (slot: number): number {
    const block = slot >>> 5
    const below = ((1 << (slot & 31)) >>> 0) - 1
    return ((this.rankBase[block] as number) + popcount((this.bits[block] as number) & below)) * ATTRIBUTES
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

export function buildWordSets (index: MemoryIndex, word: PlannedWord, blocks: number, into?: { bits: Uint32Array, rankBase: Uint32Array }): WordSets {
  const bits = into?.bits ?? new Uint32Array(SETS * blocks)
  const text = TEXT * blocks
  const name = NAME * blocks
  const nameOrCategory = NAME_OR_CATEGORY * blocks
  const postings: Array<{ entries: Uint32Array, length: number }> = []
  const categories: Array<{ entries: Uint32Array, length: number, position: number }> = []
  for (const candidate of word.candidates) {
    const exactness = MATCH_EXACTNESS[candidate.kind]
    // The marks a candidate gives do not depend on the document: OR its whole posting in.
    const flags = [candidate.typos === 0 ? NO_TYPO : -1, candidate.typos <= 1 ? ONE_TYPO : -1, exactness === 0 ? EXACT : -1, exactness <= 1 ? EXPANDED : -1]
      .filter((set) => set >= 0).map((set) => set * blocks)
    const posting = index.postings.get(candidate.term)
    if (posting !== undefined && posting.length > 0) {
      // The arrays as they are now (a later write may replace a posting's array).
      const { entries, length } = posting
      postings.push({ entries, length })
      for (let e = 0; e < length; e++) {
        const entry = entries[e] as number
        const slot = slotOf(entry)
        const i = slot >>> 5
        const bit = 1 << (slot & 31)
        bits[i] = (bits[i] as number) | bit
        bits[text + i] = (bits[text + i] as number) | bit
        if ((entry & DESCRIPTION_BIT) === 0) {
          bits[name + i] = (bits[name + i] as number) | bit
          bits[nameOrCategory + i] = (bits[nameOrCategory + i] as number) | bit
        }
        for (const f of flags) bits[f + i] = (bits[f + i] as number) | bit
      }
    }
    for (const [code, position] of index.categoryTerms.get(candidate.term) ?? []) {
      const docs = index.categoryDocs[code]
      if (docs === undefined || docs.length === 0) continue
      categories.push({ entries: docs.entries, length: docs.length, position })
      for (let e = 0; e < docs.length; e++) {
        const slot = docs.entries[e] as number
        const i = slot >>> 5
        const bit = 1 << (slot & 31)
        bits[i] = (bits[i] as number) | bit
        bits[nameOrCategory + i] = (bits[nameOrCategory + i] as number) | bit
        for (const f of flags) bits[f + i] = (bits[f + i] as number) | bit
      }
    }
  }
  const rankBase = into?.rankBase ?? new Uint32Array(blocks)
  let matched = 0
  for (let i = 0; i < blocks; i++) {
    rankBase[i] = matched
    matched += popcount(bits[i] as number)
  }
  return new WordSets(blocks, bits, rankBase, matched, (sets) => {
    const positions = new Uint16Array(matched * ATTRIBUTES)
    for (const { entries, length } of postings) {
      for (let e = 0; e < length; e++) {
        const entry = entries[e] as number
        const position = entry & NO_POSITION
        if (position === NO_POSITION) continue
        const at = sets.positionsAt(slotOf(entry)) + ((entry & DESCRIPTION_BIT) === 0 ? 0 : 2)
        if (FAR - position > (positions[at] as number)) positions[at] = FAR - position
      }
    }
    for (const { entries, length, position } of categories) {
      for (let e = 0; e < length; e++) {
        const at = sets.positionsAt(entries[e] as number) + 1
        if (FAR - position > (positions[at] as number)) positions[at] = FAR - position
      }
    }
    return positions
  })
}

/** Bytes of word sets a searcher keeps (each search thread has its own). */
export const WORD_SET_CACHE_BYTES = 24 * 2 ** 20

/**
 * Word sets of recent query words, least recently used dropped first, bounded in bytes;
 * emptied when the index changes (another copy, or rows applied since).
 */
export class WordSetCache {
  #index: MemoryIndex | undefined
  #version = -1
  #slots = -1
  #live = -1
  readonly #sets = new Map<string, WordSets | Uint32Array>()
  #bytes = 0

  constructor (readonly limit = WORD_SET_CACHE_BYTES) {}

  get bytes (): number {
    let pooled = 0
    for (const { bits, rankBase } of this.#pool) pooled += bits.byteLength + rankBase.byteLength
    return this.#bytes + pooled
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

  get (index: MemoryIndex, word: PlannedWord): WordSets {
    const blocks = (index.slots + 31) >>> 5
    if (entriesOf(index, word) < blocks >>> 3) {
      let buffers = this.#pool[this.#pooled]
      if (buffers === undefined || buffers.rankBase.length !== blocks) {
        buffers = { bits: new Uint32Array(SETS * blocks), rankBase: new Uint32Array(blocks) }
        this.#pool[this.#pooled] = buffers
      } else {
        buffers.bits.fill(0)
      }
      this.#pooled++
      return buildWordSets(index, word, blocks, buffers)
    }
    const key = word.candidates.map((c) => `${c.term}\u0000${c.kind}\u0000${c.typos}`).join('\u0001')
    return this.#cached(index, key, () => buildWordSets(index, word, blocks)) as WordSets
  }

  /**
   * The live slots a filter accepts, as a bitset (the same filters repeat: none, a status,
   * a category): the matches are then the words' union AND this, with no per-document test.
   */
  filter (index: MemoryIndex, filter: ServiceFilter, accept: (slot: number) => boolean): Uint32Array {
    return this.#cached(index, `\u0002${JSON.stringify(filter)}`, () => {
      const bits = new Uint32Array((index.slots + 31) >>> 5)
      for (let slot = 0; slot < index.slots; slot++) if (accept(slot)) bits[slot >>> 5] = (bits[slot >>> 5] as number) | (1 << (slot & 31))
      return bits
    }) as Uint32Array
  }

  #cached (index: MemoryIndex, key: string, build: () => WordSets | Uint32Array): WordSets | Uint32Array {
    // Removals change `live`, additions `slots`: either drops every set (the filters' sets hold liveness).
    if (index !== this.#index || index.version !== this.#version || index.slots !== this.#slots || index.live !== this.#live) {
      this.#sets.clear()
      this.#bytes = 0
      this.#index = index
      this.#version = index.version
      this.#slots = index.slots
      this.#live = index.live
    }
    const cached = this.#sets.get(key)
    if (cached !== undefined) {
      this.#sets.delete(key)
      this.#sets.set(key, cached)
      return cached
    }
    const value = build()
    const bytes = value instanceof WordSets ? value.bytes : value.byteLength + key.length * 2
    if (bytes <= this.limit / 4) {
      this.#sets.set(key, value)
      this.#bytes += bytes
      for (const [oldest, old] of this.#sets) {
        if (this.#bytes <= this.limit) break
        this.#sets.delete(oldest)
        this.#bytes -= old instanceof WordSets ? old.bytes : old.byteLength + oldest.length * 2
      }
    }
    return value
  }
}
