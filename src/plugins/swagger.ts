/** OpenAPI 3.1 generated from the route schemas, served at /openapi.json, with a UI at /docs. */
import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'

export default fp(async function swaggerPlugin (app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'x402 Service Catalog',
        version: '0.1.0',
        description: 'Paid APIs that accept x402 payments: browse, search and register.'
      },
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } }
      }
    },
    // Shared schemas (app.addSchema) keep their $id as their components name (ErrorResponse),
    // rather than the plugin's default def-N.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => typeof json.$id === 'string' ? json.$id : `def-${i}` }
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}, { name: 'swagger' })
