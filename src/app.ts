/** Builds the catalog app from its plugins and routes; src/server.ts only listens. */
import Fastify, { type FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Config } from './config.js'
import { validator } from './domain/validation.js'
import { terminalDestination, terminalResponse } from './lib/terminal-log.js'
import authPlugin from './plugins/auth.js'
import errorsPlugin, { clientErrorHandler, frameworkErrors } from './plugins/errors.js'
import httpPlugin from './plugins/http.js'
import rateLimitPlugin from './plugins/rate-limit.js'
import storePlugin from './plugins/store.js'
import responseCachePlugin from './plugins/response-cache.js'
import catalogChangesPlugin from './plugins/catalog-changes.js'
import chainNetworksPlugin from './plugins/chain-networks.js'
import proberPlugin from './plugins/prober.js'
import chainWatcherPlugin from './plugins/chain-watcher.js'
import sourceSyncPlugin from './plugins/source-sync.js'
import requestsInFlightPlugin from './plugins/requests-in-flight.js'
import { chainNetworks } from './chain/config.js'
import { registerNetworks } from './domain/networks.js'
import categoryInferencePlugin from './plugins/category-inference.js'
import originsRoutes from './routes/origins.js'
import jobsRoutes from './routes/jobs.js'
import jobsPlugin from './plugins/jobs.js'
import searchPlugin from './plugins/search.js'
import swaggerPlugin from './plugins/swagger.js'
import categoriesRoutes from './routes/categories.js'
import discoveryRoutes from './routes/discovery.js'
import exportRoutes from './routes/export.js'
import changesRoutes from './routes/changes.js'
import sourcesRoutes from './routes/sources.js'
import snapshotsPlugin from './plugins/snapshots.js'
import healthRoutes from './routes/health.js'
import mcpRoutes from './routes/mcp.js'
import pageRoutes from './routes/page.js'
import searchRoutes from './routes/search.js'
import servicesRoutes from './routes/services.js'
import claimsRoutes from './routes/claims.js'

/** Largest accepted request body; above it the API answers 413. */
export const BODY_LIMIT = 64 * 1024

/** Longest path parameter routed; Node's 16 KiB header limit bounds URLs anyway. */
export const MAX_PARAM_LENGTH = 8192

/**
 * An idle keep-alive connection is closed after this. Longer than the 60 s idle timeout of
 * common load balancers (Fastify's default, kept), so a proxy never reuses a connection the
 * catalog is closing.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 72_000

/** A connection on which nothing moves for this long (a client that stopped reading an answer) is closed. */
export const CONNECTION_IDLE_TIMEOUT_MS = 120_000

/**
 * How often Node looks for requests past their time. It checks on an interval (30 s by
 * default), so a request is cut at most this much after CATALOG_REQUEST_TIMEOUT_MS.
 */
export const TIMEOUT_CHECK_INTERVAL_MS = 1000

/** What the app is built with beside its configuration. */
export interface AppOptions {
  /**
   * CAIP-2 networks whose x402 settlements are watched: their services' usage figures say
   * `revenueSource: "chain"`. The networks of CATALOG_CHAINS unless given.
   */
  chainNetworks?: Iterable<string>
  /**
   * Logs for a person at a terminal (src/lib/terminal-log.ts): text lines, one per request.
   * Off, the logs are pino's JSON with Fastify's request logging, as tools and containers read them.
   */
  terminal?: boolean
}

export async function buildApp (config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  // Watched networks the built-in table lacks (a local chain) become registrable.
  registerNetworks(chainNetworks(config.chains))
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: ['req.headers.authorization'],
      // On a terminal, text; the response's line carries its request, so it alone is printed.
      ...(options.terminal === true ? { stream: terminalDestination(), serializers: { res: terminalResponse } } : {})
    },
    bodyLimit: BODY_LIMIT,
    // No time limit on start: opening the store, seeding it and indexing what is
    // not indexed yet take as long as the data needs (about a minute for 100k services, more on
    // a busy machine), and Fastify's default of 10 s made such a start fail ("Plugin did not
    // start in time"). Every network wait in it is bounded by its adapter instead (MongoDB's
    // server selection, Meilisearch's request timeout).
    pluginTimeout: 0,
    // Every request bounded in time: headers and body must arrive within requestTimeoutMs, or
    // the client gets a 408 and the connection closes (Fastify's defaults are 0: a client
    // dripping a byte every few seconds held its connection forever). Node's headersTimeout
    // (60 s) would override a shorter request timeout, so both are set, and the check interval.
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    connectionTimeout: CONNECTION_IDLE_TIMEOUT_MS,
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_INTERVAL_MS, config.requestTimeoutMs),
      // Node would answer a missing Host with a bare 400; src/plugins/http.ts answers it in JSON.
      requireHostHeader: false
    },
    clientErrorHandler,
    frameworkErrors,
    // A long id is still just an id no service has: 404, not find-my-way's 414 above 100 characters.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH }
  }).withTypeProvider<TypeBoxTypeProvider>()

  // Query strings and params arrive as text and need coercion ("20" → 20); JSON bodies
  // must not be coerced, or a float price 0.1 would quietly become the string "0.1".
  const coercing = validator(true)
  const strict = validator(false)
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema))

  // First: the rate limiter attaches to every route registered after it.
  await app.register(rateLimitPlugin, { config: config.rateLimit })
  await app.register(requestsInFlightPlugin)
  await app.register(httpPlugin)
  await app.register(errorsPlugin)
  await app.register(swaggerPlugin)
  await app.register(storePlugin, { config })
  const { enabled, authFailures, windowMs } = config.rateLimit
  await app.register(authPlugin, { apiKeys: config.apiKeys, ...(enabled ? { failureLimit: { max: authFailures, windowMs } } : {}) })
  await app.register(chainNetworksPlugin, { networks: options.chainNetworks ?? config.chains.map((chain) => chain.network) })
  await app.register(searchPlugin, { config })
  await app.register(categoryInferencePlugin)
  await app.register(proberPlugin, { config })
  await app.register(chainWatcherPlugin, { config })
  await app.register(sourceSyncPlugin, { config })
  await app.register(jobsPlugin, { answerWithinMs: config.answerWithinMs })
  await app.register(catalogChangesPlugin, { followMs: config.changeFollowMs })
  if (config.responseCacheBytes > 0) await app.register(responseCachePlugin, { maxBytes: config.responseCacheBytes })
  await app.register(snapshotsPlugin, { dataDir: config.dataDir, maxBytes: config.exportCacheBytes })
  await app.register(healthRoutes)
  await app.register(categoriesRoutes)
  await app.register(servicesRoutes)
  await app.register(claimsRoutes)
  await app.register(originsRoutes)
  await app.register(jobsRoutes)
  await app.register(searchRoutes)
  await app.register(exportRoutes)
  await app.register(changesRoutes)
  await app.register(sourcesRoutes)
  await app.register(discoveryRoutes)
  await app.register(mcpRoutes)
  await app.register(pageRoutes)
  return app
}
