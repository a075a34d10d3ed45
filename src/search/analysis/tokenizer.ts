/**
 * The process-wide kuromoji tokenizer. Building it reads and inflates the
 * IPA dictionary (~0.6 s, ~49 MB of typed arrays plus ~1 MB of heap), so it is
 * built once and shared, and what it prepares is saved for the next process
 * (./dictionary-cache.ts).
 */
import { readFile } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import type { IpadicFeatures, Tokenizer } from 'kuromoji'
import { releaseGarbage } from '../../release-garbage.js'
import { DictionaryCache } from './dictionary-cache.js'
import { compactTargetMap, useCompactLattice, type TargetMap, type ViterbiBuilder } from './lattice.js'

export type JapaneseTokenizer = Tokenizer<IpadicFeatures>
export type JapaneseToken = IpadicFeatures

const require = createRequire(import.meta.url)

interface DictionaryLoaderInstance {
  dic: {
    token_info_dictionary: { loadTargetMap: (buffer: Uint8Array) => unknown }
    loadTokenInfoDictionaries: (records: Uint8Array, features: Uint8Array, targetMap: Uint8Array) => unknown
  }
  loadArrayBuffer: (file: string, callback: (err: Error | null, buffer?: ArrayBuffer) => void) => void
  load: (callback: (err: Error | null, dictionaries: unknown) => void) => void
}

let pending: Promise<JapaneseTokenizer> | undefined

// Resolved from the installed package so it works whatever the cwd is.
function dictionaryPath (): string {
  return path.join(path.dirname(require.resolve('kuromoji/package.json')), 'dict')
}

/**
 * Inflates one dictionary file into an ArrayBuffer of exactly its size. kuromoji's own
 * loader inflates in 16 KiB chunks, concatenates them and then copies the result into a
 * new Uint8Array: about 200 MB of garbage per load that stays in the RSS until a GC
 * happens to run. Here one output chunk of the size the gzip trailer announces is the
 * result itself (no concatenation, no copy).
 */
export function inflateDictionary (compressed: Buffer): ArrayBuffer {
  // ISIZE: the uncompressed size modulo 2^32, the last 4 bytes of a gzip member.
  const size = compressed.length >= 4 ? compressed.readUInt32LE(compressed.length - 4) : 0
  const inflated = gunzipSync(compressed, size >= 64 ? { chunkSize: size } : {})
  if (inflated.byteOffset === 0 && inflated.buffer.byteLength === inflated.length) return inflated.buffer as ArrayBuffer
  // A small file (pooled Buffer) or a trailer that lied: copy out the bytes.
  return new Uint8Array(inflated).buffer
}

/**
 * kuromoji saved these files with their whole growable buffer: zero padding up to a round
 * size (unk.dat: 398 bytes of data in 10 MiB). Each is read only by offset (token records,
 * NUL-terminated POS strings, where a read past the end yields 0 like the padding did) or
 * walked to its end as (key, count, values) records, where padding is empty records.
 * Dropping it saves ~34 MB. The trie, connection costs and character maps are indexed by
 * value and keep their size.
 *
 * Each padded file, with whether it is cut exactly: the character classes (152 bytes in
 * 1 MiB) are walked to the end too, but each 7 bytes of padding there become one more class
 * object (149,775 of them, 10 MB of the API thread's heap), so only the last name's
 * terminator is kept.
 */
const PADDED = new Map([['tid.dat.gz', false], ['tid_pos.dat.gz', false], ['unk.dat.gz', false], ['unk_pos.dat.gz', false], ['unk_map.dat.gz', false], ['unk_invoke.dat.gz', true]])
/** Zero bytes kept after the last non-zero one (a terminator, and a whole int of slack). */
const PADDING_KEPT = 16

/** The buffer without its trailing zero padding (a copy when it shrinks); `exact` keeps one zero byte and no slack. */
export function withoutPadding (buffer: ArrayBuffer, exact = false): ArrayBuffer {
  const bytes = new Uint8Array(buffer)
  let end = bytes.length
  while (end > 0 && bytes[end - 1] === 0) end--
  const kept = Math.min(bytes.length, exact ? end + 1 : Math.ceil((end + PADDING_KEPT) / 4) * 4)
  return kept < bytes.length ? buffer.slice(0, kept) : buffer
}

/**
 * Which IPADIC feature fields the analyzer (./analyzer.ts) reads: surface, part of speech,
 * its first detail, basic form and reading. The second and third details, the conjugation
 * type and form and the pronunciation are not.
 */
const KEPT_FEATURES = [true, true, true, false, false, false, false, true, true, false]
const COMMA = 0x2c
/** tid.dat: a 10-byte record per dictionary word, its features' byte offset at bytes 6–9 (little-endian). */
const RECORD = 10
const FEATURES_AT = 6

/**
 * Every dictionary word's features are one comma-separated string in tid_pos.dat (36 MB).
 * The fields the analyzer never reads are emptied, keeping their commas so every field
 * keeps its index (a token's `pronunciation` is ''): 24 MB. The word records point into the
 * strings by offset, so they are rewritten in place. Returns the new strings (`features`
 * itself is overwritten).
 */
export function compactFeatures (records: Uint8Array, features: Uint8Array): Uint8Array {
  // Each string's old and new start, in order (the records point at string starts).
  const starts: number[] = []
  const moved: number[] = []
  // Compacted in place (the output never overtakes the input), then copied out once.
  let o = 0
  for (let i = 0; i < features.length; i++) {
    starts.push(i)
    moved.push(o)
    let field = 0
    for (; i < features.length && features[i] !== 0; i++) {
      const byte = features[i] as number
      if (byte === COMMA) field++
      if (byte === COMMA || KEPT_FEATURES[field] !== false) features[o++] = byte
    }
    features[o++] = 0
  }
  const view = new DataView(records.buffer, records.byteOffset, records.byteLength)
  for (let r = 0; r + RECORD <= records.length; r += RECORD) {
    const at = view.getInt32(r + FEATURES_AT, true)
    // Binary search for the string starting at `at`.
    let low = 0
    let high = starts.length - 1
    while (low < high) {
      const mid = (low + high + 1) >>> 1
      if ((starts[mid] as number) <= at) low = mid
      else high = mid - 1
    }
    if (starts[low] !== at) throw new Error(`kuromoji dictionary: word record ${r / RECORD} points inside a features string`)
    view.setInt32(r + FEATURES_AT, moved[low] as number, true)
  }
  return features.slice(0, o)
}

/**
 * Builds a tokenizer from the dictionary in `dicPath` (loadTokenizer: the installed one, once),
 * from `cache` when it holds the prepared files, else preparing them and saving them there.
 */
export function buildTokenizer (dicPath: string, callback: (err: Error | null, tokenizer?: JapaneseTokenizer) => void, cache?: DictionaryCache): void {
  // kuromoji's TokenizerBuilder is `new Tokenizer(await loader.load())`; the loader's file
  // reading and the target map are replaced (./lattice.ts), the rest is kuromoji's.
  const DictionaryLoader = require('kuromoji/src/loader/DictionaryLoader.js') as new (dicPath: string) => DictionaryLoaderInstance
  const KuromojiTokenizer = require('kuromoji/src/Tokenizer.js') as new (dictionaries: unknown) => JapaneseTokenizer & { viterbi_builder: ViterbiBuilder }
  const loader = new DictionaryLoader(dicPath)
  // The dictionary's own target_map stays empty: the lattice reads this one.
  let targetMap: TargetMap | undefined
  // These run inside the loader's callbacks, where a throw would escape as an uncaught
  // exception: kept, and reported by the load's callback instead.
  let failure: Error | undefined
  const keep = (run: () => void): void => {
    try { run() } catch (err) { failure ??= err as Error }
  }
  const cached = cache?.read()
  /** The files as kuromoji is given them, for the cache. */
  const prepared = new Map<string, ArrayBuffer>()
  loader.dic.token_info_dictionary.loadTargetMap = (buffer) => { keep(() => { targetMap = compactTargetMap(buffer) }) }
  const loadTokenInfo = loader.dic.loadTokenInfoDictionaries.bind(loader.dic)
  loader.dic.loadTokenInfoDictionaries = (records, features, map) => {
    keep(() => {
      // A cached tid.dat and tid_pos.dat are compacted already (the records rewritten in place).
      const compacted = cached === undefined ? compactFeatures(records, features) : features
      prepared.set('tid_pos.dat.gz', compacted.buffer as ArrayBuffer)
      loadTokenInfo(records, compacted, map)
    })
  }
  loader.loadArrayBuffer = (file, done) => {
    const name = path.basename(file)
    const hit = cached?.get(name)
    if (hit !== undefined) {
      process.nextTick(done, null, hit)
      return
    }
    readFile(file, (err, compressed) => {
      if (err !== null) { done(err); return }
      let buffer: ArrayBuffer
      try {
        buffer = inflateDictionary(compressed)
        const exact = PADDED.get(name)
        if (exact !== undefined) buffer = withoutPadding(buffer, exact)
      } catch (inflateErr) {
        done(inflateErr as Error)
        return
      }
      prepared.set(name, buffer)
      done(null, buffer)
    })
  }
  loader.load((err, dictionaries) => {
    if (err !== null && err !== undefined) { callback(err); return }
    if (failure !== undefined) { callback(failure); return }
    const tokenizer = new KuromojiTokenizer(dictionaries)
    useCompactLattice(tokenizer.viterbi_builder, targetMap as TargetMap)
    if (cached === undefined && cache !== undefined) void cache.write(prepared)
    // The load leaves ~110 MB of ArrayBuffers behind (compressed files, padding copied away,
    // the features before compactFeatures). Collected on the next turn: until this callback
    // returns, node's file request still holds kuromoji's loader and the buffers it read.
    setImmediate(releaseGarbage)
    callback(null, tokenizer)
  })
}

/** Every caller gets the same promise, hence the same tokenizer instance. */
export function loadTokenizer (): Promise<JapaneseTokenizer> {
  pending ??= new Promise<JapaneseTokenizer>((resolve, reject) => {
    const dicPath = dictionaryPath()
    const { version } = require('kuromoji/package.json') as { version: string }
    // node_modules/.cache/x402-catalog, beside the kuromoji package.
    const cache = new DictionaryCache(dicPath, version, path.join(dicPath, '..', '..', '.cache', 'x402-catalog'))
    buildTokenizer(dicPath, (err, tokenizer) => {
      if (err !== null) reject(err)
      else resolve(tokenizer as JapaneseTokenizer)
    }, cache)
  }).catch((err: unknown) => {
    // A failed load is not cached, so a later call can try again.
    pending = undefined
    throw err
  })
  return pending
}
