/** /api/categories: the bilingual taxonomy with live service counts. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { CATEGORIES } from '../domain/categories.js'
import { NoQuerySchema } from '../domain/service-query.js'
import { CategoriesAnswer } from './schemas/categories.js'

const categoriesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/api/categories', {
    config: { cache: 'store' },
    schema: {
      querystring: NoQuerySchema,
      tags: ['categories'],
      summary: 'Category taxonomy (English and Japanese names) with service counts',
      response: { 200: CategoriesAnswer }
    }
  }, async () => {
    const counts = await app.store.countByCategory()
    return CATEGORIES.map((category) => ({ ...category, count: counts.get(category.id) ?? 0 }))
  })
}

export default categoriesRoutes
