import { execFile, spawn } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import Database from 'better-sqlite3'
import { test } from 'tap'
import { Indexer } from '../../indexer/indexer.js'
import { toSearchDocument } from '../../indexer/search-document.js'
import { readSeedFile, seedRecords } from '../../src/domain/seed.js'
import type { ServiceRecord } from '../../src/domain/service.js'
import { PROJECT_ROOT } from '../../src/paths.js'
import { loadTokenizer } from '../../src/search/analysis/tokenizer.js'
import { EmbeddedSearchEngine } from '../../src/search/embedded/engine.js'
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js'
import { tempDataDir } from '../support/basics.js'

const run = promisify(execFile)
const CLI = join(PROJECT_ROOT, 'dist', 'indexer', 'cli.js')
const silent = { info: () => {}, error: () => {}, debug: () => {} }
const demo = readSeedFile('demo')

/** `count` distinct services: the demo catalog repeated with distinct endpoints and names. */
function manyRecords (count: number): ServiceRecord[] {
  const entries = Array.from({ length: count }, (_, i) => {
    const base = demo[i % demo.length] as (typeof demo)[number]
    return { ...base, name: `${base.name} ${i}`, endpoint: `${base.endpoint}/copy-${i}` }
  })
  return seedRecords(entries, new Date().toISOString())
}

async function sortedStoreIds (store: SqliteCatalogStore): Promise<string[]> {
  return (await store.listServices({}, { field: 'createdAt', order: 'asc' }, { limit: 100_000, offset: 0 })).items.map((r) => r.id).sort()
}

test('the standalone indexer survives kill -9 between batches and converges', async (t) => {
  const dataDir = tempDataDir(t)
  const store = new SqliteCatalogStore(dataDir)
  t.teardown(() => store.close())
  await store.insertServices(manyRecords(3000))
  const latest = await store.latestSeq()
  const engine = new EmbeddedSearchEngine(dataDir)
  t.teardown(() => engine.close())

  const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, INDEXER_BATCH_SIZE: '25', LOG_LEVEL: 'warn' }
  const watcher = spawn(process.execPath, [CLI, 'watch'], { env, stdio: 'ignore' })
  const exited = new Promise((resolve) => watcher.on('exit', (_code, signal) => resolve(signal)))
  let checkpoint = 0
  for (let i = 0; i < 2000 && checkpoint === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5))
    checkpoint = (await engine.stats()).checkpoint
  }
  watcher.kill('SIGKILL')
  t.equal(await exited, 'SIGKILL')
  const atCrash = await engine.stats()
  t.ok(atCrash.checkpoint > 0 && atCrash.checkpoint < latest, `killed mid-way (checkpoint ${atCrash.checkpoint} of ${latest})`)
  t.equal(atCrash.documents, atCrash.checkpoint, 'documents and checkpoint were written together')

  const status = await run(process.execPath, [CLI, 'status'], { env })
  t.match(status.stdout, new RegExp(`lag:\\s+${latest - atCrash.checkpoint} \\(at most ${latest - atCrash.checkpoint} changes to index\\)`))

  const resumed = spawn(process.execPath, [CLI, 'watch'], { env, stdio: 'ignore' })
  const resumedExit = new Promise((resolve) => resumed.on('exit', (code) => resolve(code)))
  for (let i = 0; i < 6000 && (await engine.stats()).checkpoint < latest; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  resumed.kill('SIGTERM')
  t.equal(await resumedExit, 0, 'SIGTERM stops the watcher cleanly')
  t.same(await engine.indexedIds(), await sortedStoreIds(store), 'index equals store: nothing missing, nothing extra')
  t.match((await run(process.execPath, [CLI, 'status'], { env })).stdout, /lag:\s+0 \(at most 0 changes to index\)/)
})

test('a feed that skips sequence numbers: lag is a bound, catch-up and reindex converge on the store', async (t) => {
  const dataDir = tempDataDir(t)
  const store = new SqliteCatalogStore(dataDir)
  const engine = new EmbeddedSearchEngine(dataDir)
  t.teardown(async () => { await engine.close(); await store.close() })
  const tokenizer = await loadTokenizer()
  const [a, b, c] = manyRecords(3) as [ServiceRecord, ServiceRecord, ServiceRecord]
  await store.insertServices([a, b, c])
  const indexer = new Indexer({ store, engine, tokenizer, logger: silent, batchSize: 1 })
  await indexer.catchUp()
  // Each update gives a a new number and leaves its old one unused: the feed has gaps.
  for (const name of ['Zebrafirst', 'Zebrasecond', 'Zebrathird']) t.equal(await store.updateService({ ...a, name }), true)
  t.equal(await store.deleteService(b.id), true)
  const pending = await store.changesSince(await engine.checkpoint(), 100)
  const { lag } = await indexer.status()
  t.equal(pending.length, 2, 'two services changed: a (its newest state) and b (a tombstone)')
  t.ok(lag > pending.length, `lag ${lag} is a sequence distance, above the ${pending.length} changes`)
  t.equal(await indexer.catchUp(), 2, 'the indexer applies each pending change once, one batch each')
  t.equal((await indexer.status()).lag, 0)
  const search = async (word: string): Promise<string[]> => (await engine.search({ words: [{ text: word, forms: [word] }], filter: {}, page: { limit: 10, offset: 0 }, prefixLastWord: false })).hits.map((h) => h.id)
  t.same(await search('zebrathird'), [a.id], 'the newest state is searchable')
  t.same(await search('zebrafirst'), [], 'no older state is')
  t.same(await engine.indexedIds(), [a.id, c.id].sort(), 'the deleted service is gone')
  t.equal(await indexer.reindex(), 2, 'reindex walks the gapped feed to its end')
  t.same(await engine.indexedIds(), [a.id, c.id].sort())
  t.equal((await indexer.status()).lag, 0)
})

test('reindex reports its progress and leaves the index equal to the store', async (t) => {
  const dataDir = tempDataDir(t)
  const store = new SqliteCatalogStore(dataDir)
  const engine = new EmbeddedSearchEngine(dataDir)
  t.teardown(async () => { await engine.close(); await store.close() })
  const tokenizer = await loadTokenizer()
  const records = manyRecords(120)
  await store.insertServices(records)
  const indexer = new Indexer({ store, engine, tokenizer, logger: silent, batchSize: 50 })
  await indexer.catchUp()
  const query = { words: [{ text: 'weather', forms: ['weather'] }], filter: {}, page: { limit: 100, offset: 0 }, prefixLastWord: false }
  const before = await engine.search(query)
  t.ok(before.total > 0)
  // An index that lost most of its documents: reindex rebuilds it whole from the store.
  await engine.rebuild((async function * () { yield records.slice(0, 10).map((r, i) => toSearchDocument(r, i + 1, tokenizer)) })(), await store.latestSeq())
  t.equal((await engine.stats()).documents, 10)

  const progress: Array<[number, number]> = []
  t.equal(await indexer.reindex((done, total) => progress.push([done, total])), records.length)
  t.same(progress.at(-1), [records.length, records.length], 'progress reaches the total')
  t.same(await engine.indexedIds(), await sortedStoreIds(store))
  t.equal((await engine.search(query)).total, before.total)
})

test('the reindex CLI prints progress and the count; bad commands print usage', async (t) => {
  const dataDir = tempDataDir(t)
  const store = new SqliteCatalogStore(dataDir)
  await store.insertServices(manyRecords(60))
  await store.close()
  const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'warn' }
  const result = await run(process.execPath, [CLI, 'reindex'], { env })
  t.match(result.stderr, /reindex 100% \(60\/60\)/)
  t.match(result.stdout, /reindexed 60 services in/)
  t.match((await run(process.execPath, [CLI, 'status'], { env })).stdout, /index documents:\s+60/)
  const usage = await run(process.execPath, [CLI, 'bogus'], { env }).catch((err: { code: number, stderr: string }) => err)
  t.equal((usage as { code: number }).code, 2)
  t.match((usage as { stderr: string }).stderr, /usage/)
})

/**
 * The same CLI commands against Meilisearch, through the composition root: only where a server
 * is configured (CI). The store stays SQLite, so only MEILI_URL and MEILI_MASTER_KEY are needed.
 */
test('npm run indexer -- reindex|status|watch against Meilisearch', async (t) => {
  const url = process.env.MEILI_URL
  const apiKey = process.env.MEILI_MASTER_KEY
  if (url === undefined || url === '' || apiKey === undefined || apiKey === '') {
    t.pass('indexer CLI on Meilisearch', { skip: 'NOT RUN: set MEILI_URL and MEILI_MASTER_KEY (e.g. http://127.0.0.1:7700) to run the indexer CLI against Meilisearch' })
    return
  }
  const dataDir = tempDataDir(t)
  const store = new SqliteCatalogStore(dataDir)
  t.teardown(() => store.close())
  const records = manyRecords(40)
  await store.insertServices(records.slice(0, 30))
  const indexUid = `indexer_cli_${Date.now().toString(36)}`
  const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'warn', CATALOG_SEARCH: 'meilisearch', MEILI_URL: url, MEILI_MASTER_KEY: apiKey, MEILI_INDEX: indexUid }
  const { MeilisearchEngine } = await import('../../src/search/meilisearch/meili-engine.js')
  t.teardown(async () => { await (await MeilisearchEngine.open({ url, apiKey, indexUid })).drop() })

  t.match((await run(process.execPath, [CLI, 'reindex'], { env })).stdout, /reindexed 30 services in/)
  const status = (await run(process.execPath, [CLI, 'status'], { env })).stdout
  t.match(status, /engine:\s+meilisearch/)
  t.match(status, /index documents:\s+30/)
  t.match(status, /lag:\s+0 /)

  await store.insertServices(records.slice(30))
  const watcher = spawn(process.execPath, [CLI, 'watch'], { env, stdio: 'ignore' })
  const exited = new Promise((resolve) => watcher.on('exit', (code) => resolve(code)))
  let documents = ''
  for (let i = 0; i < 300 && !/index documents:\s+40\b/.test(documents); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    documents = (await run(process.execPath, [CLI, 'status'], { env })).stdout
  }
  watcher.kill('SIGTERM')
  t.equal(await exited, 0, 'the watcher stops cleanly')
  t.match(documents, /index documents:\s+40\b/, 'the watcher indexed the new services')
  t.match(documents, /lag:\s+0 /)
  const engine = await MeilisearchEngine.open({ url, apiKey, indexUid })
  t.teardown(() => engine.close())
  t.same(await engine.indexedIds(), await sortedStoreIds(store), 'index equals store')
})

test('an index in an older layout is emptied on open and refilled from the store', async (t) => {
  const dataDir = tempDataDir(t)
  const store = new SqliteCatalogStore(dataDir)
  t.teardown(() => store.close())
  await store.insertServices(manyRecords(30))
  const tokenizer = await loadTokenizer()
  const first = new EmbeddedSearchEngine(dataDir)
  await new Indexer({ store, engine: first, tokenizer, logger: silent }).catchUp()
  await first.close()
  const raw = new Database(join(dataDir, 'search.sqlite'))
  raw.prepare("UPDATE meta SET value = 1 WHERE key = 'layout'").run()
  raw.close()
  const reopened = new EmbeddedSearchEngine(dataDir)
  t.teardown(() => reopened.close())
  t.same(await reopened.stats(), { documents: 0, checkpoint: 0 }, 'the old layout is not read')
  await new Indexer({ store, engine: reopened, tokenizer, logger: silent }).catchUp()
  t.same(await reopened.indexedIds(), await sortedStoreIds(store), 'the indexer refills it')
})

test('a service indexed again to the same document is not written again; a change, a deletion or a reindex elsewhere is', async (t) => {
  const dataDir = tempDataDir(t)
  const store = new SqliteCatalogStore(dataDir)
  const engine = new EmbeddedSearchEngine(dataDir)
  t.teardown(async () => { await engine.close(); await store.close() })
  const tokenizer = await loadTokenizer()
  const written: string[][] = []
  const apply = engine.apply.bind(engine)
  engine.apply = async (documents, checkpoint, removedIds) => { written.push(documents.map((d) => d.id)); await apply(documents, checkpoint, removedIds) }
  const [a, b] = manyRecords(2) as [ServiceRecord, ServiceRecord]
  await store.insertServices([a, b])
  const indexer = new Indexer({ store, engine, tokenizer, logger: silent })
  await indexer.catchUp()
  t.same(written.splice(0), [[a.id, b.id]])
  // The same state under a new number (a source added to its provenance is one).
  t.equal(await store.updateService({ ...a }), true)
  t.equal(await indexer.catchUp(), 1)
  t.same(written.splice(0), [[]], 'the checkpoint moves; no document is written')
  t.equal((await indexer.status()).lag, 0)
  t.equal(await store.updateService({ ...a, status: 'verified', name: 'Zebraverified' }), true)
  await indexer.catchUp()
  t.same(written.splice(0), [[a.id]], 'a changed document is written')
  const search = async (word: string): Promise<string[]> => (await engine.search({ words: [{ text: word, forms: [word] }], filter: {}, page: { limit: 10, offset: 0 }, prefixLastWord: false })).hits.map((h) => h.id)
  t.same(await search('zebraverified'), [a.id])

  // Another indexer rebuilds the engine while a's state goes back to what this one last wrote before.
  const other = new Indexer({ store, engine, tokenizer, logger: silent })
  t.equal(await store.updateService({ ...a, name: 'Zebrainbetween' }), true)
  await other.reindex()
  t.same(await search('zebrainbetween'), [a.id])
  t.equal(await store.updateService({ ...a, status: 'verified', name: 'Zebraverified' }), true)
  await indexer.catchUp()
  t.same(await search('zebraverified'), [a.id], 'the engine moved without this indexer: it forgets what it wrote and writes again')
  t.same(await search('zebrainbetween'), [])
  t.equal(await store.deleteService(b.id), true)
  await indexer.catchUp()
  t.same(await engine.indexedIds(), [a.id])
})
