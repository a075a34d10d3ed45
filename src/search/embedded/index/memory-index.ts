/**
 * The search index as held in memory: per-term posting lists (sorted packed Uint32Arrays)
 * and per-document filter and sort columns (ServiceColumns, src/lib/service-columns.ts: the
 * same columns, filter and order as the SQLite store's lists), indexed by a dense slot
 * number. It is
 * rebuilt from SQLite (the durable form) and follows it by applying changed rows.
 *
 * Slots only grow: a document that changes gets a new slot and its old slot is marked
 * dead (skipped by every query). When dead slots pile up, the owner loads a fresh index
 * from SQLite in the background and swaps it in (compaction), so postings stay append-only
 * and sorted by slot without ever being rewritten in place.
 */
import { IndexStateError } from '../../../errors.js'
import { ServiceColumns, type ServiceKeys } from '../../../lib/service-columns.js'
import { compareText } from '../../../domain/sort-keys.js'
import { Vocabulary } from './vocabulary.js'
import { BIGRAM, type EncodedTerms } from './terms.js'

/** Packed posting entry: slot << 10 | attribute << 9 | position (511: none). */
export const POSITION_BITS = 9
export const NO_POSITION = (1 << POSITION_BITS) - 1
export const DESCRIPTION_BIT = 1 << POSITION_BITS
const SLOT_SHIFT = POSITION_BITS + 1
/** Slots fit in the 22 bits above attribute and position. */
export const MAX_SLOTS = 2 ** (32 - SLOT_SHIFT)

export const slotOf = (entry: number): number => entry >>> SLOT_SHIFT

/**
 * Doubling below 1,024 entries, then an eighth more (still amortized O(1) a push). After a
 * bulk load every posting is exactly full, so the first write with a word copies its
 * posting: doubling a common word's 50,000 entries would hold 200 KB it needs little of,
 * and 750 writes to the loaded 100k index held 11.5 MB more (5.5 MB now).
 */
function grownCapacity (length: number): number {
  return length < 1024 ? Math.max(4, length * 2) : length + (length >>> 3)
}

/** A growable sorted list of packed entries. */
export class Posting {
  entries: Uint32Array
  length = 0
  constructor (capacity = 2) { this.entries = new Uint32Array(capacity) }

  /** A full posting over `entries` (a bulk load's view into its shared buffer). */
  static of (entries: Uint32Array): Posting {
    const posting = new Posting(0)
    posting.entries = entries
    posting.length = entries.length
    return posting
  }

  push (value: number): void {
    if (this.length === this.entries.length) {
      const grown = new Uint32Array(grownCapacity(this.entries.length))
      grown.set(this.entries)
      this.entries = grown
    }
    this.entries[this.length++] = value
  }

  /** Drops unused capacity (after a bulk load). */
  trim (): void {
    if (this.entries.length > this.length) this.entries = this.entries.slice(0, this.length)
  }

  /** Index of the first entry ≥ `value` (this.length when none is). */
  firstAtLeast (value: number): number {
    let low = 0
    let high = this.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if ((this.entries[mid] as number) < value) low = mid + 1
      else high = mid
    }
    return low
  }

  /** Index of the first packed entry of slot `slot` or above (this.length when none is). */
  firstFrom (slot: number): number {
    return slot >= MAX_SLOTS ? this.length : this.firstAtLeast(slot << SLOT_SHIFT >>> 0)
  }

  /** Index of the first entry whose slot is `slot`, or -1. */
  find (slot: number): number {
    const low = this.firstFrom(slot)
    return low < this.length && slotOf(this.entries[low] as number) === slot ? low : -1
  }

  get bytes (): number { return this.entries.byteLength }
}

/** Entries per page of a bulk load's posting pool (1 MiB). */
const PAGE_BITS = 18
const PAGE = 1 << PAGE_BITS
const FIRST_BLOCK = 4
const MAX_BLOCK = 4096

/**
 * The postings of a bulk load, each a chain of blocks (doubling up to MAX_BLOCK entries)
 * in shared 1 MiB pages, packed into one exact-size buffer at the end. One growing array
 * per term instead allocated and dropped about twice the postings' size in thousands of
 * malloc'd buffers and then copied them all once more to trim them; malloc kept most of
 * it (at 100k services ~20 MB more RSS per load, see docs/benchmarks.md).
 * A block is [address of the next block + 1 (0: none), entries…].
 */
class PostingPool {
  readonly #pages: Uint32Array[] = []
  #used = PAGE
  readonly #numbers = new Map<string, number>()
  readonly #terms: string[] = []
  // Per term number: first block, current block, its capacity and fill, entry count.
  #head = new Int32Array(1024)
  #tail = new Int32Array(1024)
  #capacity = new Int32Array(1024)
  #fill = new Int32Array(1024)
  #count = new Int32Array(1024)

  #block (capacity: number): number {
    if (this.#used + 1 + capacity > PAGE) {
      this.#pages.push(new Uint32Array(PAGE))
      this.#used = 0
    }
    const address = (this.#pages.length - 1) * PAGE + this.#used
    this.#used += 1 + capacity
    return address
  }

  #set (address: number, value: number): void {
    (this.#pages[address >>> PAGE_BITS] as Uint32Array)[address & (PAGE - 1)] = value
  }

  #newTerm (term: string): number {
    const n = this.#terms.length
    if (n === this.#head.length) {
      const grow = (array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> => { const next = new Int32Array(n * 2); next.set(array); return next }
      this.#head = grow(this.#head)
      this.#tail = grow(this.#tail)
      this.#capacity = grow(this.#capacity)
      this.#fill = grow(this.#fill)
      this.#count = grow(this.#count)
    }
    this.#terms.push(term)
    this.#numbers.set(term, n)
    const address = this.#block(FIRST_BLOCK)
    this.#head[n] = address
    this.#tail[n] = address
    this.#capacity[n] = FIRST_BLOCK
    return n
  }

  push (term: string, value: number): void {
    const n = this.#numbers.get(term) ?? this.#newTerm(term)
    let fill = this.#fill[n] as number
    if (fill === this.#capacity[n]) {
      const capacity = Math.min(MAX_BLOCK, fill * 2)
      const address = this.#block(capacity)
      this.#set(this.#tail[n] as number, address + 1)
      this.#tail[n] = address
      this.#capacity[n] = capacity
      fill = 0
    }
    this.#set((this.#tail[n] as number) + 1 + fill, value)
    this.#fill[n] = fill + 1
    this.#count[n] = (this.#count[n] as number) + 1
  }

  /** Every term's posting, as views into one buffer of exactly the entries' size. */
  pack (into: Map<string, Posting>): void {
    let total = 0
    for (let n = 0; n < this.#terms.length; n++) total += this.#count[n] as number
    const buffer = new Uint32Array(total)
    let offset = 0
    for (let n = 0; n < this.#terms.length; n++) {
      const start = offset
      const end = start + (this.#count[n] as number)
      for (let address = this.#head[n] as number, capacity = FIRST_BLOCK; offset < end; capacity = Math.min(MAX_BLOCK, capacity * 2)) {
        const page = this.#pages[address >>> PAGE_BITS] as Uint32Array
        const at = address & (PAGE - 1)
        const take = Math.min(capacity, end - offset)
        buffer.set(page.subarray(at + 1, at + 1 + take), offset)
        offset += take
        address = (page[at] as number) - 1
      }
      into.set(this.#terms[n] as string, Posting.of(buffer.subarray(start, end)))
    }
  }
}

export interface IndexRow extends ServiceKeys {
  rowid: number
  /** [name, description] encoded terms. */
  terms: [EncodedTerms, EncodedTerms]
}

/**
 * `old` (slots 0…from-1 in `compare` order) with the slots from…to-1 merged in, each placed
 * by binary search: O(slots) copying and O(added · log slots) comparisons.
 */
function mergeSlots (old: Int32Array, from: number, to: number, compare: (a: number, b: number) => number): Int32Array<ArrayBuffer> {
  const added = Array.from({ length: to - from }, (_, i) => from + i).sort(compare)
  const sorted = old.subarray(0, from)
  const order = new Int32Array(to)
  let next = 0
  let at = 0
  for (const slot of added) {
    // The first old slot ordered after this one.
    let low = next
    let high = sorted.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (compare(sorted[mid] as number, slot) < 0) low = mid + 1
      else high = mid
    }
    order.set(sorted.subarray(next, low), at)
    at += low - next
    next = low
    order[at++] = slot
  }
  order.set(sorted.subarray(next), at)
  return order
}

export class MemoryIndex {
  /** Slots in use (dead ones included). */
  slots = 0
  live = 0
  /** Each slot's filter and sort keys; a dead slot is cleared there (no longer live). */
  readonly columns = new ServiceColumns()
  /** SQLite rowid → slot + 1 (0: not held). Rowids only grow, by about one per write. */
  #slotOfRow = new Int32Array(0)

  readonly postings = new Map<string, Posting>()
  /** Slots of each category (a posting of bare slots, sorted). */
  readonly categoryDocs: Posting[] = []
  /** Category text terms: term → [category code, position][]. */
  readonly categoryTerms = new Map<string, Array<[number, number]>>()
  /** Vocabulary words of each category's text. */
  readonly #categoryWords: string[][] = []
  readonly vocabulary = new Vocabulary()
  /** Set between beginBulkLoad() and endBulkLoad(): where added rows' postings go. */
  #pool: PostingPool | undefined
  /**
   * The slots removed so far, in order (the first `removals`): caches of per-slot sets
   * (word-sets.ts) clear the ones removed since they last looked instead of starting over.
   * Bounded: compaction replaces the index once dead slots pile up.
   */
  removedSlots = new Uint32Array(0)
  removals = 0
  /**
   * Bumped when slots already held start matching more terms (a category's text arriving
   * after its members): sets built over slots that were already there are then stale.
   */
  categoryEpoch = 0

  constructor (readonly generation: number, public version: number) {}

  get dead (): number { return this.slots - this.live }

  // The columns the ranking reads by slot.
  get ids (): readonly string[] { return this.columns.ids }
  get nameSort (): readonly string[] { return this.columns.names }
  get price (): Float64Array { return this.columns.price }
  get trust (): Float64Array { return this.columns.trust }
  get created (): Float64Array { return this.columns.time }

  has (rowid: number): boolean { return (this.#slotOfRow[rowid] ?? 0) > 0 }

  #grow (wanted = Math.max(1024, this.columns.capacity * 2)): void {
    if (this.slots >= MAX_SLOTS) throw new IndexStateError(`the in-memory search index holds at most ${MAX_SLOTS} slots`)
    this.columns.resize(Math.min(MAX_SLOTS, wanted))
  }

  /** Category text, stored once per category: [term, position, bigram 0/1, …]. */
  setCategoryTerms (category: string, encoded: EncodedTerms): void {
    const code = this.columns.codes.category.code(category)
    if (this.#categoryWords[code] !== undefined) return
    this.categoryDocs[code] ??= new Posting()
    const words = new Set<string>()
    for (let i = 0; i < encoded.length; i += 3) {
      const term = encoded[i] as string
      const position = encoded[i + 1] as number
      const list = this.categoryTerms.get(term) ?? []
      const existing = list.find(([c]) => c === code)
      if (existing === undefined) list.push([code, position])
      else existing[1] = Math.min(existing[1], position)
      this.categoryTerms.set(term, list)
      if (encoded[i + 2] === 0) words.add(term)
    }
    this.#categoryWords[code] = [...words]
    // Services already indexed in this category now hold its words too.
    const members = this.categoryDocs[code].length
    if (members > 0) {
      for (const word of words) this.vocabulary.add(word, members)
      this.categoryEpoch++
    }
  }

  /** Adds a document (a row not yet held); returns its slot. */
  add (row: IndexRow): number {
    if (this.has(row.rowid)) return (this.#slotOfRow[row.rowid] as number) - 1
    if (row.rowid >= this.#slotOfRow.length) {
      const grown = new Int32Array(Math.max(1024, row.rowid * 2))
      grown.set(this.#slotOfRow)
      this.#slotOfRow = grown
    }
    if (this.slots === this.columns.capacity) this.#grow()
    const slot = this.slots++
    this.live++
    this.#slotOfRow[row.rowid] = slot + 1
    this.columns.set(slot, row)
    const category = this.columns.category[slot] as number
    ;(this.categoryDocs[category] ??= new Posting()).push(slot)

    // One entry per (term, attribute): its first position there.
    const words = new Set<string>(this.#categoryWords[category] ?? [])
    const attributes = row.terms
    for (let a = 0; a < 2; a++) {
      const encoded = attributes[a] as EncodedTerms
      const first = new Map<string, number>()
      for (let i = 0; i < encoded.length; i += 2) {
        const term = encoded[i] as string
        const code = encoded[i + 1] as number
        if (code !== BIGRAM) words.add(term)
        const position = code < 0 ? NO_POSITION : Math.min(code, NO_POSITION - 1)
        first.set(term, Math.min(first.get(term) ?? NO_POSITION, position))
      }
      const base = (slot << SLOT_SHIFT) | (a === 1 ? DESCRIPTION_BIT : 0)
      const pool = this.#pool
      for (const [term, position] of first) {
        if (pool !== undefined) { pool.push(term, (base | position) >>> 0); continue }
        let posting = this.postings.get(term)
        if (posting === undefined) { posting = new Posting(1); this.postings.set(term, posting) }
        posting.push((base | position) >>> 0)
      }
    }
    for (const word of words) this.vocabulary.add(word)
    return slot
  }

  /** Marks a document's slot dead; unknown rows are ignored. */
  remove (rowid: number): void {
    if (!this.has(rowid)) return
    const slot = (this.#slotOfRow[rowid] as number) - 1
    this.#slotOfRow[rowid] = 0
    this.columns.clear(slot)
    this.live--
    if (this.removals === this.removedSlots.length) {
      const grown = new Uint32Array(Math.max(256, this.removals * 2))
      grown.set(this.removedSlots)
      this.removedSlots = grown
    }
    this.removedSlots[this.removals++] = slot
  }

  /**
   * Starts a bulk load into this empty index of about `rows` rows with rowids up to
   * `maxRowid`: columns sized once, postings built in a pool until endBulkLoad().
   */
  beginBulkLoad (rows: number, maxRowid: number): void {
    if (this.slots > 0 || this.#pool !== undefined) throw new IndexStateError('a bulk load starts on an empty index')
    // Room for the writes that follow the load without growing at once.
    if (rows > 0) this.#grow(rows + Math.max(1024, rows >> 3))
    if (maxRowid >= this.#slotOfRow.length) this.#slotOfRow = new Int32Array(maxRowid + Math.max(1024, maxRowid >> 3))
    this.#pool = new PostingPool()
  }

  /** Packs the loaded postings and drops spare capacity; later adds grow them as usual. */
  endBulkLoad (): void {
    this.#pool?.pack(this.postings)
    this.#pool = undefined
    for (const posting of this.categoryDocs) posting?.trim()
  }

  /** Slots in id order (code points), and each slot's place in it: ties are broken without comparing strings. */
  #idOrder = new Int32Array(0)
  #idRank = new Uint32Array(0)
  /** Each ranked slot's id as it was ranked: a freed slot's id is cleared, and the order must stay sorted by what it was sorted by. */
  #rankedIds: string[] = []
  #ranked = 0
  #trustOrder = new Int32Array(0)
  #trustRank = new Uint32Array(0)
  #trustOrdered = 0

  /**
   * Each slot's rank in id order (dead slots keep theirs: they are filtered out anyway).
   * Slots added since the last call are placed by binary search (string comparisons at
   * write time, not per query) and every rank rewritten: O(slots) integer work per change.
   */
  idRanks (): Uint32Array {
    if (this.#ranked === this.slots) return this.#idRank
    const ids = this.#rankedIds
    for (let slot = this.#ranked; slot < this.slots; slot++) ids[slot] = this.columns.ids[slot] as string
    const byId = (a: number, b: number): number => compareText(ids[a] as string, ids[b] as string)
    const order = mergeSlots(this.#idOrder, this.#ranked, this.slots, byId)
    const rank = this.#idRank.length >= this.slots ? this.#idRank : new Uint32Array(this.columns.capacity)
    for (let i = 0; i < order.length; i++) rank[order[i] as number] = i
    this.#idOrder = order
    this.#idRank = rank
    this.#ranked = this.slots
    return rank
  }

  /**
   * Slots by trust score (highest first), then id: the order of a bucket every ranking rule
   * ties on. Kept like idRanks (a slot's trust never changes: a new score is a new slot).
   */
  trustOrder (): Int32Array {
    if (this.#trustOrdered === this.slots) return this.#trustOrder
    const rank = this.idRanks()
    const trust = this.trust
    const before = (a: number, b: number): number => ((trust[b] as number) - (trust[a] as number)) || ((rank[a] as number) - (rank[b] as number))
    const order = mergeSlots(this.#trustOrder, this.#trustOrdered, this.slots, before)
    const place = this.#trustRank.length >= this.slots ? this.#trustRank : new Uint32Array(this.columns.capacity)
    for (let i = 0; i < order.length; i++) place[order[i] as number] = i
    this.#trustOrder = order
    this.#trustRank = place
    this.#trustOrdered = this.slots
    return order
  }

  /** Each slot's place in trustOrder: trust and id as one integer, one read per document. */
  trustRanks (): Uint32Array {
    this.trustOrder()
    return this.#trustRank
  }

  /** Approximate bytes held by postings and per-document columns (strings counted by length). */
  bytes (): { postings: number, documents: number, terms: number } {
    let postings = 0
    let terms = 0
    for (const [term, posting] of this.postings) { postings += posting.bytes; terms += term.length * 2 + 64 }
    for (const posting of this.categoryDocs) postings += posting?.bytes ?? 0
    return { postings, documents: this.columns.bytes(this.slots) + this.#slotOfRow.byteLength + this.removedSlots.byteLength + this.#idOrder.byteLength + this.#idRank.byteLength + this.#trustOrder.byteLength + this.#trustRank.byteLength + this.#rankedIds.length * 8, terms }
  }
}
