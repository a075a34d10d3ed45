/**
 * The services' filter and sort keys in memory, for listing: a page of "price ≤ x sorted by
 * trust, offset 5,000" and its exact total cost microseconds, where SQL walked tens of
 * thousands of index entries and counted every match (docs/benchmarks.md has the figures).
 *
 * It holds no service data beyond the keys: a query answers the page's row handles (the
 * adapter's row ids) in order and the exact total; the adapter reads those rows. The adapter
 * keeps it in step with the store through the change feed (src/store/sqlite/store.ts).
 *
 * Layout: one slot per service with its keys in ServiceColumns (the columns the search
 * engine's in-memory index filters and sorts on too); per sort field, the slots in
 * ascending (key, id) order; per filter dimension, how many services hold each value. What
 * a query may need beyond that (the slots of one category, each slot's place in an order) is
 * derived on first use after a change and kept until the next one.
 *
 * Strings order by code point (compareText): what SQLite's BINARY collation and MongoDB
 * compare (UTF-8 bytes). Ties break by id, in the sort's direction.
 */
import type { Page, ServiceFilter, ServiceSort, SortField } from '../domain/catalog-query.js'
import { IndexStateError } from '../errors.js'
import { DIMENSIONS, ServiceColumns, type CompiledFilter, type Dimension, type ServiceKeys } from './service-columns.js'

export interface ListEntry extends ServiceKeys {
  /** The adapter's handle to read the row back with (SQLite: its rowid). */
  handle: number
}

export interface ListResult {
  /** Handles of the page's rows, in the page's order. */
  handles: number[]
  /** Exact number of matches. */
  total: number
}

const FIELDS: readonly SortField[] = ['price', 'trustScore', 'name', 'createdAt']
/** The orders a price bound is walked along (in the price order it is a cut instead). */
const WALKED: readonly SortField[] = ['trustScore', 'name', 'createdAt']
/** The slots holding each code of one dimension, grouped by code: slots[starts[c] … starts[c + 1]). */
interface Grouped { starts: Int32Array, slots: Int32Array }

export class ServiceIndex {
  #capacity = 0
  /** Live slots. */
  #size = 0
  /** Highest slot ever used + 1. */
  #end = 0
  readonly #free: number[] = []
  readonly #slotOf = new Map<string, number>()
  readonly #columns = new ServiceColumns()
  #handle = new Float64Array(0)
  /** Per sort field: the live slots in ascending (key, id) order, in [0, size). */
  readonly #orders = new Map<SortField, Int32Array>(FIELDS.map((field) => [field, new Int32Array(0)]))
  /**
   * Per order but the price order, each entry's price: a walk for "price ≤ x" then reads
   * memory in sequence instead of jumping to each slot's price (a cache miss apiece).
   */
  readonly #orderPrices = new Map<SortField, Float64Array>(WALKED.map((field) => [field, new Float64Array(0)]))
  /** Bumped by every change; derived structures remember the version they were built at. */
  #version = 0
  readonly #ranks = new Map<SortField, { version: number, ranks: Int32Array }>()
  readonly #grouped = new Map<Dimension, { version: number, grouped: Grouped }>()
  #testPrefix: { version: number, prefix: Int32Array } | undefined
  #scratch = new Int32Array(0)
  /**
   * The gathered matches' ranks, reused like #scratch: an array per query (up to 400 KB at
   * 100k services) is external memory that V8 frees late, ~24 MB of RSS under a list load.
   */
  #ranksScratch = new Int32Array(0)

  /** An index of `entries` (ids unique), each order sorted here (~0.27 s for four at 100k services). */
  constructor (entries: Iterable<ListEntry> = []) {
    for (const entry of entries) {
      if (this.#size === this.#capacity) this.#resize(Math.max(1024, this.#capacity * 2))
      this.#place(entry)
    }
    // Room for the registrations to come, not for as many again as were loaded.
    this.#resize(this.#size + 1024)
    for (const field of FIELDS) {
      const order = this.#orderArray(field)
      for (let i = 0; i < this.#size; i++) order[i] = i
      order.subarray(0, this.#size).sort(this.#columns.comparator(field))
    }
    for (const field of WALKED) {
      const order = this.#orderArray(field)
      const prices = this.#orderPrices.get(field) as Float64Array
      for (let i = 0; i < this.#size; i++) prices[i] = this.#columns.price[order[i] as number] as number
    }
  }

  get size (): number { return this.#size }

  /** Adds a service or replaces the one with the same id. */
  upsert (entry: ListEntry): void {
    this.remove(entry.id)
    if (this.#size === this.#capacity) this.#resize(this.#capacity * 2)
    const slot = this.#place(entry)
    for (const field of FIELDS) {
      const order = this.#orderArray(field)
      const at = this.#position(field, slot, this.#size - 1)
      order.copyWithin(at + 1, at, this.#size - 1)
      order[at] = slot
      const prices = this.#orderPrices.get(field)
      if (prices === undefined) continue
      prices.copyWithin(at + 1, at, this.#size - 1)
      prices[at] = entry.priceAtomic
    }
  }

  /** Removes a service; false when no service has that id. */
  remove (id: string): boolean {
    const slot = this.#slotOf.get(id)
    if (slot === undefined) return false
    for (const field of FIELDS) {
      const order = this.#orderArray(field)
      let at = this.#position(field, slot, this.#size)
      // Found by its keys; should an order handed in disagree with them, by a scan instead.
      if (order[at] !== slot) at = order.subarray(0, this.#size).indexOf(slot)
      order.copyWithin(at, at + 1, this.#size)
      this.#orderPrices.get(field)?.copyWithin(at, at + 1, this.#size)
    }
    this.#columns.clear(slot)
    this.#slotOf.delete(id)
    this.#free.push(slot)
    this.#size--
    this.#version++
    return true
  }

  /**
   * The page's handles in order, and the exact number of matches. `within`, when given,
   * restricts the matches to these ids (a selective filter, such as payTo, that the adapter
   * resolves with its own index faster than a walk of the columns).
   */
  query (filter: ServiceFilter, sort: ServiceSort, page: Page, within?: readonly string[]): ListResult {
    const compiled = this.#columns.compile(filter)
    if (compiled === null) return { handles: [], total: 0 }
    const order = this.#orderArray(sort.field)
    const byPrice = compiled.maxPrice !== Infinity
    const priceRank = byPrice ? this.#priceRank(compiled.maxPrice) : this.#size
    const equalities = DIMENSIONS.filter((dimension) => compiled[dimension] >= 0)
    const testnet = compiled.testnet >= 0
    const unindexed = compiled.payTo !== null || compiled.extension !== 0 || testnet
    const predicates = equalities.length + (byPrice ? 1 : 0) + (compiled.payTo === null ? 0 : 1) + (compiled.extension === 0 ? 0 : 1) + (testnet ? 1 : 0) + (within === undefined ? 0 : 1)
    const { offset, limit } = page
    const ascending = sort.order === 'asc'

    if (predicates === 0 || (predicates === 1 && byPrice && sort.field === 'price')) {
      // The order itself (the price order cut at the bound) is the answer: nothing to walk.
      const total = priceRank
      const handles: number[] = []
      for (let i = offset; i < Math.min(total, offset + limit); i++) handles.push(this.#handle[order[ascending ? i : total - 1 - i] as number] as number)
      return { handles, total }
    }

    if (testnet && predicates <= 2 && within === undefined && compiled.payTo === null && compiled.extension === 0) {
      // Lists leave test-network listings out by default, so this is the commonest filter:
      // alone or beside one other predicate, its total is counted without a scan (the columns
      // count test listings per value; the price order keeps a prefix count of them), and the
      // page is a walk that stops once it is full, when that reads fewer entries than
      // gathering the matches would.
      const dimension = equalities[0]
      let total: number
      let candidates = this.#size
      let end = this.#size
      if (dimension !== undefined) {
        total = this.#columns.codes[dimension].held(compiled[dimension], compiled.testnet)
        candidates = this.#columns.codes[dimension].counts[compiled[dimension]] as number
      } else if (byPrice) {
        const tests = this.#testsBelow(priceRank)
        total = compiled.testnet === 1 ? tests : priceRank - tests
        candidates = priceRank
        // Sorted by price, the matches all lie in the order's cheap end.
        if (sort.field === 'price') end = priceRank
      } else {
        total = compiled.testnet === 1 ? this.#columns.testListings : this.#size - this.#columns.testListings
      }
      if (offset >= total) return { handles: [], total }
      const wanted = Math.min(limit, total - offset)
      if (((offset + wanted) * end) / total <= candidates + total * (Math.log2(total) + 2)) {
        return { handles: this.#walk(order, ascending, compiled, offset, wanted, end).map((slot) => this.#handle[slot] as number), total }
      }
    }

    // The smallest set that holds every match: the given ids, the cheap end of the price
    // order, or the slots of one filter value.
    let candidates: Int32Array
    if (within !== undefined) {
      candidates = new Int32Array(within.flatMap((id) => this.#slotOf.get(id) ?? []))
    } else {
      let smallest = byPrice ? priceRank : Infinity
      let dimension: Dimension | undefined
      for (const candidate of equalities) {
        const count = this.#columns.codes[candidate].counts[compiled[candidate]] as number
        if (count < smallest) { smallest = count; dimension = candidate }
      }
      candidates = dimension === undefined ? this.#orderArray('price').subarray(0, priceRank) : this.#slotsOf(dimension, compiled[dimension])
    }

    // The candidates all match when they come from the only predicate (payTo and the
    // extension never supply candidates of their own); otherwise count them.
    let matches = candidates
    if (predicates > 1 || unindexed) {
      if (this.#scratch.length < candidates.length) this.#scratch = new Int32Array(Math.max(candidates.length, this.#capacity))
      let n = 0
      for (let i = 0; i < candidates.length; i++) {
        const slot = candidates[i] as number
        if (this.#columns.matches(slot, compiled)) this.#scratch[n++] = slot
      }
      matches = this.#scratch.subarray(0, n)
    }
    const total = matches.length
    if (offset >= total) return { handles: [], total }
    const wanted = Math.min(limit, total - offset)

    // Walk the sort order until the page is full, or sort the matches by their place in
    // it: whichever touches fewer entries.
    const walk = ((offset + wanted) * this.#size) / total
    const gather = total * (Math.log2(total) + 2)
    if (gather < walk || within !== undefined) {
      const ranks = this.#ranksOf(sort.field)
      if (this.#ranksScratch.length < total) this.#ranksScratch = new Int32Array(Math.max(total, this.#capacity))
      const sorted = this.#ranksScratch.subarray(0, total)
      for (let i = 0; i < total; i++) sorted[i] = ranks[matches[i] as number] as number
      sorted.sort()
      const handles: number[] = []
      for (let i = offset; i < offset + wanted; i++) handles.push(this.#handle[order[sorted[ascending ? i : total - 1 - i] as number] as number] as number)
      return { handles, total }
    }
    const prices = this.#orderPrices.get(sort.field)
    const slots = predicates === 1 && byPrice && prices !== undefined
      ? this.#walkPrice(order, prices, ascending, compiled.maxPrice, offset, wanted)
      : this.#walk(order, ascending, compiled, offset, wanted)
    return { handles: slots.map((slot) => this.#handle[slot] as number), total }
  }

  /**
   * How many services matching `filter` hold each value of each dimension (each of a service's
   * chains counted once), values held by none left out: one pass over the columns, where SQL
   * read every matching row three times.
   */
  facets (filter: ServiceFilter): Record<Dimension, Record<string, number>> {
    const accept = this.#columns.matcher(filter)
    if (accept === undefined) return { category: {}, status: {}, chain: {} }
    if (this.#scratch.length < this.#end) this.#scratch = new Int32Array(Math.max(this.#end, this.#capacity))
    let n = 0
    for (let slot = 0; slot < this.#end; slot++) if (accept(slot)) this.#scratch[n++] = slot
    return this.#columns.facets(this.#scratch.subarray(0, n), DIMENSIONS) as Record<Dimension, Record<string, number>>
  }

  /** The page's slots: the order (its first `end` entries) walked in the sort's direction, skipping non-matches. */
  #walk (order: Int32Array, ascending: boolean, compiled: CompiledFilter, offset: number, wanted: number, end = this.#size): number[] {
    const page: number[] = []
    let seen = 0
    for (let i = 0; i < end && page.length < wanted; i++) {
      const slot = order[ascending ? i : end - 1 - i] as number
      if (this.#columns.matches(slot, compiled) && seen++ >= offset) page.push(slot)
    }
    return page
  }

  /** #walk for the commonest list, a price bound alone, on the order's own copy of the prices. */
  #walkPrice (order: Int32Array, prices: Float64Array, ascending: boolean, maxPrice: number, offset: number, wanted: number): number[] {
    // Skip `offset` matches, then take `wanted`: two tight loops per direction.
    const size = this.#size
    const page: number[] = []
    let skip = offset
    if (ascending) {
      let i = 0
      for (; i < size && skip > 0; i++) if ((prices[i] as number) <= maxPrice) skip--
      for (; i < size && page.length < wanted; i++) if ((prices[i] as number) <= maxPrice) page.push(order[i] as number)
    } else {
      let i = size - 1
      for (; i >= 0 && skip > 0; i--) if ((prices[i] as number) <= maxPrice) skip--
      for (; i >= 0 && page.length < wanted; i--) if ((prices[i] as number) <= maxPrice) page.push(order[i] as number)
    }
    return page
  }

  /** How many services cost at most `maxPrice`: where it would go in the price order. */
  #priceRank (maxPrice: number): number {
    const order = this.#orderArray('price')
    const price = this.#columns.price
    let low = 0
    let high = this.#size
    while (low < high) {
      const mid = (low + high) >>> 1
      if ((price[order[mid] as number] as number) <= maxPrice) low = mid + 1
      else high = mid
    }
    return low
  }

  /** Where `slot` sits (or would go) among the first `length` entries of the field's order. */
  #position (field: SortField, slot: number, length: number): number {
    const order = this.#orderArray(field)
    const compare = this.#columns.comparator(field)
    let low = 0
    let high = length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (compare(order[mid] as number, slot) < 0) low = mid + 1
      else high = mid
    }
    return low
  }

  /** How many test-network listings are among the `rank` cheapest (a prefix count along the price order, made once per version). */
  #testsBelow (rank: number): number {
    let cached = this.#testPrefix
    if (cached === undefined || cached.version !== this.#version) {
      const prefix = cached !== undefined && cached.prefix.length > this.#size ? cached.prefix : new Int32Array(this.#capacity + 1)
      const order = this.#orderArray('price')
      const testnet = this.#columns.testnet
      for (let i = 0; i < this.#size; i++) prefix[i + 1] = (prefix[i] as number) + (testnet[order[i] as number] as number)
      cached = { version: this.#version, prefix }
      this.#testPrefix = cached
    }
    return cached.prefix[rank] as number
  }

  /** Each slot's place in the field's order. */
  #ranksOf (field: SortField): Int32Array {
    const cached = this.#ranks.get(field)
    if (cached !== undefined && cached.version === this.#version) return cached.ranks
    const ranks = cached !== undefined && cached.ranks.length >= this.#end ? cached.ranks : new Int32Array(this.#capacity)
    const order = this.#orderArray(field)
    for (let i = 0; i < this.#size; i++) ranks[order[i] as number] = i
    this.#ranks.set(field, { version: this.#version, ranks })
    return ranks
  }

  /** The live slots holding one value of a dimension. */
  #slotsOf (dimension: Dimension, code: number): Int32Array {
    let cached = this.#grouped.get(dimension)
    if (cached === undefined || cached.version !== this.#version) {
      cached = { version: this.#version, grouped: this.#group(dimension) }
      this.#grouped.set(dimension, cached)
    }
    const { starts, slots } = cached.grouped
    return slots.subarray(starts[code] as number, starts[code + 1] as number)
  }

  /** Every live slot grouped by its code in one dimension (a counting sort). */
  #group (dimension: Dimension): Grouped {
    const counts = this.#columns.codes[dimension].counts
    const starts = new Int32Array(counts.length + 1)
    for (let code = 0; code < counts.length; code++) starts[code + 1] = (starts[code] as number) + (counts[code] as number)
    const next = starts.slice(0, counts.length)
    const slots = new Int32Array(starts[counts.length] as number)
    const put = (code: number, slot: number): void => {
      const at = next[code] as number
      next[code] = at + 1
      slots[at] = slot
    }
    const columns = this.#columns
    const column = dimension === 'category' ? columns.category : dimension === 'status' ? columns.status : undefined
    for (let slot = 0; slot < this.#end; slot++) {
      if (columns.live[slot] !== 1) continue
      if (column !== undefined) put(column[slot] as number, slot)
      else for (const code of columns.chainCodes(slot)) put(code, slot)
    }
    return { starts, slots }
  }

  #orderArray (field: SortField): Int32Array {
    return this.#orders.get(field) as Int32Array
  }

  /** Stores an entry's keys in a free slot (not yet in the orders). */
  #place (entry: ListEntry): number {
    if (this.#slotOf.has(entry.id)) throw new IndexStateError(`service index: ${entry.id} is already an entry`)
    const slot = this.#free.pop() ?? this.#end++
    this.#slotOf.set(entry.id, slot)
    this.#handle[slot] = entry.handle
    this.#columns.set(slot, entry)
    this.#size++
    this.#version++
    return slot
  }

  /** Reallocates the per-slot arrays for `capacity` slots (at least every slot in use). */
  #resize (capacity: number): void {
    const resized = <T extends Float64Array | Int32Array | Uint32Array>(array: T, make: (n: number) => T): T => {
      const next = make(capacity)
      next.set(array.subarray(0, Math.min(array.length, capacity)))
      return next
    }
    this.#handle = resized(this.#handle, (n) => new Float64Array(n))
    this.#columns.resize(capacity)
    for (const field of FIELDS) this.#orders.set(field, resized(this.#orderArray(field), (n) => new Int32Array(n)))
    for (const field of WALKED) this.#orderPrices.set(field, resized(this.#orderPrices.get(field) as Float64Array, (n) => new Float64Array(n)))
    this.#capacity = capacity
  }
}
