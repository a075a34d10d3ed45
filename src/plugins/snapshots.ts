/**
 * Whole-catalog answers (GET /api/export, /.well-known/x402) as files built once per version
 * (src/lib/snapshot-files.ts): `reply.sendSnapshot` sends the version an ETag names, building
 * it first when no request has yet, with the encoding the client accepts and its length.
 */
import { join } from 'node:path'
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { pickEncoding, SnapshotFiles } from '../lib/snapshot-files.js'

declare module 'fastify' {
  interface FastifyInstance {
    snapshots: SnapshotFiles
  }
  interface FastifyReply {
    /** Sends the snapshot `key` at version `etag` (built from `chunks` if it is not yet). */
    sendSnapshot: (key: string, etag: string, chunks: () => AsyncIterable<string>) => Promise<FastifyReply>
  }
}

export default fp(async function snapshotsPlugin (app: FastifyInstance, opts: { dataDir: string, maxBytes: number }) {
  const snapshots = new SnapshotFiles({ dir: join(opts.dataDir, 'export-cache'), maxBytes: opts.maxBytes })
  app.decorate('snapshots', snapshots)
  app.addHook('onClose', async () => { snapshots.close() })
  app.decorateReply('sendSnapshot', async function (this: FastifyReply, key: string, etag: string, chunks: () => AsyncIterable<string>) {
    const snapshot = await snapshots.get(key, etag, chunks)
    const encoding = pickEncoding(this.request.headers['accept-encoding'])
    void this.header('vary', 'accept-encoding').header('content-length', snapshot.sizes[encoding])
    if (encoding !== 'identity') void this.header('content-encoding', encoding)
    // A file stream bypasses the serializer; the route's 200 schema documents what it carries.
    return await this.type('application/json; charset=utf-8').send(snapshot.open(encoding))
  })
}, { name: 'snapshots' })
