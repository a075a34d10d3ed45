/** Builds the catalog app from its plugins and routes; src/server.ts only listens. */
import Fastify, { type FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Config } from './config.js'
import { validator } from './domain/validation.js'
import authPlugin from './plugins/auth.js'
import errorsPlugin, { clientErrorHandler, frameworkErrors } from './plugins/errors.js'
import httpPlugin from './plugins/http.js'
import rateLimitPlugin from './plugins/rate-limit.js'
import storePlugin from './plugins/store.js'
import responseCachePlugin from './plugins/response-cache.js'
import catalogChangesPlugin from './plugins/catalog-changes.js'
import proberPlugin from './plugins/prober.js'
import searchPlugin from './plugins/search.js'
import swaggerPlugin from './plugins/swagger.js'
import categoriesRoutes from './routes/categories.js'
import discoveryRoutes from './routes/discovery.js'
import exportRoutes from './routes/export.js'
import snapshotsPlugin from './plugins/snapshots.js'
import healthRoutes from './routes/health.js'
import mcpRoutes from './routes/mcp.js'
import pageRoutes from './routes/page.js'
import searchRoutes from './routes/search.js'
import servicesRoutes from './routes/services.js'

/** Largest accepted request body; above it the API answers 413. */
export const BODY_LIMIT = 64 * 1024

/** Longest path parameter routed; Node's 16 KiB header limit bounds URLs anyway. */
export const MAX_PARAM_LENGTH = 8192

export async function buildApp (config: Config): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: ['req.headers.authorization']
    },
    bodyLimit: BODY_LIMIT,
    // No time limit on start: opening and migrating the store, seeding it and indexing what is
    // not indexed yet take as long as the data needs (about a minute for 100k services, more on
    // a busy machine), and Fastify's default of 10 s made such a start fail ("Plugin did not
    // start in time"). Every network wait in it is bounded by its adapter instead (MongoDB's
    // server selection, Meilisearch's request timeout).
    pluginTimeout: 0,
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
  await app.register(httpPlugin)
  await app.register(errorsPlugin)
  await app.register(swaggerPlugin)
  await app.register(storePlugin, { config })
  await app.register(authPlugin, { apiKeys: config.apiKeys })
  await app.register(searchPlugin, { config })
  await app.register(proberPlugin, { config })
  await app.register(catalogChangesPlugin, { followMs: config.changeFollowMs })
  if (config.responseCacheBytes > 0) await app.register(responseCachePlugin, { maxBytes: config.responseCacheBytes })
  await app.register(snapshotsPlugin, { dataDir: config.dataDir, maxBytes: config.exportCacheBytes })
  await app.register(healthRoutes)
  await app.register(categoriesRoutes)
  await app.register(servicesRoutes)
  await app.register(searchRoutes)
  await app.register(exportRoutes)
  await app.register(discoveryRoutes)
  await app.register(mcpRoutes)
  await app.register(pageRoutes)
  return app
}
