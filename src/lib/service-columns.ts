/**
 * The catalog's filter and sort keys of each service, in memory: one column per key in
 * typed arrays, indexed by a slot number its owner hands out. The one in-memory reading of
 * ServiceFilter and ServiceSort, shared by the SQLite store's list index (service-index.ts)
 * and the SQLite search engine's in-memory index, so a filter or an order cannot mean one
 * thing in GET /api/services and another in a search.
 *
 * Text orders by code point (compareText, what SQLite's BINARY collation and MongoDB
 * compare); ties break by id. Category, status and chains are small integer codes per
 * dimension, with how many live slots hold each.
 */
import { extensionBit, type ServiceFilter, type SortField } from '../domain/catalog-query.js'
import { isTestListing } from '../domain/networks.js'
import { payToKey } from '../domain/pay-to.js'
import { IndexStateError } from '../errors.js'
import { compareText } from '../domain/sort-keys.js'

/** What the columns keep of a service: the fields a filter or a sort reads. */
export interface ServiceKeys {
  id: string
  category: string
  status: string
  priceAtomic: number
  trustScore: number
  /** nameSortKey of the name. */
  nameSort: string
  createdAt: string
  chains: readonly string[]
  /** payToKey of the payment address (the payTo filter). */
  payTo: string
  /** extensionMask of the x402 extensions the endpoint declares (the extension filter). */
  extensionMask: number
}

/**
 * The keys as a SQL row holds them (the store's services and the search index's documents
 * keep the same columns): id, category, status, price, trust, name sort key, creation
 * time, chains as a JSON array, payToKey of the payment address, mask of declared extensions.
 */
export type ServiceKeyValues = [id: string, category: string, status: string, priceAtomic: number, trustScore: number, nameSort: string, createdAt: string, chains: string, payTo: string, extensionMask: number]

/** The row mapper: ServiceKeyValues (a row may carry more values after them) as ServiceKeys. */
export function serviceKeysOf (v: readonly [...ServiceKeyValues, ...unknown[]]): ServiceKeys {
  return { id: v[0], category: v[1], status: v[2], priceAtomic: v[3], trustScore: v[4], nameSort: v[5], createdAt: v[6], chains: JSON.parse(v[7]) as string[], payTo: v[8], extensionMask: v[9] }
}

export const DIMENSIONS = ['category', 'status', 'chain'] as const
export type Dimension = typeof DIMENSIONS[number]

/** Chains with codes below this live in a per-slot bit mask; any others in a map. */
const MASK_BITS = 32
/** Category and status codes are 16-bit cells (the catalog has 18 categories and 3 statuses). */
const MAX_CODES = 0x10000
/** Bytes of an EVM address, the payTo key most services have (0x + 40 hex digits). */
const ADDRESS_BYTES = 20
const EVM_KEY = /^0x[0-9a-f]{40}$/

/** An EVM payTo key's 20 bytes, or null for any other key (Solana, or anything odd). */
function addressBytes (key: string): Uint8Array | null {
  return EVM_KEY.test(key) ? Buffer.from(key.slice(2), 'hex') : null
}

/**
 * A creation time as a number that orders like its text: milliseconds when the text is
 * what toISOString writes (fixed width, so text order is time order), NaN otherwise.
 */
function timeKey (text: string): number {
  const ms = Date.parse(text)
  return Number.isFinite(ms) && new Date(ms).toISOString() === text ? ms : NaN
}

/** Strings to small integer codes, per dimension, with how many live slots hold each (and how many of those are test-network listings). */
export class Codes {
  readonly values: string[] = []
  readonly counts: number[] = []
  readonly tests: number[] = []
  readonly #codes = new Map<string, number>()

  code (value: string): number {
    let code = this.#codes.get(value)
    if (code === undefined) {
      code = this.values.length
      this.values.push(value)
      this.#codes.set(value, code)
      this.counts.push(0)
      this.tests.push(0)
    }
    return code
  }

  find (value: string): number | undefined { return this.#codes.get(value) }

  /** Counts `delta` more (or fewer) slots holding the code; `test`: test-network listings. */
  change (code: number, delta: number, test = false): void {
    this.counts[code] = (this.counts[code] as number) + delta
    if (test) this.tests[code] = (this.tests[code] as number) + delta
  }

  /** Live slots holding the code on one side of the test-network split (CompiledFilter.testnet; -1: both). */
  held (code: number, testnet: number): number {
    const all = this.counts[code] as number
    if (testnet < 0) return all
    return testnet === 1 ? this.tests[code] as number : all - (this.tests[code] as number)
  }
}

/** A filter as codes; -1 means "any". */
export interface CompiledFilter {
  category: number
  status: number
  chain: number
  maxPrice: number
  /** payToKey, or null for any. */
  payTo: string | null
  /** payTo's bytes when it is an EVM address. */
  payToBytes: Uint8Array | null
  /** extensionBit of the extension asked for; 0 for any. */
  extension: number
  /** 1: test-network listings only; 0: the others only; -1: any. */
  testnet: number
}

export class ServiceColumns {
  capacity = 0
  ids: string[] = []
  names: string[] = []
  /**
   * payTo keys that are EVM addresses, 20 bytes per slot: a string apiece costs several times
   * that in every copy of the columns (docs/benchmarks.md). Other keys are in #payToText.
   */
  payToBytes = new Uint8Array(0)
  readonly #payToText = new Map<number, string>()
  /** 1 while a slot holds a service. */
  live = new Uint8Array(0)
  price = new Float64Array(0)
  trust = new Float64Array(0)
  /** Creation times as timeKey; the ones it cannot hold are in #oddTimes as text. */
  time = new Float64Array(0)
  category = new Uint16Array(0)
  status = new Uint16Array(0)
  chainMask = new Uint32Array(0)
  /** extensionMask of each slot's declared extensions. */
  extensions = new Uint8Array(0)
  /** 1 for a test-network listing (isTestListing of its chains, read here so it follows the network table). */
  testnet = new Uint8Array(0)
  /** Live slots, and how many of them hold a test-network listing. */
  liveSlots = 0
  testListings = 0
  readonly #chainExtra = new Map<number, number[]>()
  readonly #oddTimes = new Map<number, string>()
  readonly codes: Record<Dimension, Codes> = { category: new Codes(), status: new Codes(), chain: new Codes() }

  /** Reallocates the columns for `capacity` slots (at least every slot in use). */
  resize (capacity: number): void {
    const resized = <T extends Uint8Array | Uint16Array | Float64Array | Uint32Array>(array: T, make: (n: number) => T, width = 1): T => {
      const next = make(capacity * width)
      next.set(array.subarray(0, Math.min(array.length, capacity * width)))
      return next
    }
    this.live = resized(this.live, (n) => new Uint8Array(n))
    this.price = resized(this.price, (n) => new Float64Array(n))
    this.trust = resized(this.trust, (n) => new Float64Array(n))
    this.time = resized(this.time, (n) => new Float64Array(n))
    this.category = resized(this.category, (n) => new Uint16Array(n))
    this.status = resized(this.status, (n) => new Uint16Array(n))
    this.payToBytes = resized(this.payToBytes, (n) => new Uint8Array(n), ADDRESS_BYTES)
    this.chainMask = resized(this.chainMask, (n) => new Uint32Array(n))
    this.extensions = resized(this.extensions, (n) => new Uint8Array(n))
    this.testnet = resized(this.testnet, (n) => new Uint8Array(n))
    this.capacity = capacity
  }

  /** Stores a service's keys in a free slot below the capacity. */
  set (slot: number, keys: ServiceKeys): void {
    this.ids[slot] = keys.id
    this.names[slot] = keys.nameSort
    const address = addressBytes(keys.payTo)
    if (address === null) this.#payToText.set(slot, keys.payTo)
    else this.payToBytes.set(address, slot * ADDRESS_BYTES)
    this.live[slot] = 1
    this.liveSlots++
    this.price[slot] = keys.priceAtomic
    this.trust[slot] = keys.trustScore
    const time = timeKey(keys.createdAt)
    this.time[slot] = time
    if (Number.isNaN(time)) this.#oddTimes.set(slot, keys.createdAt)
    const test = isTestListing(keys.chains)
    this.testnet[slot] = test ? 1 : 0
    if (test) this.testListings++
    this.category[slot] = this.#count('category', keys.category, test)
    this.status[slot] = this.#count('status', keys.status, test)
    let mask = 0
    const extra: number[] = []
    for (const chain of new Set(keys.chains)) {
      const code = this.#count('chain', chain, test)
      if (code < MASK_BITS) mask |= 1 << code
      else extra.push(code)
    }
    this.chainMask[slot] = mask
    this.extensions[slot] = keys.extensionMask
    if (extra.length > 0) this.#chainExtra.set(slot, extra)
  }

  /** Frees a slot: its service no longer counts nor matches. */
  clear (slot: number): void {
    if (this.live[slot] !== 1) return
    const test = this.testnet[slot] === 1
    this.codes.category.change(this.category[slot] as number, -1, test)
    this.codes.status.change(this.status[slot] as number, -1, test)
    for (const code of this.chainCodes(slot)) this.codes.chain.change(code, -1, test)
    this.live[slot] = 0
    this.liveSlots--
    this.chainMask[slot] = 0
    this.extensions[slot] = 0
    if (test) this.testListings--
    this.testnet[slot] = 0
    this.#chainExtra.delete(slot)
    this.#oddTimes.delete(slot)
    this.#payToText.delete(slot)
    this.ids[slot] = ''
    this.names[slot] = ''
  }

  #count (dimension: Dimension, value: string, test: boolean): number {
    const code = this.codes[dimension].code(value)
    if (code >= MAX_CODES && dimension !== 'chain') throw new IndexStateError(`service columns: more than ${MAX_CODES} distinct values of ${dimension}`)
    this.codes[dimension].change(code, 1, test)
    return code
  }

  /** The filter as codes, or null when no service can match it (a value no live service holds). */
  compile (filter: ServiceFilter): CompiledFilter | null {
    const code = (dimension: Dimension, value: string | undefined): number | null => {
      if (value === undefined) return -1
      const found = this.codes[dimension].find(value)
      return found === undefined || this.codes[dimension].counts[found] === 0 ? null : found
    }
    const category = code('category', filter.category)
    const status = code('status', filter.status)
    const chain = code('chain', filter.chain)
    if (category === null || status === null || chain === null) return null
    // Like a code no live service holds: a side of the test-network split with no slots matches
    // nothing, and leaving out the empty side filters nothing.
    let testnet = -1
    if (filter.testnet !== undefined) {
      const side = filter.testnet ? 1 : 0
      const held = filter.testnet ? this.testListings : this.liveSlots - this.testListings
      if (held === 0) return null
      if (held !== this.liveSlots) testnet = side
    }
    const payTo = filter.payTo === undefined ? null : payToKey(filter.payTo)
    const extension = filter.extension === undefined ? 0 : extensionBit(filter.extension)
    return { category, status, chain, maxPrice: filter.maxPriceAtomic ?? Infinity, payTo, payToBytes: payTo === null ? null : addressBytes(payTo), extension, testnet }
  }

  /** Whether the live slot matches (callers that may meet freed slots check `live` too). */
  matches (slot: number, f: CompiledFilter): boolean {
    return (this.price[slot] as number) <= f.maxPrice &&
      (f.category < 0 || this.category[slot] === f.category) &&
      (f.status < 0 || this.status[slot] === f.status) &&
      (f.chain < 0 || this.hasChain(slot, f.chain)) &&
      ((this.extensions[slot] as number) & f.extension) === f.extension &&
      (f.testnet < 0 || this.testnet[slot] === f.testnet) &&
      (f.payTo === null || this.#paysTo(slot, f))
  }

  #paysTo (slot: number, f: CompiledFilter): boolean {
    const text = this.#payToText.get(slot)
    if (text !== undefined || f.payToBytes === null) return text === f.payTo
    const bytes = this.payToBytes
    const at = slot * ADDRESS_BYTES
    for (let i = 0; i < ADDRESS_BYTES; i++) if (bytes[at + i] !== f.payToBytes[i]) return false
    return true
  }

  /** A predicate on any slot (freed ones fail), or undefined when nothing can match. */
  matcher (filter: ServiceFilter): ((slot: number) => boolean) | undefined {
    const compiled = this.compile(filter)
    if (compiled === null) return undefined
    const live = this.live
    const { category, status, chain, maxPrice, payTo, extension, testnet } = compiled
    if (category < 0 && status < 0 && chain < 0 && maxPrice === Infinity && payTo === null && extension === 0 && testnet < 0) return (slot) => live[slot] === 1
    return (slot) => live[slot] === 1 && this.matches(slot, compiled)
  }

  hasChain (slot: number, code: number): boolean {
    if (code < MASK_BITS) return (((this.chainMask[slot] as number) >>> code) & 1) === 1
    return this.#chainExtra.get(slot)?.includes(code) ?? false
  }

  chainCodes (slot: number): number[] {
    const codes: number[] = []
    // Only the set bits: a mask is mostly zeros.
    for (let mask = this.chainMask[slot] as number; mask !== 0; mask &= mask - 1) codes.push(31 - Math.clz32(mask & -mask))
    const extra = this.#chainExtra.get(slot)
    return extra === undefined ? codes : [...codes, ...extra]
  }

  /** Ascending (key, id) order of two slots by a sort field. */
  comparator (field: SortField): (a: number, b: number) => number {
    const ids = this.ids
    const byId = (a: number, b: number): number => compareText(ids[a] as string, ids[b] as string)
    const numeric = (keys: Float64Array) => (a: number, b: number): number => ((keys[a] as number) - (keys[b] as number)) || byId(a, b)
    switch (field) {
      case 'price': return numeric(this.price)
      case 'trustScore': return numeric(this.trust)
      case 'name': { const names = this.names; return (a, b) => compareText(names[a] as string, names[b] as string) || byId(a, b) }
      case 'createdAt': {
        const times = this.time
        const text = (slot: number): string => this.#oddTimes.get(slot) ?? new Date(times[slot] as number).toISOString()
        return (a, b) => {
          const x = times[a] as number
          const y = times[b] as number
          return (Number.isNaN(x) || Number.isNaN(y) ? compareText(text(a), text(b)) : x - y) || byId(a, b)
        }
      }
    }
  }

  /** How many of `slots` hold each value of each dimension asked (values held by none left out). */
  facets (slots: ArrayLike<number>, dimensions: readonly Dimension[]): Partial<Record<Dimension, Record<string, number>>> {
    const out: Partial<Record<Dimension, Record<string, number>>> = {}
    for (const dimension of dimensions) {
      const codes = this.codes[dimension]
      const counts = new Float64Array(codes.values.length)
      const column = dimension === 'category' ? this.category : dimension === 'status' ? this.status : undefined
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i] as number
        if (column !== undefined) {
          const code = column[slot] as number
          counts[code] = (counts[code] as number) + 1
        } else {
          for (const code of this.chainCodes(slot)) counts[code] = (counts[code] as number) + 1
        }
      }
      const result: Record<string, number> = {}
      codes.values.forEach((value, code) => { if ((counts[code] as number) > 0) result[value] = counts[code] as number })
      out[dimension] = result
    }
    return out
  }

  /** Approximate bytes held: columns, and strings counted by length. */
  bytes (slots: number): number {
    let strings = 0
    for (let slot = 0; slot < slots; slot++) strings += (this.ids[slot]?.length ?? 0) * 2 + (this.names[slot]?.length ?? 0) * 2 + (this.#payToText.get(slot)?.length ?? 0) * 2 + 32
    return this.capacity * (1 + 8 + 8 + 8 + 2 + 2 + 4 + 1 + 1 + ADDRESS_BYTES) + strings
  }
}
