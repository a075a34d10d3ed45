/**
 * Large JSON answers written as they are read: the export and the well-known list walk the
 * store in batches and emit text chunks (into a snapshot file), so memory stays flat however
 * big the catalog is. ETags and If-None-Match for them.
 */
import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** Chunks of about this many characters are handed on. */
const CHUNK_CHARS = 64 * 1024

/**
 * `head`, then each element (already JSON) comma-separated, then `tail(count)`: e.g.
 * `{"items":[` … `],"total":3}`, in chunks of about CHUNK_CHARS characters, pulled lazily.
 */
export async function * jsonArrayChunks (head: string, elements: AsyncIterable<string>, tail: (count: number) => string): AsyncGenerator<string> {
  let buffer = head
  let count = 0
  for await (const element of elements) {
    buffer += count === 0 ? element : `,${element}`
    count++
    if (buffer.length >= CHUNK_CHARS) {
      yield buffer
      buffer = ''
    }
  }
  yield buffer + tail(count)
}

/** A strong ETag for what an answer is built from (e.g. the store's change sequence and the filters). */
export function etagOf (...parts: unknown[]): string {
  return `"${createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 27)}"`
}

/** Sets the ETag; true (and a 304 is sent) when the client's If-None-Match already has it. */
export function notModified (request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  void reply.header('etag', etag).header('cache-control', 'no-cache')
  const header = request.headers['if-none-match']
  if (header === undefined) return false
  const tags = header.split(',').map((tag) => tag.trim().replace(/^W\//, ''))
  if (!tags.includes(etag) && !tags.includes('*')) return false
  void reply.code(304).send()
  return true
}
