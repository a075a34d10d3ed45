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
  /** Byte budget of the read-response cache; 0 turns it off. */
  responseCacheBytes: number
  /**
   * How the API follows the store's change feed (response cache validity, /health lag): 0 reads
   * the feed's head on every cached request (a local SQLite file answers in microseconds);
   * N > 0 follows it every N ms, so another process's write is seen within about N ms.
   */
  changeFollowMs: number
  /** Search threads of the embedded engine, each holding the in-memory index; 0 searches on the API thread. */
  searchThreads: number
  /** Which CatalogStore adapter src/adapters.ts opens. */
  store: StoreConfig
  /** Which SearchEngine adapter src/adapters.ts opens. */
  search: SearchConfig
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
  rateLimit: RateLimitConfig
}

/** Requests allowed per window; `enabled: false` (CATALOG_RATE_LIMIT=0) turns every limit off. */
export interface RateLimitConfig {
  enabled: boolean
  windowMs: number
  /** Reads per client IP. */
  reads: number
  /** Intent searches per client IP (kuromoji analysis: the costliest read). */
  intentSearches: number
  /** Writes (POST/PATCH/PUT/DELETE) per authenticated API key owner. */
  writes: number
}

export type StoreConfig =
  | { kind: 'sqlite' }
  /** `url` names the database in its path (mongodb://host:27017/catalog?replicaSet=rs0). */
  | { kind: 'mongodb', url: string }

export type SearchConfig =
  | { kind: 'sqlite' }
  /** `apiKey` is an admin key (settings, documents, swaps); `searchKey`, when given, is used for searches only. */
  | { kind: 'meilisearch', url: string, apiKey: string, searchKey: string | undefined, indexUid: string }

/** A MongoDB connection string whose path names the database (the driver would silently use "test"). */
const MONGO_URL = /^mongodb(\+srv)?:\/\/[^/?#\s]+\/([^/?#\s]+)/

/** Reads CATALOG_STORE and MONGO_URL. */
export function loadStoreConfig (env: NodeJS.ProcessEnv): StoreConfig {
  const kind = env.CATALOG_STORE ?? 'sqlite'
  if (kind === 'sqlite') return { kind }
  if (kind !== 'mongodb') throw new ConfigError(`CATALOG_STORE must be sqlite or mongodb, got "${kind}"`)
  const url = env.MONGO_URL ?? ''
  if (url === '') throw new ConfigError('MONGO_URL is required with CATALOG_STORE=mongodb (e.g. mongodb://127.0.0.1:27017/catalog?replicaSet=rs0)')
  if (!MONGO_URL.test(url)) throw new ConfigError('MONGO_URL must be a mongodb:// or mongodb+srv:// URL naming the database, e.g. mongodb://127.0.0.1:27017/catalog?replicaSet=rs0')
  return { kind, url }
}

/** Meilisearch refuses master keys shorter than this outside development mode. */
export const MIN_MEILI_KEY_LENGTH = 16

/** Reads CATALOG_SEARCH, MEILI_URL, MEILI_MASTER_KEY, MEILI_SEARCH_KEY and MEILI_INDEX. */
export function loadSearchConfig (env: NodeJS.ProcessEnv): SearchConfig {
  const kind = env.CATALOG_SEARCH ?? 'sqlite'
  if (kind === 'sqlite') return { kind }
  if (kind !== 'meilisearch') throw new ConfigError(`CATALOG_SEARCH must be sqlite or meilisearch, got "${kind}"`)
  const url = env.MEILI_URL ?? ''
  if (url === '') throw new ConfigError('MEILI_URL is required with CATALOG_SEARCH=meilisearch (e.g. http://127.0.0.1:7700)')
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new ConfigError(`MEILI_URL must be an http(s) URL, got "${url}"`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(`MEILI_URL must be an http(s) URL, got "${url}"`)
  const apiKey = env.MEILI_MASTER_KEY ?? ''
  if (apiKey.length < MIN_MEILI_KEY_LENGTH) throw new ConfigError(`MEILI_MASTER_KEY is required with CATALOG_SEARCH=meilisearch (the master or an admin key, at least ${MIN_MEILI_KEY_LENGTH} characters)`)
  const searchKey = env.MEILI_SEARCH_KEY === undefined || env.MEILI_SEARCH_KEY === '' ? undefined : env.MEILI_SEARCH_KEY
  const indexUid = env.MEILI_INDEX ?? 'services'
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(indexUid)) throw new ConfigError(`MEILI_INDEX must be 1–200 letters, digits, - or _, got "${indexUid}"`)
  return { kind, url, apiKey, searchKey, indexUid }
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

  // The entry-count variable let many large answers exhaust memory; the budget is now bytes.
  const legacyCache = env.CATALOG_RESPONSE_CACHE
  if (legacyCache !== undefined && legacyCache !== '0') {
    throw new ConfigError(`CATALOG_RESPONSE_CACHE (an entry count) is replaced by CATALOG_RESPONSE_CACHE_MB (a size in megabytes, 0 = off); got CATALOG_RESPONSE_CACHE="${legacyCache}"`)
  }
  const cacheMbText = env.CATALOG_RESPONSE_CACHE_MB ?? (legacyCache === '0' ? '0' : '32')
  const cacheMb = Number(cacheMbText)
  if (!/^\d+(\.\d+)?$/.test(cacheMbText) || cacheMb > 65_536) throw new ConfigError(`CATALOG_RESPONSE_CACHE_MB must be a number of megabytes from 0 (off) to 65536, got "${cacheMbText}"`)
  const responseCacheBytes = Math.floor(cacheMb * 1024 * 1024)

  // The embedded engine keeps no result cache any more: the response cache is the one cache.
  const legacySearchCache = env.CATALOG_SEARCH_CACHE
  if (legacySearchCache !== undefined && legacySearchCache !== '0') {
    throw new ConfigError(`CATALOG_SEARCH_CACHE is gone: searches are computed in a search thread and cached only by the response cache (CATALOG_RESPONSE_CACHE_MB); got CATALOG_SEARCH_CACHE="${legacySearchCache}"`)
  }
  const searchThreads = integer(env, 'CATALOG_SEARCH_THREADS', 1, 0, 16, ' (search on the API thread)')

  const rateLimitText = env.CATALOG_RATE_LIMIT ?? '1'
  if (rateLimitText !== '0' && rateLimitText !== '1') throw new ConfigError(`CATALOG_RATE_LIMIT must be 1 (on) or 0 (off), got "${rateLimitText}"`)
  const rateLimit: RateLimitConfig = {
    enabled: rateLimitText === '1',
    windowMs: 1000 * integer(env, 'CATALOG_RATE_LIMIT_WINDOW_S', 60, 1, 86_400),
    reads: integer(env, 'CATALOG_RATE_LIMIT_READS', 600, 1, 1_000_000),
    intentSearches: integer(env, 'CATALOG_RATE_LIMIT_INTENT', 60, 1, 1_000_000),
    writes: integer(env, 'CATALOG_RATE_LIMIT_WRITES', 60, 1, 1_000_000)
  }
  const prober = env.CATALOG_PROBER ?? 'embedded'
  if (prober !== 'embedded' && prober !== 'external') throw new ConfigError(`CATALOG_PROBER must be embedded or external, got "${prober}"`)

  const store = loadStoreConfig(env)
  const search = loadSearchConfig(env)
  // Both local: a per-request check costs microseconds and is never stale. A networked store
  // or engine would pay a round trip per request, so it is followed on an interval instead.
  const local = store.kind === 'sqlite' && search.kind === 'sqlite'
  const changeFollowMs = integer(env, 'CATALOG_CHANGE_FOLLOW_MS', local ? 0 : 100, 0, 10_000, ' (check on every request)')

  return {
    port,
    host: env.HOST ?? '127.0.0.1',
    dataDir: resolve(dataDir),
    apiKeys,
    seed: env.CATALOG_SEED ?? 'demo',
    logLevel,
    indexer,
    indexerBatchSize,
    responseCacheBytes,
    searchThreads,
    changeFollowMs,
    store,
    search,
    rateLimit,
    probeIntervalS: integer(env, 'CATALOG_PROBE_INTERVAL_S', 3600, 0, 30 * 24 * 3600, ' (off)'),
    probeTimeoutMs: integer(env, 'CATALOG_PROBE_TIMEOUT_MS', 8000, 100, 120_000),
    probeAllowPrivate: flag(env, 'CATALOG_PROBE_ALLOW_PRIVATE'),
    prober,
    probeConcurrency: integer(env, 'CATALOG_PROBE_CONCURRENCY', 16, 1, 1000),
    probePerHost: integer(env, 'CATALOG_PROBE_PER_HOST', 2, 1, 100),
    probeSeeded: flag(env, 'CATALOG_PROBE_SEEDED')
  }
}
