/** /api/jobs/{id}: follow a request that answered 202 because its work (probing many endpoints) outlasted the answer bound. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { NotFoundError } from '../errors.js'
import { ErrorSchema } from '../plugins/errors.js'
import { JobParams, JobSchema, type Job } from './schemas/jobs.js'

const jobsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/api/jobs/:id', {
    onRequest: app.authenticate,
    schema: {
      tags: ['services'],
      summary: 'A job a request started: its progress, then its result (Bearer API key: the key that started it)',
      description: 'Jobs live in the API process that runs them and are kept 15 minutes after they end; another key\'s job, an unknown one and a forgotten one are all 404.',
      security: [{ bearerAuth: [] }],
      params: JobParams,
      response: { 200: JobSchema, 401: ErrorSchema, 404: ErrorSchema }
    }
  }, async (request) => {
    const job = app.jobs.board.get(request.params.id, request.ownerId)
    if (job === null) throw new NotFoundError(`job ${request.params.id} not found (jobs are kept 15 minutes after they end)`)
    return job as Job
  })
}

export default jobsRoutes
