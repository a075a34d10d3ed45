/** npm run catalog -- import FILE: the API's rules per line, batches, a summary, then the indexer. */
import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { test } from 'tap'
import { Indexer } from '../../indexer/indexer.js'
import { importServices, readItems } from '../../src/application/import-file.js'
import { PROJECT_ROOT } from '../../src/paths.js'
import { splitQueryWords } from '../../src/search/analysis/analyzer.js'
import { loadTokenizer } from '../../src/search/analysis/tokenizer.js'
import { EmbeddedSearchEngine } from '../../src/search/embedded/engine.js'
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js'
import type { ServiceRecord } from '../../src/domain/service.js'
import { build, register, tempDataDir, validBody } from '../helper.js'

const run = promisify(execFile)
const CLI = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'catalog.js')
const silent = { info: () => {}, error: () => {}, debug: () => {} }

const body = (i: number, overrides: Record<string, unknown> = {}): Record<string, unknown> =>
  validBody({ name: `Wallaby Import ${i}`, endpoint: `https://import.example.com/v1/${i}`, ...overrides })

test('NDJSON import: valid lines stored in batches, each bad line named with the API\'s reason, then indexed', async (t) => {
  const dataDir = tempDataDir(t)
  const file = join(dataDir, 'crawl.ndjson')
  const lines = [
    JSON.stringify(body(1)),
    JSON.stringify(body(2, { pricing: { currency: 'USDC', pricePerRequest: '0.0000001' } })),
    '',
    '{"name": "broken',
    JSON.stringify(body(3, { category: 'no-such-category' })),
    JSON.stringify(body(4, { extra: true })),
    JSON.stringify(body(5)),
    JSON.stringify(body(6, { endpoint: 'https://import.example.com/v1/5' })),
    ...Array.from({ length: 7 }, (_, i) => JSON.stringify(body(10 + i)))
  ]
  writeFileSync(file, `${lines.join('\n')}\n`)
  const store = new SqliteCatalogStore(dataDir)
  t.teardown(() => store.close())
  const progress: number[] = []
  const summary = await importServices(store, readItems(file), { batchSize: 3, onProgress: (read) => progress.push(read) })
  t.equal(summary.accepted, 9)
  t.same(summary.rejected.map((r) => r.line), [2, 4, 5, 6, 8])
  t.match(summary.rejected, [
    { reason: /^pricing\.pricePerRequest: / },
    { reason: /^not valid JSON/ },
    { reason: /^category: unknown category "no-such-category"/ },
    { reason: /^extra: unknown field$/ },
    { reason: /^endpoint: https:\/\/import\.example\.com\/v1\/5 already appears on line 7$/ }
  ])
  t.ok(progress.length >= 3, 'progress after each batch')
  t.equal(await store.countServices(), 9)

  // A POST with line 2's body gets the same reason.
  const app = await build(t, { seed: 'none' })
  const post = await register(app, body(2, { pricing: { currency: 'USDC', pricePerRequest: '0.0000001' } }))
  t.equal(post.statusCode, 400)
  t.equal(post.json().message, summary.rejected[0]?.reason)

  const engine = new EmbeddedSearchEngine(dataDir)
  t.teardown(() => engine.close())
  await new Indexer({ store, engine, tokenizer: await loadTokenizer(), logger: silent }).catchUp()
  const found = await engine.search({ words: splitQueryWords('wallaby'), filter: {}, page: { limit: 50, offset: 0 }, prefixLastWord: false })
  t.equal(found.total, 9, 'the indexer makes every imported service searchable')
})

test('the CLI: a JSON array, endpoints already in the catalog, the summary and exit codes', async (t) => {
  const dataDir = tempDataDir(t)
  const store = new SqliteCatalogStore(dataDir)
  const existing = await importServices(store, (async function * () { yield { line: 1, item: body(100) } })())
  t.equal(existing.accepted, 1)
  await store.close()
  const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'warn' }

  const file = join(dataDir, 'crawl.json')
  writeFileSync(file, JSON.stringify([body(101), body(100), body(102), { name: 'x' }]))
  const failed = await run(process.execPath, [CLI, 'import', file, '--batch-size', '10'], { env }).catch((err: { code: number, stdout: string }) => err)
  t.equal((failed as { code: number }).code, 3, 'exit code 3: some lines rejected')
  const out = (failed as { stdout: string }).stdout
  t.match(out, /accepted 2, rejected 2/)
  t.match(out, /line 2: endpoint: https:\/\/import\.example\.com\/v1\/100 is already registered/)
  t.match(out, /line 4: description: is required/)

  const clean = join(dataDir, 'clean.ndjson')
  writeFileSync(clean, `${JSON.stringify(body(200))}\n${JSON.stringify(body(201))}\n`)
  const ok = await run(process.execPath, [CLI, 'import', clean], { env })
  t.match(ok.stdout, /accepted 2, rejected 0/)

  const check = new SqliteCatalogStore(dataDir)
  t.teardown(() => check.close())
  t.equal(await check.countServices(), 5)

  for (const args of [['import'], ['export', clean], ['import', clean, '--batch-size', '0']]) {
    const usage = await run(process.execPath, [CLI, ...args], { env }).catch((err: { code: number, stderr: string }) => err)
    t.equal((usage as { code: number }).code, 2, `${args.join(' ')}: usage`)
    t.match((usage as { stderr: string }).stderr, /usage: npm run catalog -- import FILE/)
  }
  const missing = await run(process.execPath, [CLI, 'import', join(dataDir, 'nope.json')], { env }).catch((err: { code: number, stderr: string }) => err)
  t.equal((missing as { code: number }).code, 1)
  t.match((missing as { stderr: string }).stderr, /ENOENT/)
})

test('an origin whose owner proved control of it takes only that owner\'s lines, as POST /api/services does, also when the proof lands during the import', async (t) => {
  const store = new SqliteCatalogStore(tempDataDir(t))
  t.teardown(() => store.close())
  const lines = async function * (bodies: unknown[]): AsyncGenerator<{ line: number, item: unknown }> {
    for (const [i, item] of bodies.entries()) yield { line: i + 1, item }
  }
  const listings = async (): Promise<ServiceRecord[]> => { const all: ServiceRecord[] = []; for await (const r of store.streamServices({})) all.push(r); return all }
  const origin = 'https://claimed-import.example'
  await store.issueClaim({ origin, ownerId: 'key_provider', token: 'x402c_a', createdAt: '2026-01-01T00:00:00.000Z', provenAt: null })
  await store.proveClaim(origin, 'key_provider', '2026-01-02T00:00:00.000Z', 'published the token')

  const other = await importServices(store, lines([body(1, { endpoint: `${origin}/a` }), body(2), body(3, { endpoint: `${origin}/b` })]), { ownerId: 'key_importer' })
  t.equal(other.accepted, 1, 'the line of another origin is stored')
  t.same(other.rejected.map((r) => r.line), [1, 3])
  t.equal(other.rejected[0]?.reason, `endpoint: ${origin} is claimed by its owner, who proved control of it on 2026-01-02T00:00:00.000Z; only that key lists its endpoints`)
  const unowned = await importServices(store, lines([body(4, { endpoint: `${origin}/c` })]))
  t.same([unowned.accepted, unowned.rejected.length], [0, 1], 'an import without an owner key is refused there too')
  const own = await importServices(store, lines([body(5, { endpoint: `${origin}/a` })]), { ownerId: 'key_provider' })
  t.equal(own.accepted, 1, 'the proven owner imports its own listings...')
  t.match((await listings()).filter((r) => r.endpoint.startsWith(`${origin}/`)), [{ ownerId: 'key_provider', claimed: true }], '...claimed')

  // A proof between the import's check and its write, forced: the store proves the claim just before the batch is written.
  const late = 'https://claimed-later.example'
  await store.issueClaim({ origin: late, ownerId: 'key_provider', token: 'x402c_b', createdAt: '2026-01-01T00:00:00.000Z', provenAt: null })
  const racing = new Proxy(store, {
    get (target, property) {
      if (property === 'insertServices') {
        return async (records: readonly ServiceRecord[]) => {
          await target.proveClaim(late, 'key_provider', '2026-01-03T00:00:00.000Z', 'published the token')
          await target.insertServices(records)
        }
      }
      const value: unknown = Reflect.get(target, property)
      return typeof value === 'function' ? value.bind(target) : value
    }
  })
  const raced = await importServices(racing, lines([body(6, { endpoint: `${late}/x` }), body(7)]), { ownerId: 'key_importer' })
  t.equal(raced.accepted, 1, 'the rest of the batch is stored')
  t.same(raced.rejected.map((r) => r.line), [1])
  t.match(raced.rejected[0]?.reason, `endpoint: ${late} is claimed by its owner`)
  t.notOk((await listings()).some((r) => r.endpoint.startsWith(`${late}/`)), 'nothing of the claimed origin is stored')
})
