/**
 * Configuration from the environment, validated once at start. Every problem names
 * the variable so an operator can fix it without reading code.
 */
import { resolve } from 'node:path'
import { ConfigError } from './errors.js'

export interface Config {
  port: number
  host: string
  dataDir: string
  /** Bootstrap API keys (raw); stored nowhere, compared by hash. */
  apiKeys: string[]
  /** 'demo' loads fixtures/services.json into a fresh store, 'none' starts empty, anything else is a JSON file path. */
  seed: string
  logLevel: string
  /** 'embedded': the API process runs the indexer; 'external': `npm run indexer -- watch` does. */
  indexer: 'embedded' | 'external'
  /** Changes per indexer batch. */
  indexerBatchSize: number
  /** Entries in the read-response cache; 0 turns it off. */
  responseCacheEntries: number
  /** Recent search results kept while the index is unchanged; 0 turns it off. */
  searchCacheEntries: number
  /** Seconds between scheduled probes of a service (±10 % jitter); 0 turns scheduled probing off. */
  probeIntervalS: number
  /** Budget of one probe: connect, headers and body together. */
  probeTimeoutMs: number
  /** Lets probes reach loopback, private and other non-public addresses (tests, private deployments). */
  probeAllowPrivate: boolean
  /** 'embedded': the API process runs the probe scheduler; 'external': `npm run prober` does. */
  prober: 'embedded' | 'external'
  /** Probes in flight at once, and at most this many per host. */
  probeConcurrency: number
  probePerHost: number
  /** Also probe seeded services (no owner) on schedule; off for the demo, whose hosts are fictional. */
  probeSeeded: boolean
}

function integer (env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number, hint = ''): number {
  const text = env[name] ?? String(fallback)
  const value = Number(text)
  if (!/^\d+$/.test(text) || value < min || value > max) throw new ConfigError(`${name} must be an integer from ${min}${hint} to ${max}, got "${text}"`)
  return value
}

function flag (env: NodeJS.ProcessEnv, name: string): boolean {
  const text = env[name] ?? '0'
  if (text !== '0' && text !== '1') throw new ConfigError(`${name} must be 0 or 1, got "${text}"`)
  return text === '1'
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']
export const MIN_API_KEY_LENGTH = 16

export function loadConfig (env: NodeJS.ProcessEnv = process.env): Config {
  const portText = env.PORT ?? '3000'
  const port = Number(portText)
  if (!/^\d+$/.test(portText) || port > 65535) throw new ConfigError(`PORT must be an integer from 0 to 65535, got "${portText}"`)

  const apiKeys = (env.CATALOG_API_KEYS ?? '').split(',').map((key) => key.trim()).filter((key) => key !== '')
  for (const key of apiKeys) {
    if (key.length < MIN_API_KEY_LENGTH || /\s/.test(key)) {
      throw new ConfigError(`CATALOG_API_KEYS: every key must be at least ${MIN_API_KEY_LENGTH} characters without spaces`)
    }
  }

  const logLevel = env.LOG_LEVEL ?? 'info'
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`)

  const dataDir = env.DATA_DIR ?? './data'
  if (dataDir.trim() === '') throw new ConfigError('DATA_DIR must not be empty')

  const indexer = env.CATALOG_INDEXER ?? 'embedded'
  if (indexer !== 'embedded' && indexer !== 'external') throw new ConfigError(`CATALOG_INDEXER must be embedded or external, got "${indexer}"`)
  const batchText = env.INDEXER_BATCH_SIZE ?? '200'
  const indexerBatchSize = Number(batchText)
  if (!/^\d+$/.test(batchText) || indexerBatchSize < 1 || indexerBatchSize > 10_000) throw new ConfigError(`INDEXER_BATCH_SIZE must be an integer from 1 to 10000, got "${batchText}"`)

  const cacheText = env.CATALOG_RESPONSE_CACHE ?? '2000'
  const responseCacheEntries = Number(cacheText)
  if (!/^\d+$/.test(cacheText) || responseCacheEntries > 1_000_000) throw new ConfigError(`CATALOG_RESPONSE_CACHE must be an integer from 0 (off) to 1000000, got "${cacheText}"`)

  const searchCacheText = env.CATALOG_SEARCH_CACHE ?? '1000'
  const searchCacheEntries = Number(searchCacheText)
  if (!/^\d+$/.test(searchCacheText) || searchCacheEntries > 1_000_000) throw new ConfigError(`CATALOG_SEARCH_CACHE must be an integer from 0 (off) to 1000000, got "${searchCacheText}"`)

  const prober = env.CATALOG_PROBER ?? 'embedded'
  if (prober !== 'embedded' && prober !== 'external') throw new ConfigError(`CATALOG_PROBER must be embedded or external, got "${prober}"`)

  return {
    port,
    host: env.HOST ?? '127.0.0.1',
    dataDir: resolve(dataDir),
    apiKeys,
    seed: env.CATALOG_SEED ?? 'demo',
    logLevel,
    indexer,
    indexerBatchSize,
    responseCacheEntries,
    searchCacheEntries,
    probeIntervalS: integer(env, 'CATALOG_PROBE_INTERVAL_S', 3600, 0, 30 * 24 * 3600, ' (off)'),
    probeTimeoutMs: integer(env, 'CATALOG_PROBE_TIMEOUT_MS', 8000, 100, 120_000),
    probeAllowPrivate: flag(env, 'CATALOG_PROBE_ALLOW_PRIVATE'),
    prober,
    probeConcurrency: integer(env, 'CATALOG_PROBE_CONCURRENCY', 16, 1, 1000),
    probePerHost: integer(env, 'CATALOG_PROBE_PER_HOST', 2, 1, 100),
    probeSeeded: flag(env, 'CATALOG_PROBE_SEEDED')
  }
}
