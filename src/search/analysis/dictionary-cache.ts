/**
 * The prepared IPA dictionary (inflated, padding cut, features compacted: ./tokenizer.ts),
 * saved by the first process that builds it and read by the next ones. Building costs each
 * process ~0.6 s of CPU (three times that under a profiler or coverage); reading the file
 * back, a few tens of milliseconds.
 *
 * One file per kuromoji version and format, beside the installed packages in
 * node_modules/.cache/x402-catalog (where build tools keep theirs). A file that is missing,
 * from another version or damaged is ignored and written again; a folder that cannot be
 * written only means every process builds its own.
 */
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, statSync } from 'node:fs'
import { open, rename, rm } from 'node:fs/promises'
import path from 'node:path'

/** Raise when what is saved changes meaning (a new compaction, another file). */
const FORMAT = 1
const MAGIC = Buffer.from('x402dict')
/** Each file starts on an 8-byte boundary of the cache file. */
const ALIGN = 8

interface Header {
  format: number
  /** kuromoji's version and the sizes of its compressed files: the dictionary this was made from. */
  source: string
  files: Array<[name: string, byteLength: number]>
}

const aligned = (n: number): number => Math.ceil(n / ALIGN) * ALIGN

export class DictionaryCache {
  readonly file: string
  readonly #source: string

  /** `dicPath`: kuromoji's dict folder; `dir`: where the cache file lives. */
  constructor (dicPath: string, version: string, dir: string) {
    const sizes = FILES.map((name) => { try { return statSync(path.join(dicPath, name)).size } catch { return -1 } })
    this.#source = `kuromoji ${version}; ${sizes.join(',')}`
    this.file = path.join(dir, `ipadic-${version}-format${FORMAT}.bin`)
  }

  /** The prepared files by name (as kuromoji asks for them), or undefined when there is no usable cache. */
  read (): Map<string, ArrayBuffer> | undefined {
    let bytes: Buffer
    try {
      bytes = readFileSync(this.file)
    } catch {
      return undefined
    }
    try {
      if (bytes.length < MAGIC.length + 4 || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined
      const headerLength = bytes.readUInt32LE(MAGIC.length)
      const header = JSON.parse(bytes.subarray(MAGIC.length + 4, MAGIC.length + 4 + headerLength).toString('utf8')) as Header
      if (header.format !== FORMAT || header.source !== this.#source || !Array.isArray(header.files)) return undefined
      const files = new Map<string, ArrayBuffer>()
      let at = aligned(MAGIC.length + 4 + headerLength)
      for (const [name, length] of header.files) {
        if (typeof name !== 'string' || !Number.isSafeInteger(length) || length < 0 || at + length > bytes.length) return undefined
        // A copy of its own: kuromoji views each file from its buffer's start.
        files.set(name, (bytes.buffer as ArrayBuffer).slice(bytes.byteOffset + at, bytes.byteOffset + at + length))
        at = aligned(at + length)
      }
      return FILES.every((name) => files.has(name)) && at === bytes.length ? files : undefined
    } catch {
      return undefined
    }
  }

  /** Saves the prepared files; best effort (a temporary file renamed, so readers never see half a file). */
  async write (files: ReadonlyMap<string, ArrayBuffer>): Promise<void> {
    if (!FILES.every((name) => files.has(name))) return
    const header = Buffer.from(JSON.stringify({ format: FORMAT, source: this.#source, files: FILES.map((name) => [name, (files.get(name) as ArrayBuffer).byteLength]) } satisfies Header))
    const lead = Buffer.alloc(MAGIC.length + 4)
    MAGIC.copy(lead)
    lead.writeUInt32LE(header.length, MAGIC.length)
    const chunks: Uint8Array[] = [lead, header]
    let at = lead.length + header.length
    for (const name of FILES) {
      chunks.push(Buffer.alloc(aligned(at) - at))
      at = aligned(at)
      const bytes = new Uint8Array(files.get(name) as ArrayBuffer)
      chunks.push(bytes)
      at += bytes.length
    }
    chunks.push(Buffer.alloc(aligned(at) - at))
    const temporary = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
    try {
      mkdirSync(path.dirname(this.file), { recursive: true })
      const handle = await open(temporary, 'w', 0o644)
      try {
        await handle.writev(chunks)
      } finally {
        await handle.close()
      }
      await rename(temporary, this.file)
    } catch {
      await rm(temporary, { force: true }).catch(() => {})
    }
  }
}

/** The files kuromoji's DictionaryLoader reads, as it names them. */
export const FILES = ['base.dat.gz', 'check.dat.gz', 'tid.dat.gz', 'tid_pos.dat.gz', 'tid_map.dat.gz', 'cc.dat.gz', 'unk.dat.gz', 'unk_pos.dat.gz', 'unk_map.dat.gz', 'unk_char.dat.gz', 'unk_compat.dat.gz', 'unk_invoke.dat.gz']
