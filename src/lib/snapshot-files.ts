/**
 * Large answers built once and sent as files: the first request for a version (e.g. the
 * export at change-feed seq n with a filter) builds it into a file with a gzip and a brotli
 * copy beside it; every other request for that version, concurrent or later, is a file send
 * with a Content-Length. One build runs at a time across all keys, and it yields to the event
 * loop between chunks, so any number of concurrent readers cost one walk of the store per
 * change, not one each, and other requests keep being answered meanwhile.
 *
 * Bounded: the files of at most `maxBytes` (all encodings counted) are kept, the least
 * recently used version evicted first; a file being sent stays readable after eviction (an
 * unlinked file lives while it is open).
 */
import { createReadStream, createWriteStream, mkdirSync, openSync, readdirSync, rmSync, statSync, type ReadStream } from 'node:fs'
import { rename, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { randomBytes } from 'node:crypto'
import { constants as zlib, createBrotliCompress, createGzip } from 'node:zlib'

export type Encoding = 'br' | 'gzip' | 'identity'
const ENCODINGS: readonly Encoding[] = ['identity', 'gzip', 'br']

export interface Snapshot {
  /** Which version this is (e.g. an ETag): a request naming another version gets another snapshot. */
  version: string
  sizes: Record<Encoding, number>
  /** The file of an encoding, opened for reading: it stays readable even if evicted meanwhile. */
  open: (encoding: Encoding) => ReadStream
}

interface Entry {
  version: string
  base: string
  sizes: Record<Encoding, number>
  bytes: number
}

export interface SnapshotFilesOptions {
  dir: string
  /** Bytes of files kept, all encodings and keys together. */
  maxBytes: number
}

export class SnapshotFiles {
  readonly #dir: string
  readonly #maxBytes: number
  /** Built versions by key, least recently used first (Map order). */
  readonly #entries = new Map<string, Entry>()
  /** Builds asked for, by `${key}\n${version}`: every waiter for one version shares one build. */
  readonly #building = new Map<string, Promise<Entry>>()
  /** The one build at a time: each waits for the one before it. */
  #queue: Promise<unknown> = Promise.resolve()
  #bytes = 0
  /** Builds run so far (tests and /health-style reporting). */
  builds = 0

  /**
   * Keeps its files in a folder of its own under `options.dir` (several API processes may
   * share a DATA_DIR) and removes the folders that processes no longer running left behind.
   */
  constructor (options: SnapshotFilesOptions) {
    mkdirSync(options.dir, { recursive: true })
    for (const name of readdirSync(options.dir)) {
      const pid = Number(/^(\d+)-/.exec(name)?.[1])
      if (Number.isInteger(pid) && !alive(pid)) rmSync(join(options.dir, name), { recursive: true, force: true })
    }
    this.#dir = join(options.dir, `${process.pid}-${randomBytes(4).toString('hex')}`)
    this.#maxBytes = options.maxBytes
    mkdirSync(this.#dir, { recursive: true })
  }

  /** Removes every file (the process is closing). */
  close (): void {
    rmSync(this.#dir, { recursive: true, force: true })
    this.#entries.clear()
    this.#bytes = 0
  }

  /**
   * The snapshot of `key` at `version`, built from `chunks` unless it already is. `chunks` is
   * called only when a build starts.
   */
  async get (key: string, version: string, chunks: () => AsyncIterable<string>): Promise<Snapshot> {
    const known = this.#entries.get(key)
    let entry: Entry
    if (known?.version === version) {
      entry = known
    } else {
      const id = `${key}\n${version}`
      let build = this.#building.get(id)
      if (build === undefined) {
        build = this.#enqueue(() => this.#build(key, version, chunks))
        this.#building.set(id, build)
        void build.then(() => { this.#building.delete(id) }, () => { this.#building.delete(id) })
      }
      entry = await build
    }
    // Touch: most recently used last.
    if (this.#entries.get(key) === entry) { this.#entries.delete(key); this.#entries.set(key, entry) }
    // Opened at once, not on the stream's first read: an eviction after this cannot take the file away.
    return { version: entry.version, sizes: entry.sizes, open: (encoding) => createReadStream('', { fd: openSync(`${entry.base}.${encoding}`, 'r') }) }
  }

  #enqueue<T> (work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work)
    this.#queue = run.catch(() => undefined)
    return run
  }

  async #build (key: string, version: string, chunks: () => AsyncIterable<string>): Promise<Entry> {
    const known = this.#entries.get(key)
    if (known?.version === version) return known
    const base = join(this.#dir, randomBytes(8).toString('hex'))
    const parts = ENCODINGS.map((encoding) => `${base}.${encoding}`)
    try {
      await pipeline(Readable.from(yielding(chunks())), createWriteStream(`${base}.tmp`))
      await rename(`${base}.tmp`, `${base}.identity`)
      // Compression runs on libuv's threads: the event loop only moves buffers.
      await pipeline(createReadStream(`${base}.identity`), createGzip({ level: 6 }), createWriteStream(`${base}.gzip`))
      await pipeline(createReadStream(`${base}.identity`), createBrotliCompress({ params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } }), createWriteStream(`${base}.br`))
    } catch (err) {
      await Promise.all([...parts, `${base}.tmp`].map(async (path) => await unlink(path).catch(() => undefined)))
      throw err
    }
    this.builds++
    const sizes = Object.fromEntries(ENCODINGS.map((encoding) => [encoding, statSync(`${base}.${encoding}`).size])) as Record<Encoding, number>
    const entry: Entry = { version, base, sizes, bytes: sizes.identity + sizes.gzip + sizes.br }
    if (known !== undefined) this.#remove(key, known)
    this.#entries.set(key, entry)
    this.#bytes += entry.bytes
    // Over the budget: drop the least recently used versions, never the one just built.
    for (const [oldKey, old] of this.#entries) {
      if (this.#bytes <= this.#maxBytes || old === entry) break
      this.#remove(oldKey, old)
    }
    return entry
  }

  #remove (key: string, entry: Entry): void {
    this.#entries.delete(key)
    this.#bytes -= entry.bytes
    for (const encoding of ENCODINGS) rmSync(`${entry.base}.${encoding}`, { force: true })
  }

  /** Bytes of the files kept now. */
  get bytes (): number {
    return this.#bytes
  }
}

function alive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The chunks, with a turn of the event loop after each: a build never holds the loop for long. */
async function * yielding (chunks: AsyncIterable<string>): AsyncGenerator<string> {
  for await (const chunk of chunks) {
    yield chunk
    await new Promise<void>((resolve) => { setImmediate(resolve) })
  }
}

/** The best encoding an Accept-Encoding header allows: br, then gzip, else identity (q=0 refuses). */
export function pickEncoding (header: string | undefined): Encoding {
  if (header === undefined) return 'identity'
  const q = new Map<string, number>()
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';')
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    const value = qParam === undefined ? 1 : Number(qParam.slice(2))
    q.set(name.trim(), Number.isFinite(value) ? value : 0)
  }
  const allowed = (name: Encoding): boolean => (q.get(name) ?? q.get('*') ?? 0) > 0
  if (allowed('br')) return 'br'
  if (allowed('gzip')) return 'gzip'
  return 'identity'
}
