import { test } from 'tap'
import { loadConfig } from '../src/config.js'

test('defaults', async (t) => {
  const config = loadConfig({})
  t.equal(config.port, 3000)
  t.equal(config.host, '127.0.0.1')
  t.match(config.dataDir, /\/data$/)
  t.same(config.apiKeys, [])
  t.equal(config.seed, 'demo')
  t.equal(config.logLevel, 'info')
  t.equal(config.indexer, 'embedded')
  t.equal(config.indexerBatchSize, 200)
  t.equal(config.responseCacheBytes, 32 * 1024 * 1024)
  t.match(config.rateLimit, { enabled: true, windowMs: 60_000, reads: 600, intentSearches: 60, writes: 60 })
  t.equal(config.searchThreads, 1)
  t.equal(config.listThread, true)
})

test('values from the environment', async (t) => {
  const config = loadConfig({ PORT: '8080', HOST: '0.0.0.0', DATA_DIR: '/tmp/x', CATALOG_API_KEYS: ' key-aaaaaaaaaaaaaaaa , key-bbbbbbbbbbbbbbbb,', CATALOG_SEED: 'none', LOG_LEVEL: 'warn' })
  t.match(config, { port: 8080, host: '0.0.0.0', dataDir: '/tmp/x', apiKeys: ['key-aaaaaaaaaaaaaaaa', 'key-bbbbbbbbbbbbbbbb'], seed: 'none', logLevel: 'warn' })
})

test('CATALOG_LIST_THREAD=0 reads lists on the API thread; anything but 0 or 1 is refused naming it', async (t) => {
  t.equal(loadConfig({ CATALOG_LIST_THREAD: '0' }).listThread, false)
  t.equal(loadConfig({ CATALOG_LIST_THREAD: '1' }).listThread, true)
  t.throws(() => loadConfig({ CATALOG_LIST_THREAD: 'yes' }), /CATALOG_LIST_THREAD/)
})

test('cache and rate-limit sizes from the environment', async (t) => {
  t.equal(loadConfig({ CATALOG_RESPONSE_CACHE_MB: '0.5' }).responseCacheBytes, 512 * 1024)
  t.equal(loadConfig({ CATALOG_RESPONSE_CACHE_MB: '0' }).responseCacheBytes, 0)
  t.equal(loadConfig({}).responseCacheBytes, 32 * 1024 * 1024, '32 MB unless set')
  t.equal(loadConfig({ CATALOG_RATE_LIMIT: '0' }).rateLimit.enabled, false)
  t.same(loadConfig({ CATALOG_RATE_LIMIT_WINDOW_S: '10', CATALOG_RATE_LIMIT_READS: '5', CATALOG_RATE_LIMIT_INTENT: '2', CATALOG_RATE_LIMIT_WRITES: '3' }).rateLimit,
    { enabled: true, windowMs: 10_000, reads: 5, intentSearches: 2, writes: 3, authFailures: 20, searches: 1200 })
  t.match(loadConfig({ CATALOG_RATE_LIMIT_AUTH_FAILURES: '7', CATALOG_RATE_LIMIT_SEARCH: '300' }).rateLimit, { authFailures: 7, searches: 300 })
  t.equal(loadConfig({}).requestTimeoutMs, 30_000)
  t.equal(loadConfig({ CATALOG_REQUEST_TIMEOUT_MS: '5000' }).requestTimeoutMs, 5000)
  t.throws(() => loadConfig({ CATALOG_REQUEST_TIMEOUT_MS: '0' }), { message: /^CATALOG_REQUEST_TIMEOUT_MS must be an integer from 100/ }, 'no way to turn the request bound off')
})

test('bad values are refused with a message naming the variable', async (t) => {
  t.throws(() => loadConfig({ PORT: 'eighty' }), { code: 'CONFIG_ERROR', message: /PORT/ })
  t.throws(() => loadConfig({ PORT: '70000' }), { message: /PORT/ })
  t.throws(() => loadConfig({ CATALOG_API_KEYS: 'short' }), { message: /CATALOG_API_KEYS/ })
  t.throws(() => loadConfig({ LOG_LEVEL: 'loud' }), { message: /LOG_LEVEL/ })
  t.throws(() => loadConfig({ DATA_DIR: ' ' }), { message: /DATA_DIR/ })
  t.throws(() => loadConfig({ CATALOG_INDEXER: 'sometimes' }), { message: /CATALOG_INDEXER/ })
  t.throws(() => loadConfig({ INDEXER_BATCH_SIZE: '0' }), { message: /INDEXER_BATCH_SIZE/ })
  t.throws(() => loadConfig({ CATALOG_RESPONSE_CACHE_MB: '-1' }), { message: /CATALOG_RESPONSE_CACHE_MB/ })
  t.throws(() => loadConfig({ CATALOG_RESPONSE_CACHE_MB: 'lots' }), { message: /CATALOG_RESPONSE_CACHE_MB/ })
  t.throws(() => loadConfig({ CATALOG_RATE_LIMIT: 'yes' }), { message: /CATALOG_RATE_LIMIT must be 1 \(on\) or 0 \(off\)/ })
  for (const name of ['CATALOG_RATE_LIMIT_WINDOW_S', 'CATALOG_RATE_LIMIT_READS', 'CATALOG_RATE_LIMIT_INTENT', 'CATALOG_RATE_LIMIT_WRITES', 'CATALOG_RATE_LIMIT_AUTH_FAILURES', 'CATALOG_RATE_LIMIT_SEARCH']) {
    t.throws(() => loadConfig({ [name]: '0' }), { message: new RegExp(`^${name} must be an integer from 1`) })
    t.throws(() => loadConfig({ [name]: '1.5' }), { message: new RegExp(name) })
  }
  t.throws(() => loadConfig({ CATALOG_SEARCH_THREADS: 'lots' }), { message: /CATALOG_SEARCH_THREADS/ })
  t.throws(() => loadConfig({ CATALOG_SEARCH_THREADS: '17' }), { message: /CATALOG_SEARCH_THREADS/ })
})

test('adapters: SQLite by default; MongoDB and Meilisearch need their server named', async (t) => {
  const defaults = loadConfig({})
  t.same(defaults.store, { kind: 'sqlite' })
  t.same(defaults.search, { kind: 'sqlite' })

  const scaled = loadConfig({
    CATALOG_STORE: 'mongodb',
    MONGO_URL: 'mongodb://mongo:27017/catalog?replicaSet=rs0',
    CATALOG_SEARCH: 'meilisearch',
    MEILI_URL: 'http://meili:7700',
    MEILI_MASTER_KEY: 'a-master-key-of-32-characters-xx',
    MEILI_SEARCH_KEY: 'search-only'
  })
  t.same(scaled.store, { kind: 'mongodb', url: 'mongodb://mongo:27017/catalog?replicaSet=rs0' })
  t.same(scaled.search, { kind: 'meilisearch', url: 'http://meili:7700', apiKey: 'a-master-key-of-32-characters-xx', searchKey: 'search-only', indexUid: 'services' })
  t.equal(loadConfig({ CATALOG_STORE: 'mongodb', MONGO_URL: 'mongodb+srv://u:p@cluster.example.net/cat' }).store.kind, 'mongodb')

  t.throws(() => loadConfig({ CATALOG_STORE: 'postgres' }), { code: 'CONFIG_ERROR', message: /CATALOG_STORE must be sqlite or mongodb/ })
  t.throws(() => loadConfig({ CATALOG_STORE: 'mongodb' }), { message: /MONGO_URL is required/ })
  t.throws(() => loadConfig({ CATALOG_STORE: 'mongodb', MONGO_URL: 'mongodb://mongo:27017' }), { message: /MONGO_URL must .* naming the database/ }, 'no database name')
  t.throws(() => loadConfig({ CATALOG_STORE: 'mongodb', MONGO_URL: 'mongodb://mongo:27017/?replicaSet=rs0' }), { message: /MONGO_URL/ })
  t.throws(() => loadConfig({ CATALOG_STORE: 'mongodb', MONGO_URL: 'http://mongo/catalog' }), { message: /MONGO_URL/ })
  t.throws(() => loadConfig({ CATALOG_SEARCH: 'elastic' }), { message: /CATALOG_SEARCH must be sqlite or meilisearch/ })
  t.throws(() => loadConfig({ CATALOG_SEARCH: 'meilisearch' }), { message: /MEILI_URL is required/ })
  t.throws(() => loadConfig({ CATALOG_SEARCH: 'meilisearch', MEILI_URL: 'meili:7700' }), { message: /MEILI_URL must be an http\(s\) URL/ })
  t.throws(() => loadConfig({ CATALOG_SEARCH: 'meilisearch', MEILI_URL: 'ftp://meili' }), { message: /MEILI_URL/ })
  t.throws(() => loadConfig({ CATALOG_SEARCH: 'meilisearch', MEILI_URL: 'http://meili:7700' }), { message: /MEILI_MASTER_KEY is required/ })
  t.throws(() => loadConfig({ CATALOG_SEARCH: 'meilisearch', MEILI_URL: 'http://meili:7700', MEILI_MASTER_KEY: 'short' }), { message: /MEILI_MASTER_KEY/ })
  t.throws(() => loadConfig({ CATALOG_SEARCH: 'meilisearch', MEILI_URL: 'http://meili:7700', MEILI_MASTER_KEY: 'a-master-key-of-32-characters-xx', MEILI_INDEX: 'a b' }), { message: /MEILI_INDEX/ })
})

test('probing: defaults and bounds', async (t) => {
  t.match(loadConfig({}), { probeIntervalS: 3600, probeTimeoutMs: 8000, probeAllowPrivate: false, prober: 'embedded', probeConcurrency: 16, probePerHost: 2, probeSeeded: false })
  t.match(loadConfig({ CATALOG_PROBE_INTERVAL_S: '0', CATALOG_PROBE_ALLOW_PRIVATE: '1', CATALOG_PROBER: 'external', CATALOG_PROBE_SEEDED: '1' }), { probeIntervalS: 0, probeAllowPrivate: true, prober: 'external', probeSeeded: true })
  t.throws(() => loadConfig({ CATALOG_PROBE_INTERVAL_S: '-5' }), { message: /CATALOG_PROBE_INTERVAL_S must be an integer from 0 \(off\)/ })
  t.throws(() => loadConfig({ CATALOG_PROBE_TIMEOUT_MS: '10' }), { message: /CATALOG_PROBE_TIMEOUT_MS/ })
  t.throws(() => loadConfig({ CATALOG_PROBE_ALLOW_PRIVATE: 'yes' }), { message: /CATALOG_PROBE_ALLOW_PRIVATE must be 0 or 1/ })
  t.throws(() => loadConfig({ CATALOG_PROBER: 'both' }), { message: /CATALOG_PROBER/ })
  t.throws(() => loadConfig({ CATALOG_PROBE_CONCURRENCY: '0' }), { message: /CATALOG_PROBE_CONCURRENCY/ })
})

test('source passes: in the API by default; CATALOG_SOURCE_SYNC=external leaves them to npm run sources', async (t) => {
  t.match(loadConfig({}), { sourceSync: 'embedded', sourceSyncIntervalS: 3600 })
  t.equal(loadConfig({ CATALOG_SOURCE_SYNC: 'external' }).sourceSync, 'external')
  t.throws(() => loadConfig({ CATALOG_SOURCE_SYNC: 'elsewhere' }), { message: 'CATALOG_SOURCE_SYNC must be embedded or external, got "elsewhere"' })
})

test('the change feed is checked per request when store and engine are local, followed on an interval otherwise', async (t) => {
  t.equal(loadConfig({}).changeFollowMs, 0)
  t.equal(loadConfig({ CATALOG_STORE: 'mongodb', MONGO_URL: 'mongodb://127.0.0.1:27017/catalog' }).changeFollowMs, 100)
  t.equal(loadConfig({ CATALOG_CHANGE_FOLLOW_MS: '250' }).changeFollowMs, 250)
  t.throws(() => loadConfig({ CATALOG_CHANGE_FOLLOW_MS: 'soon' }), { message: /CATALOG_CHANGE_FOLLOW_MS must be an integer from 0 \(check on every request\) to 10000/ })
})

test('one line per problem: the variable, what it must be, and the value unless it is a secret', async (t) => {
  t.throws(() => loadConfig({ INDEXER_BATCH_SIZE: '20000' }), { message: 'INDEXER_BATCH_SIZE must be an integer from 1 to 10000, got "20000"' })
  t.throws(() => loadConfig({ CATALOG_PROBE_SEEDED: 'true' }), { message: 'CATALOG_PROBE_SEEDED must be 0 or 1, got "true"' })
  const keys = 'a-long-enough-key-0123, has a space in it'
  t.throws(() => loadConfig({ CATALOG_API_KEYS: keys }), { message: /^CATALOG_API_KEYS must be .*at least 16 characters without spaces$/ }, 'the keys are not echoed')
  t.throws(() => loadConfig({ CATALOG_SEARCH: 'meilisearch', MEILI_URL: 'http://meili:7700', MEILI_MASTER_KEY: 'too-short' }), { message: /^MEILI_MASTER_KEY must be [^"]*$/ }, 'nor is the master key')
  t.throws(() => loadConfig({ CATALOG_STORE: 'postgres', PORT: 'eighty' }), { message: /^PORT must be/ }, 'the first variable in the table is named first')
})

test('an empty value counts as unset; an adapter\'s variables are checked only when it is used', async (t) => {
  t.match(loadConfig({ PORT: '', CATALOG_API_KEYS: '', LOG_LEVEL: '', CATALOG_PROBE_SEEDED: '' }), { port: 3000, apiKeys: [], logLevel: 'info', probeSeeded: false })
  t.throws(() => loadConfig({ CATALOG_STORE: 'mongodb', MONGO_URL: '' }), { message: /^MONGO_URL is required with CATALOG_STORE=mongodb/ }, 'an empty MONGO_URL is a missing one')
  t.equal(loadConfig({ CATALOG_SEARCH: 'meilisearch', MEILI_URL: 'http://meili:7700', MEILI_MASTER_KEY: 'a-master-key-of-32-characters-xx', MEILI_SEARCH_KEY: '' }).search.kind, 'meilisearch')
  t.same(loadConfig({ MONGO_URL: 'not a url', MEILI_URL: 'meili:7700', MEILI_MASTER_KEY: 'short', MEILI_INDEX: 'a b' }).store, { kind: 'sqlite' }, 'SQLite ignores the servers\' variables')
})
