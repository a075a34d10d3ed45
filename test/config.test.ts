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

test('probing: defaults and bounds', async (t) => {
  t.match(loadConfig({}), { probeIntervalS: 3600, probeTimeoutMs: 8000, probeAllowPrivate: false, prober: 'embedded', probeConcurrency: 16, probePerHost: 2, probeSeeded: false })
  t.match(loadConfig({ CATALOG_PROBE_INTERVAL_S: '0', CATALOG_PROBE_ALLOW_PRIVATE: '1', CATALOG_PROBER: 'external', CATALOG_PROBE_SEEDED: '1' }), { probeIntervalS: 0, probeAllowPrivate: true, prober: 'external', probeSeeded: true })
  t.throws(() => loadConfig({ CATALOG_PROBE_INTERVAL_S: '-5' }), { message: /CATALOG_PROBE_INTERVAL_S must be an integer from 0 \(off\)/ })
  t.throws(() => loadConfig({ CATALOG_PROBE_TIMEOUT_MS: '10' }), { message: /CATALOG_PROBE_TIMEOUT_MS/ })
  t.throws(() => loadConfig({ CATALOG_PROBE_ALLOW_PRIVATE: 'yes' }), { message: /CATALOG_PROBE_ALLOW_PRIVATE must be 0 or 1/ })
  t.throws(() => loadConfig({ CATALOG_PROBER: 'both' }), { message: /CATALOG_PROBER/ })
  t.throws(() => loadConfig({ CATALOG_PROBE_CONCURRENCY: '0' }), { message: /CATALOG_PROBE_CONCURRENCY/ })
})
