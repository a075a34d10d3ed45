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
  /** Search threads, each holding the in-memory search index; 0 searches on the API thread. */
  searchThreads: number
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

  const threadsText = env.CATALOG_SEARCH_THREADS ?? '1'
  const searchThreads = Number(threadsText)
  if (!/^\d+$/.test(threadsText) || searchThreads > 16) throw new ConfigError(`CATALOG_SEARCH_THREADS must be an integer from 0 (search on the API thread) to 16, got "${threadsText}"`)

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
    searchThreads
  }
}
