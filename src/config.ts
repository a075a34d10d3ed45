/**
 * Configuration from the environment, parsed once at start from one schema (ENV below, read
 * by env-schema): every variable's type, bounds, default and the words of its error live
 * there. Every problem names the variable so an operator can fix it without reading code.
 */
import { resolve } from 'node:path'
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { envSchema } from 'env-schema'
import type { ErrorObject } from 'ajv'
import { StringEnum } from './domain/string-enum.js'
import { loadChains, type ChainConfig } from './chain/config.js'
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
  /** Bytes of export snapshot files kept in DATA_DIR (all filters and encodings together). */
  exportCacheBytes: number
  /**
   * How the API follows the store's change feed (response cache validity, /health lag): 0 reads
   * the feed's head on every cached request (a local SQLite file answers in microseconds);
   * N > 0 follows it every N ms, so another process's write is seen within about N ms.
   */
  changeFollowMs: number
  /** Search threads of the embedded engine, each holding the in-memory index; 0 searches on the API thread. */
  searchThreads: number
  /** Seconds between scheduled passes over each source (docs/sources.md); 0: only `npm run catalog -- sources sync`. */
  sourceSyncIntervalS: number
  /** 'embedded': the API process runs the scheduled source passes; 'external': `npm run sources` does. */
  sourceSync: 'embedded' | 'external'
  /** Seconds between passes over each `catalog` source, which follow the other catalog's change feed (a whole read still comes every sourceSyncIntervalS). */
  sourceFollowIntervalS: number
  /** SQLite store: lists (and their pages' JSON) are read on a thread of their own; false reads them on the API thread. */
  listThread: boolean
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
  /** Networks whose USDC settlements the chain watcher follows (CATALOG_CHAINS); empty: nothing is watched. */
  chains: ChainConfig[]
  /** 'embedded': the API process runs the chain watcher; 'external': `npm run watcher` does. */
  watcher: 'embedded' | 'external'
  /** How often the watcher asks each network for its head when it has caught up. */
  chainPollMs: number
  /** Time a client has to send a whole request (headers and body); the connection is closed past it. */
  requestTimeoutMs: number
  /** Longest a request that probes many endpoints (an origin import) waits for its job before answering 202. */
  answerWithinMs: number
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
  /** Failed authentications (missing, invalid or revoked key) per client IP; past it even a good key waits out the window. */
  authFailures: number
  /** Keyword searches (/api/catalog/search, the page's search-as-you-type) per client IP, apart from reads. */
  searches: number
}

export type StoreConfig =
  | { kind: 'sqlite' }
  /** `url` names the database in its path (mongodb://host:27017/catalog?replicaSet=rs0). */
  | { kind: 'mongodb', url: string }

export type SearchConfig =
  | { kind: 'sqlite' }
  /** `apiKey` is an admin key (settings, documents, swaps); `searchKey`, when given, is used for searches only. */
  | { kind: 'meilisearch', url: string, apiKey: string, searchKey: string | undefined, indexUid: string }

/** Meilisearch refuses master keys shorter than this outside development mode. */
export const MIN_MEILI_KEY_LENGTH = 16
export const MIN_API_KEY_LENGTH = 16

// The error of a variable is `NAME must be <description>, got "<value>"`: each description
// completes that sentence. A `writeOnly` variable is a secret, never echoed.

function integer (fallback: number | undefined, min: number, max: number, hint = '') {
  return Type.Integer({ minimum: min, maximum: max, default: fallback, description: `an integer from ${min}${hint} to ${max}` })
}

const flag = StringEnum(['0', '1'], { default: '0', description: '0 or 1' })
const mode = StringEnum(['embedded', 'external'], { default: 'embedded', description: 'embedded or external' })
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
/** A MongoDB connection string whose path names the database (the driver would silently use "test"). */
const MONGO_URL = '^mongodb(\\+srv)?://[^/?#\\s]+/[^/?#\\s]+'

const ENV = Type.Object({
  PORT: integer(3000, 0, 65535),
  HOST: Type.String({ default: '127.0.0.1', description: 'a host name or address' }),
  DATA_DIR: Type.String({ default: './data', pattern: '\\S', description: 'a directory path (not blank)' }),
  CATALOG_API_KEYS: Type.String({
    default: '',
    pattern: `^\\s*(\\S{${MIN_API_KEY_LENGTH},}\\s*)?(,\\s*(\\S{${MIN_API_KEY_LENGTH},}\\s*)?)*$`,
    writeOnly: true,
    description: `comma-separated keys, every key at least ${MIN_API_KEY_LENGTH} characters without spaces`
  }),
  CATALOG_SEED: Type.String({ default: 'demo', description: 'demo, none or a JSON file' }),
  LOG_LEVEL: StringEnum(LOG_LEVELS, { default: 'info', description: `one of ${LOG_LEVELS.join(', ')}` }),
  CATALOG_INDEXER: mode,
  INDEXER_BATCH_SIZE: integer(200, 1, 10_000),
  CATALOG_RESPONSE_CACHE_MB: Type.Number({ minimum: 0, maximum: 65_536, default: 32, description: 'a number of megabytes from 0 (off) to 65536' }),
  CATALOG_EXPORT_CACHE_MB: Type.Number({ minimum: 1, maximum: 1_048_576, default: 512, description: 'a number of megabytes from 1 to 1048576' }),
  CATALOG_SEARCH_THREADS: integer(1, 0, 16, ' (search on the API thread)'),
  CATALOG_SOURCE_SYNC_INTERVAL_S: integer(3600, 0, 30 * 86_400),
  CATALOG_SOURCE_SYNC: mode,
  CATALOG_SOURCE_FOLLOW_INTERVAL_S: integer(2, 1, 86_400),
  CATALOG_LIST_THREAD: StringEnum(['0', '1'], { default: '1', description: '1 (lists on a thread of their own) or 0 (on the API thread)' }),
  CATALOG_RATE_LIMIT: StringEnum(['0', '1'], { default: '1', description: '1 (on) or 0 (off)' }),
  CATALOG_RATE_LIMIT_WINDOW_S: integer(60, 1, 86_400),
  CATALOG_RATE_LIMIT_READS: integer(600, 1, 1_000_000),
  CATALOG_RATE_LIMIT_INTENT: integer(60, 1, 1_000_000),
  CATALOG_RATE_LIMIT_WRITES: integer(60, 1, 1_000_000),
  CATALOG_RATE_LIMIT_AUTH_FAILURES: integer(20, 1, 1_000_000),
  CATALOG_RATE_LIMIT_SEARCH: integer(1200, 1, 1_000_000),
  CATALOG_REQUEST_TIMEOUT_MS: integer(30_000, 100, 600_000),
  CATALOG_ANSWER_WITHIN_MS: integer(25_000, 100, 30_000),
  CATALOG_STORE: StringEnum(['sqlite', 'mongodb'], { default: 'sqlite', description: 'sqlite or mongodb' }),
  MONGO_URL: Type.Optional(Type.String({
    description: 'a mongodb:// or mongodb+srv:// URL naming the database, e.g. mongodb://127.0.0.1:27017/catalog?replicaSet=rs0'
  })),
  CATALOG_SEARCH: StringEnum(['sqlite', 'meilisearch'], { default: 'sqlite', description: 'sqlite or meilisearch' }),
  MEILI_URL: Type.Optional(Type.String({ description: 'an http(s) URL, e.g. http://127.0.0.1:7700' })),
  MEILI_MASTER_KEY: Type.Optional(Type.String({
    writeOnly: true,
    description: `the master or an admin key, at least ${MIN_MEILI_KEY_LENGTH} characters`
  })),
  MEILI_SEARCH_KEY: Type.Optional(Type.String({ writeOnly: true, description: 'a search key' })),
  MEILI_INDEX: Type.String({ default: 'services', description: '1–200 letters, digits, - or _' }),
  // No default here: it depends on the adapters (see loadConfig).
  CATALOG_CHANGE_FOLLOW_MS: Type.Optional(integer(undefined, 0, 10_000, ' (check on every request)')),
  CATALOG_PROBE_INTERVAL_S: integer(3600, 0, 30 * 24 * 3600, ' (off)'),
  CATALOG_PROBE_TIMEOUT_MS: integer(8000, 100, 120_000),
  CATALOG_PROBE_ALLOW_PRIVATE: flag,
  CATALOG_PROBER: mode,
  CATALOG_PROBE_CONCURRENCY: integer(16, 1, 1000),
  CATALOG_PROBE_PER_HOST: integer(2, 1, 100),
  CATALOG_PROBE_SEEDED: flag,
  CATALOG_CHAINS: Type.Optional(Type.String({ pattern: '\\S', description: 'the path of a JSON file of chains (see docs/configuration.md)' })),
  CATALOG_WATCHER: mode,
  CATALOG_CHAIN_POLL_MS: integer(4000, 100, 600_000)
}, {
  // A networked adapter needs its server named; its variables are checked only when it is used.
  allOf: [
    {
      if: { properties: { CATALOG_STORE: { const: 'mongodb' } }, required: ['CATALOG_STORE'] },
      then: { required: ['MONGO_URL'], properties: { MONGO_URL: { type: 'string', pattern: MONGO_URL } } }
    },
    {
      if: { properties: { CATALOG_SEARCH: { const: 'meilisearch' } }, required: ['CATALOG_SEARCH'] },
      then: {
        required: ['MEILI_URL', 'MEILI_MASTER_KEY'],
        properties: {
          MEILI_URL: { type: 'string', pattern: '^https?://[^/?#\\s]+' },
          MEILI_MASTER_KEY: { type: 'string', minLength: MIN_MEILI_KEY_LENGTH },
          MEILI_INDEX: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,200}$' }
        }
      }
    }
  ]
})

type Env = Static<typeof ENV>

/** Every variable the catalog reads (compose and the Dockerfile are checked against it). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(ENV.properties)

/** The one-line message of the first problem (a bad value before a missing one), in the words of the variable's schema. */
function problemOf (errors: ErrorObject[], env: Record<string, string>): string {
  const error = errors.find((e) => e.instancePath !== '') ?? errors.find((e) => e.keyword === 'required') ?? errors[0] as ErrorObject
  if (error.keyword === 'required') {
    const name = (error.params as { missingProperty: string }).missingProperty
    // schemaPath: #/allOf/<i>/then/required; the `if` beside it names the adapter that needs it.
    const rule = (ENV.allOf as Array<{ if: { properties: Record<string, { const: string }> } }>)[Number(error.schemaPath.split('/')[2])]
    const [[variable, { const: value }]] = Object.entries(rule?.if.properties ?? {}) as [[string, { const: string }]]
    return `${name} is required with ${variable}=${value}: ${(ENV.properties[name as keyof Env] as TSchema).description as string}`
  }
  const name = error.instancePath.slice(1)
  const schema = ENV.properties[name as keyof Env] as TSchema | undefined
  if (schema === undefined) return `the environment is invalid: ${error.message ?? error.keyword}`
  if (schema.writeOnly === true) return `${name} must be ${schema.description as string}`
  return `${name} must be ${schema.description as string}, got "${env[name] as string}"`
}

/** The variables ENV knows, as given; an empty value counts as unset (compose passes `${VAR:-}` as ""). */
function given (env: NodeJS.ProcessEnv): Record<string, string> {
  const known: Record<string, string> = {}
  for (const name of CONFIG_VARIABLES) {
    const value = env[name]
    if (value !== undefined && value !== '') known[name] = value
  }
  return known
}

export function loadConfig (env: NodeJS.ProcessEnv = process.env): Config {
  const raw = given(env)
  let parsed: Env
  try {
    parsed = envSchema<Env>({ schema: ENV, data: { ...raw }, env: false })
  } catch (err) {
    throw new ConfigError(problemOf((err as { errors?: ErrorObject[] }).errors ?? [], raw))
  }

  const store: StoreConfig = parsed.CATALOG_STORE === 'mongodb' ? { kind: 'mongodb', url: parsed.MONGO_URL as string } : { kind: 'sqlite' }
  const search: SearchConfig = parsed.CATALOG_SEARCH === 'meilisearch'
    ? { kind: 'meilisearch', url: parsed.MEILI_URL as string, apiKey: parsed.MEILI_MASTER_KEY as string, searchKey: parsed.MEILI_SEARCH_KEY, indexUid: parsed.MEILI_INDEX }
    : { kind: 'sqlite' }
  // Both local: a per-request check costs microseconds and is never stale. A networked store
  // or engine would pay a round trip per request, so it is followed on an interval instead.
  const local = store.kind === 'sqlite' && search.kind === 'sqlite'
  const cacheMb = parsed.CATALOG_RESPONSE_CACHE_MB
  let chains: ChainConfig[] = []
  try {
    if (parsed.CATALOG_CHAINS !== undefined) chains = loadChains(resolve(parsed.CATALOG_CHAINS))
  } catch (err) {
    throw new ConfigError((err as Error).message)
  }

  return {
    port: parsed.PORT,
    host: parsed.HOST,
    dataDir: resolve(parsed.DATA_DIR),
    apiKeys: parsed.CATALOG_API_KEYS.split(',').map((key) => key.trim()).filter((key) => key !== ''),
    seed: parsed.CATALOG_SEED,
    logLevel: parsed.LOG_LEVEL,
    indexer: parsed.CATALOG_INDEXER,
    indexerBatchSize: parsed.INDEXER_BATCH_SIZE,
    responseCacheBytes: Math.floor(cacheMb * 1024 * 1024),
    exportCacheBytes: Math.floor(parsed.CATALOG_EXPORT_CACHE_MB * 1024 * 1024),
    searchThreads: parsed.CATALOG_SEARCH_THREADS,
    listThread: parsed.CATALOG_LIST_THREAD === '1',
    sourceSyncIntervalS: parsed.CATALOG_SOURCE_SYNC_INTERVAL_S,
    sourceSync: parsed.CATALOG_SOURCE_SYNC,
    sourceFollowIntervalS: parsed.CATALOG_SOURCE_FOLLOW_INTERVAL_S,
    changeFollowMs: parsed.CATALOG_CHANGE_FOLLOW_MS ?? (local ? 0 : 100),
    store,
    search,
    rateLimit: {
      enabled: parsed.CATALOG_RATE_LIMIT === '1',
      windowMs: 1000 * parsed.CATALOG_RATE_LIMIT_WINDOW_S,
      reads: parsed.CATALOG_RATE_LIMIT_READS,
      intentSearches: parsed.CATALOG_RATE_LIMIT_INTENT,
      writes: parsed.CATALOG_RATE_LIMIT_WRITES,
      authFailures: parsed.CATALOG_RATE_LIMIT_AUTH_FAILURES,
      searches: parsed.CATALOG_RATE_LIMIT_SEARCH
    },
    requestTimeoutMs: parsed.CATALOG_REQUEST_TIMEOUT_MS,
    answerWithinMs: parsed.CATALOG_ANSWER_WITHIN_MS,
    probeIntervalS: parsed.CATALOG_PROBE_INTERVAL_S,
    probeTimeoutMs: parsed.CATALOG_PROBE_TIMEOUT_MS,
    probeAllowPrivate: parsed.CATALOG_PROBE_ALLOW_PRIVATE === '1',
    prober: parsed.CATALOG_PROBER,
    probeConcurrency: parsed.CATALOG_PROBE_CONCURRENCY,
    probePerHost: parsed.CATALOG_PROBE_PER_HOST,
    probeSeeded: parsed.CATALOG_PROBE_SEEDED === '1',
    chains,
    watcher: parsed.CATALOG_WATCHER,
    chainPollMs: parsed.CATALOG_CHAIN_POLL_MS
  }
}
