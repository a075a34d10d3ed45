/** /api/categories: the bilingual taxonomy with live service counts. */
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { CATEGORIES } from '../domain/categories.js'
import { NoQuerySchema } from '../domain/service-query.js'

const CategorySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  nameJa: Type.String(),
  description: Type.String(),
  count: Type.Integer({ minimum: 0, description: 'Services in this category' })
})

const categoriesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/api/categories', {
    config: { cache: 'store' },
    schema: {
      querystring: NoQuerySchema,
      tags: ['categories'],
      summary: 'Category taxonomy (English and Japanese names) with service counts',
      response: { 200: Type.Array(CategorySchema) }
    }
  }, async () => {
    const counts = await app.store.countByCategory()
    return CATEGORIES.map((category) => ({ ...category, count: counts.get(category.id) ?? 0 }))
  })
}

export default categoriesRoutes
