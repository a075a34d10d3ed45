/**
 * kuromoji's word lattice without its largest heap structure and without re-encoding the
 * rest of the sentence at every position.
 *
 * kuromoji keeps the token-info target map (surface form's trie id → token-info ids) as a
 * JS object of ~326,000 keys holding JS arrays: ~61 MB of heap that every full GC of the
 * API thread has to mark. Here it is two Int32Arrays (~3 MB), read straight from
 * tid_map.dat. And where kuromoji's ViterbiBuilder encodes `sentence.slice(pos)` to UTF-8
 * (and wraps it in a SurrogateAwareString) at every position, O(n²) in the sentence's
 * length, the sentence is encoded once and the trie walked from each position's offset.
 *
 * The lattice is kuromoji's own, node for node (test/search/analysis/lattice.test.ts compares the tokens
 * with a stock tokenizer): same trie walk, same nodes in the same order, same
 * unknown-word grouping. Sentences holding UTF-16 surrogates take kuromoji's own loop
 * (with the compact map), whose positions count code points.
 */
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/** Compressed sparse rows: the ids of trie id `t` are `ids[offsets[t]]` … `ids[offsets[t + 1] - 1]`. */
export interface TargetMap {
  offsets: Int32Array
  ids: Int32Array
}

/**
 * Reads tid_map.dat (an int count, then records: key, n, n values; little-endian int32,
 * zero padding at the end reads as empty records) as kuromoji's `loadTargetMap` does,
 * including its reads past the end (0) and repeated keys (their values appended in order).
 */
export function compactTargetMap (bytes: Uint8Array): TargetMap {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const length = bytes.byteLength
  const int = (at: number): number => (at + 4 <= length ? view.getInt32(at, true) : 0)
  // Walks the records; `visit` sees each (key, record start, value count).
  const walk = (visit: (key: number, at: number, count: number) => void): void => {
    for (let at = 4; at < length;) {
      const key = int(at)
      const count = int(at + 4)
      visit(key, at + 8, count)
      at += 8 + 4 * Math.max(0, count)
    }
  }
  let maxKey = -1
  walk((key, _at, count) => {
    if (count <= 0) return
    if (key < 0) throw new RangeError(`kuromoji target map: negative trie id ${key}`)
    maxKey = Math.max(maxKey, key)
  })
  const offsets = new Int32Array(maxKey + 2)
  walk((key, _at, count) => { if (count > 0) offsets[key + 1] = (offsets[key + 1] as number) + count })
  for (let k = 1; k < offsets.length; k++) offsets[k] = (offsets[k] as number) + (offsets[k - 1] as number)
  const ids = new Int32Array(offsets[offsets.length - 1] as number)
  const next = offsets.slice(0, Math.max(0, offsets.length - 1))
  walk((key, at, count) => {
    for (let i = 0; i < count; i++) ids[(next[key] as number) + i] = int(at + 4 * i)
    if (count > 0) next[key] = (next[key] as number) + count
  })
  return { offsets, ids }
}

// ---------------------------------------------------------------- kuromoji internals used

interface ByteBuffer { getShort: (index: number) => number }
interface CharacterClass { class_id: number, class_name: string, is_always_invoke: unknown, is_grouping: unknown }
interface Trie {
  bc: { getBase: (index: number) => number }
  traverse: (parent: number, code: number) => number
  commonPrefixSearch: (key: string) => Array<{ k: string, v: number }>
}
interface Dictionary { dictionary: ByteBuffer, target_map: Record<number, ArrayLike<number | string>> }
interface UnknownDictionary extends Dictionary { lookup: (ch: string) => CharacterClass }
export interface ViterbiBuilder {
  trie: Trie
  token_info_dictionary: Dictionary
  unknown_dictionary: UnknownDictionary
  build: (sentence: string) => unknown
}
interface Lattice { append: (node: unknown) => void, appendEos: () => void }
interface SurrogateAware { length: number, slice: (index: number) => string, charAt: (index: number) => string, toString: () => string }

const ViterbiNode = require('kuromoji/src/viterbi/ViterbiNode.js') as new (name: number, cost: number, start: number, length: number, type: string, left: number, right: number, surface: string) => unknown
const ViterbiLattice = require('kuromoji/src/viterbi/ViterbiLattice.js') as new () => Lattice
const SurrogateAwareString = require('kuromoji/src/util/SurrogateAwareString.js') as new (s: string) => SurrogateAware

// doublearray's constants.
const ROOT_ID = 0
const TERM_CODE = 0
const NOT_FOUND = -1

const SURROGATE = /[\uD800-\uDFFF]/

/** Token-info ids of a trie id; like kuromoji, a trie id without any is an error. */
function idsOf (map: TargetMap, trieId: number): [number, number] {
  const from = map.offsets[trieId]
  const to = map.offsets[trieId + 1]
  if (from === undefined || to === undefined || from === to) throw new TypeError(`kuromoji: no token info for trie id ${trieId}`)
  return [from, to]
}

/** Appends the unknown-word nodes of a character class (kuromoji's second half of a position). */
function appendUnknown (builder: ViterbiBuilder, lattice: Lattice, headClass: CharacterClass, pos: number, key: string, keyLength: number): void {
  const unknown = builder.unknown_dictionary
  const unkIds = unknown.target_map[headClass.class_id] as ArrayLike<number | string>
  for (let j = 0; j < unkIds.length; j++) {
    const unkId = parseInt(String(unkIds[j]))
    const left = unknown.dictionary.getShort(unkId)
    const right = unknown.dictionary.getShort(unkId + 2)
    const cost = unknown.dictionary.getShort(unkId + 4)
    lattice.append(new ViterbiNode(unkId, cost, pos + 1, keyLength, 'UNKNOWN', left, right, key))
  }
}

function appendKnown (builder: ViterbiBuilder, map: TargetMap, lattice: Lattice, trieId: number, pos: number, key: string): void {
  const dictionary = builder.token_info_dictionary.dictionary
  const [from, to] = idsOf(map, trieId)
  for (let i = from; i < to; i++) {
    const tokenInfoId = map.ids[i] as number
    const left = dictionary.getShort(tokenInfoId)
    const right = dictionary.getShort(tokenInfoId + 2)
    const cost = dictionary.getShort(tokenInfoId + 4)
    lattice.append(new ViterbiNode(tokenInfoId, cost, pos + 1, key.length, 'KNOWN', left, right, key))
  }
}

/** kuromoji's ViterbiBuilder#build, line for line, reading the compact map. */
function buildAsKuromoji (builder: ViterbiBuilder, map: TargetMap, sentenceText: string): Lattice {
  const lattice = new ViterbiLattice()
  const sentence = new SurrogateAwareString(sentenceText)
  for (let pos = 0; pos < sentence.length; pos++) {
    const tail = sentence.slice(pos)
    const vocabulary = builder.trie.commonPrefixSearch(tail)
    for (const { k, v } of vocabulary) appendKnown(builder, map, lattice, v, pos, k)

    const surrogateAwareTail = new SurrogateAwareString(tail)
    const headChar = new SurrogateAwareString(surrogateAwareTail.charAt(0))
    const headClass = builder.unknown_dictionary.lookup(headChar.toString())
    if (vocabulary.length === 0 || headClass.is_always_invoke === 1) {
      // kuromoji's key stays a SurrogateAwareString (length in code points) unless grouped.
      let key: SurrogateAware | string = headChar
      if (headClass.is_grouping === 1 && surrogateAwareTail.length > 1) {
        for (let k = 1; k < surrogateAwareTail.length; k++) {
          const nextChar = surrogateAwareTail.charAt(k)
          if (headClass.class_name !== builder.unknown_dictionary.lookup(nextChar).class_name) break
          key = key.toString() + nextChar
        }
      }
      appendUnknown(builder, lattice, headClass, pos, key.toString(), key.length)
    }
  }
  lattice.appendEos()
  return lattice
}

/**
 * The same lattice for a sentence without surrogates, where a position is a UTF-16 index:
 * UTF-8 bytes and character classes computed once, group ends found in one backward pass.
 * Undefined if a dictionary word ended inside a character (not in IPADIC; kuromoji's loop
 * then decides).
 */
function buildLinear (builder: ViterbiBuilder, map: TargetMap, sentence: string): Lattice | undefined {
  const n = sentence.length
  const bytes = new Uint8Array(n * 3)
  const byteStart = new Int32Array(n + 1)
  // Character index ending at each byte offset, -1 inside a character.
  const charEndingAt = new Int32Array(n * 3 + 1).fill(-1)
  let length = 0
  charEndingAt[0] = 0
  for (let i = 0; i < n; i++) {
    byteStart[i] = length
    const code = sentence.charCodeAt(i)
    if (code < 0x80) {
      bytes[length++] = code
    } else if (code < 0x800) {
      bytes[length++] = (code >>> 6) | 0xC0
      bytes[length++] = (code & 0x3F) | 0x80
    } else {
      bytes[length++] = (code >>> 12) | 0xE0
      bytes[length++] = ((code >> 6) & 0x3F) | 0x80
      bytes[length++] = (code & 0x3F) | 0x80
    }
    charEndingAt[length] = i + 1
  }
  byteStart[n] = length

  const unknown = builder.unknown_dictionary
  const classes: CharacterClass[] = []
  for (let i = 0; i < n; i++) classes.push(unknown.lookup(sentence.charAt(i)))
  // groupEnd[i]: the first index after i whose class differs (kuromoji's grouping scan).
  const groupEnd = new Int32Array(n)
  for (let i = n - 1; i >= 0; i--) {
    groupEnd[i] = i + 1 < n && (classes[i + 1] as CharacterClass).class_name === (classes[i] as CharacterClass).class_name ? groupEnd[i + 1] as number : i + 1
  }

  const trie = builder.trie
  const lattice = new ViterbiLattice()
  for (let pos = 0; pos < n; pos++) {
    // doublearray's commonPrefixSearch over the bytes from this position on.
    let parent = ROOT_ID
    let words = 0
    const start = byteStart[pos] as number
    for (let b = start; b < length; b++) {
      const child = trie.traverse(parent, bytes[b] as number)
      if (child === NOT_FOUND) break
      parent = child
      const leaf = trie.traverse(child, TERM_CODE)
      if (leaf === NOT_FOUND) continue
      const end = charEndingAt[b + 1] as number
      if (end < 0) return undefined
      const base = trie.bc.getBase(leaf)
      if (base > 0) throw new TypeError('kuromoji: a dictionary word without a trie id')
      appendKnown(builder, map, lattice, -base - 1, pos, sentence.slice(pos, end))
      words++
    }

    const headClass = classes[pos] as CharacterClass
    if (words === 0 || headClass.is_always_invoke === 1) {
      const end = headClass.is_grouping === 1 ? groupEnd[pos] as number : pos + 1
      appendUnknown(builder, lattice, headClass, pos, sentence.slice(pos, end), end - pos)
    }
  }
  lattice.appendEos()
  return lattice
}

/**
 * Makes a tokenizer's lattice builder read `map` instead of its dictionary's target map
 * (which the caller may then leave empty). Only this instance changes.
 */
export function useCompactLattice (builder: ViterbiBuilder, map: TargetMap): void {
  builder.build = (sentence: string) =>
    (SURROGATE.test(sentence) ? undefined : buildLinear(builder, map, sentence)) ?? buildAsKuromoji(builder, map, sentence)
}
