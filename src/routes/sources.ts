/** GET /api/sources: where the catalog's listings come from, each source with its last pass (docs/sources.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { NoQuerySchema } from '../domain/service-query.js'
import { SourcesAnswer } from './schemas/sources.js'

const sourcesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/api/sources', {
    schema: {
      querystring: NoQuerySchema,
      tags: ['sources'],
      summary: 'The lists the catalog mirrors, with their last pass and how many listings each lists',
      response: { 200: SourcesAnswer }
    }
  }, async () => {
    const sources = await app.store.listSources()
    return await Promise.all(sources.map(async (source) => ({ ...source, listings: (await app.store.servicesOfSource(source.id)).length })))
  })
}

export default sourcesRoutes
