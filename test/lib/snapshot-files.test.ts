import { test } from 'tap'
import { readdirSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { text } from 'node:stream/consumers'
import { gunzipSync, brotliDecompressSync } from 'node:zlib'
import { pickEncoding, SnapshotFiles } from '../../src/lib/snapshot-files.js'
import { tempDataDir } from '../support/basics.js'

async function * chunksOf (...parts: string[]): AsyncGenerator<string> {
  for (const part of parts) yield part
}

async function bytes (stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const chunk of stream) parts.push(chunk as Buffer)
  return Buffer.concat(parts)
}

test('pickEncoding: br, then gzip, then identity, honouring q=0 and *', async (t) => {
  t.equal(pickEncoding(undefined), 'identity')
  t.equal(pickEncoding(''), 'identity')
  t.equal(pickEncoding('gzip, deflate, br'), 'br')
  t.equal(pickEncoding('gzip, br;q=0'), 'gzip')
  t.equal(pickEncoding('GZIP'), 'gzip')
  t.equal(pickEncoding('identity'), 'identity')
  t.equal(pickEncoding('*'), 'br')
  t.equal(pickEncoding('*, br;q=0'), 'gzip')
  t.equal(pickEncoding('br;q=0, gzip;q=0'), 'identity')
  t.equal(pickEncoding('br;q=abc'), 'identity', 'an unreadable weight refuses')
})

test('one build per version, shared by concurrent readers; every encoding holds the same text', async (t) => {
  const files = new SnapshotFiles({ dir: tempDataDir(t), maxBytes: 1 << 20 })
  t.teardown(() => { files.close() })
  let walks = 0
  const chunks = (): AsyncGenerator<string> => { walks++; return chunksOf('{"a":', '1}') }
  const [a, b] = await Promise.all([files.get('k', 'v1', chunks), files.get('k', 'v1', chunks)])
  t.equal(walks, 1)
  t.equal(a?.sizes.identity, 7)
  t.equal(await text(a!.open('identity')), '{"a":1}')
  t.equal(gunzipSync(await bytes(b!.open('gzip'))).toString(), '{"a":1}')
  t.equal(brotliDecompressSync(await bytes(b!.open('br'))).toString(), '{"a":1}')
  await files.get('k', 'v1', chunks)
  t.equal(walks, 1, 'a later request for the same version is a file send')
  await files.get('k', 'v2', chunks)
  t.equal(walks, 2, 'a new version is built')
})

test('kept files are bounded in bytes, least recently used evicted; an open file stays readable', async (t) => {
  const dir = tempDataDir(t)
  const files = new SnapshotFiles({ dir, maxBytes: 7000 })
  t.teardown(() => { files.close() })
  // 2,000 characters that barely compress: over 4,500 bytes a version with its two copies.
  const noise = [randomBytes(1500).toString('base64'), randomBytes(1500).toString('base64')] as const
  const first = await files.get('a', 'v', () => chunksOf(noise[0]))
  const reading = first.open('identity')
  await files.get('b', 'v', () => chunksOf(noise[1]))
  t.ok(files.bytes > 0 && files.bytes <= 7000, `kept ${files.bytes} bytes`)
  t.equal(await text(reading), noise[0], 'evicted while open: still read whole')
  let rebuilt = false
  await files.get('a', 'v', () => { rebuilt = true; return chunksOf(noise[0]) })
  t.ok(rebuilt, 'the evicted version is built again when asked for')
  files.close()
  t.same(readdirSync(dir), [], 'close removes its folder')
})

test('a failed build leaves no file and the next request builds again', async (t) => {
  const dir = tempDataDir(t)
  const files = new SnapshotFiles({ dir, maxBytes: 1 << 20 })
  t.teardown(() => { files.close() })
  async function * failing (): AsyncGenerator<string> { yield 'x'; throw new Error('store gone') }
  await t.rejects(files.get('k', 'v', failing), /store gone/)
  t.equal(files.bytes, 0)
  const ok = await files.get('k', 'v', () => chunksOf('fine'))
  t.equal(await text(ok.open('identity')), 'fine')
})
