/** The answer of /api/categories (src/routes/categories.ts). */
import { Type } from '@sinclair/typebox'

const CategorySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  nameJa: Type.String(),
  description: Type.String(),
  count: Type.Integer({ minimum: 0, description: 'Services in this category' })
})

export const CategoriesAnswer = Type.Array(CategorySchema)
