/** /health: 200 while every dependency works, 503 when the store is unusable. */
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const DependencySchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
  message: Type.Optional(Type.String()),
  services: Type.Optional(Type.Integer())
}, { additionalProperties: true })

const HealthSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
  store: DependencySchema
}, { additionalProperties: true })

const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    schema: { tags: ['health'], summary: 'State of each dependency', response: { 200: HealthSchema, 503: HealthSchema } }
  }, async (_request, reply) => {
    try {
      await app.store.ping()
      const services = await app.store.countServices()
      return { status: 'ok' as const, store: { status: 'ok' as const, services } }
    } catch (err) {
      return await reply.code(503).send({ status: 'error', store: { status: 'error', message: (err as Error).message } })
    }
  })
}

export default healthRoutes
