/**
 * app.jobs: the board of jobs for requests that probe many endpoints (src/application/jobs.ts),
 * and `answerWithin`, which answers such a request with the job's result when it ends within
 * CATALOG_ANSWER_WITHIN_MS of the request's start, or else 202 with the job to follow.
 */
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { JobBoard, type JobEnd, type JobView } from '../application/jobs.js'

declare module 'fastify' {
  interface FastifyInstance {
    jobs: {
      board: JobBoard
      /**
       * The job's result when it ends within the bound (counted from the request's start; its
       * error thrown as the request's), else 202 with the job's view and its URL in Location.
       */
      answerWithin: <T>(reply: FastifyReply, job: { id: string, view: JobView<T>, finished: Promise<JobEnd<T>> }) => Promise<T | JobView<T>>
    }
  }
}

/** Where a job is followed. */
export const jobUrl = (id: string): string => `/api/jobs/${id}`

export default fp(async function jobsPlugin (app: FastifyInstance, opts: { answerWithinMs: number }) {
  const board = new JobBoard((err, view) => { app.log.error({ err, job: view.id, kind: view.kind }, 'job failed') })
  app.decorate('jobs', {
    board,
    answerWithin: async <T>(reply: FastifyReply, job: { id: string, view: JobView<T>, finished: Promise<JobEnd<T>> }): Promise<T | JobView<T>> => {
      // reply.elapsedTime: since the request arrived, so the bound covers the work before the job too.
      const waitMs = Math.max(0, opts.answerWithinMs - reply.elapsedTime)
      let timer: NodeJS.Timeout | undefined
      const ended = await Promise.race([job.finished, new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), waitMs) })])
      clearTimeout(timer)
      if (ended !== null) {
        if (ended.view.state === 'failed') throw ended.error
        return ended.view.result as T
      }
      reply.code(202).header('location', jobUrl(job.id))
      return job.view
    }
  })
  app.addHook('preClose', async () => { await board.close() })
}, { name: 'jobs' })
