/**
 * The best `need` documents seen so far, ordered by (key, rank), smallest first: a max-heap
 * with the worst kept document on top. Typed arrays reused across queries, so ranking a
 * bucket of thousands of documents allocates nothing (young-generation collections were
 * what set the engine's p99).
 */
/** Entries kept between queries (~100 KB); a larger page's arrays are dropped after it. */
const KEPT = 4096

export class TopHeap {
  #key = new Float64Array(KEPT)
  #rank = new Uint32Array(KEPT)
  #slot = new Uint32Array(KEPT)
  #size = 0
  #need = 0

  /** Empties the heap for a bucket that needs `need` documents. */
  reset (need: number): this {
    if (need > this.#key.length) this.#allocate(need + (need >>> 1))
    this.#size = 0
    this.#need = need
    return this
  }

  /** Bytes held by the arrays. */
  get bytes (): number {
    return this.#key.byteLength + this.#rank.byteLength + this.#slot.byteLength
  }

  /** The worst kept key once full (a document with a larger key is not kept), Infinity before. */
  get worstKey (): number {
    return this.#size < this.#need ? Infinity : this.#key[0] as number
  }

  /** Whether a document at (key, rank) would be kept now (ranks are distinct). */
  admits (key: number, rank: number): boolean {
    if (this.#size < this.#need) return true
    const top = this.#key[0] as number
    return key < top || (key === top && rank < (this.#rank[0] as number))
  }

  offer (key: number, rank: number, slot: number): void {
    if (this.#size < this.#need) {
      let i = this.#size++
      // Sift up: move parents that are better than the new document down.
      while (i > 0) {
        const parent = (i - 1) >> 1
        if (!this.#above(key, rank, parent)) break
        this.#move(parent, i)
        i = parent
      }
      this.#put(i, key, rank, slot)
    } else if (this.admits(key, rank)) {
      this.#siftDown(key, rank, slot)
    }
  }

  /** Appends the kept slots to `out`, best first, and empties the heap. */
  drainInto (out: number[]): void {
    const start = out.length
    const size = this.#size
    for (let i = 0; i < size; i++) out.push(0)
    for (let end = size - 1; end >= 0; end--) {
      out[start + end] = this.#slot[0] as number
      this.#size = end
      if (end > 0) this.#siftDown(this.#key[end] as number, this.#rank[end] as number, this.#slot[end] as number)
    }
    // A deep page (offset + limit up to MAX_OFFSET) grew the arrays: not kept for the next query.
    if (this.#key.length > KEPT) this.#allocate(KEPT)
  }

  #allocate (size: number): void {
    this.#key = new Float64Array(size)
    this.#rank = new Uint32Array(size)
    this.#slot = new Uint32Array(size)
  }

  /** Whether (key, rank) orders after the document at `i`. */
  #above (key: number, rank: number, i: number): boolean {
    const other = this.#key[i] as number
    return key > other || (key === other && rank > (this.#rank[i] as number))
  }

  /** Places (key, rank, slot) at the root and sifts it down past every child that orders after it. */
  #siftDown (key: number, rank: number, slot: number): void {
    const size = this.#size
    let i = 0
    for (let l = 1; l < size; l = 2 * i + 1) {
      const child = l + 1 < size && this.#above(this.#key[l + 1] as number, this.#rank[l + 1] as number, l) ? l + 1 : l
      if (this.#above(key, rank, child)) break
      this.#move(child, i)
      i = child
    }
    this.#put(i, key, rank, slot)
  }

  #move (from: number, to: number): void {
    this.#key[to] = this.#key[from] as number
    this.#rank[to] = this.#rank[from] as number
    this.#slot[to] = this.#slot[from] as number
  }

  #put (i: number, key: number, rank: number, slot: number): void {
    this.#key[i] = key
    this.#rank[i] = rank
    this.#slot[i] = slot
  }
}
