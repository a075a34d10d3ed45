/**
 * app.inferCategory: a listing's category from its text, for registrations that give none
 * (src/search/category-inference.ts), built once on the search plugin's tokenizer.
 */
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { CategoryInference } from '../search/category-inference.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The category id a listing's text fits best (`other` when none does). */
    inferCategory: (text: string) => string
  }
}

export default fp(async function categoryInferencePlugin (app: FastifyInstance) {
  const inference = new CategoryInference(app.searchIndex.tokenizer)
  app.decorate('inferCategory', (text: string) => inference.infer(text))
}, { name: 'category-inference', dependencies: ['search'] })
