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
  t.equal(config.responseCacheEntries, 2000)
  t.equal(config.searchCacheEntries, 1000)
})

test('values from the environment', async (t) => {
  const config = loadConfig({ PORT: '8080', HOST: '0.0.0.0', DATA_DIR: '/tmp/x', CATALOG_API_KEYS: ' key-aaaaaaaaaaaaaaaa , key-bbbbbbbbbbbbbbbb,', CATALOG_SEED: 'none', LOG_LEVEL: 'warn' })
  t.match(config, { port: 8080, host: '0.0.0.0', dataDir: '/tmp/x', apiKeys: ['key-aaaaaaaaaaaaaaaa', 'key-bbbbbbbbbbbbbbbb'], seed: 'none', logLevel: 'warn' })
})

test('bad values are refused with a message naming the variable', async (t) => {
  t.throws(() => loadConfig({ PORT: 'eighty' }), { code: 'CONFIG_ERROR', message: /PORT/ })
  t.throws(() => loadConfig({ PORT: '70000' }), { message: /PORT/ })
  t.throws(() => loadConfig({ CATALOG_API_KEYS: 'short' }), { message: /CATALOG_API_KEYS/ })
  t.throws(() => loadConfig({ LOG_LEVEL: 'loud' }), { message: /LOG_LEVEL/ })
  t.throws(() => loadConfig({ DATA_DIR: ' ' }), { message: /DATA_DIR/ })
  t.throws(() => loadConfig({ CATALOG_INDEXER: 'sometimes' }), { message: /CATALOG_INDEXER/ })
  t.throws(() => loadConfig({ INDEXER_BATCH_SIZE: '0' }), { message: /INDEXER_BATCH_SIZE/ })
  t.throws(() => loadConfig({ CATALOG_RESPONSE_CACHE: '-1' }), { message: /CATALOG_RESPONSE_CACHE/ })
  t.throws(() => loadConfig({ CATALOG_SEARCH_CACHE: 'lots' }), { message: /CATALOG_SEARCH_CACHE/ })
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
