/** A job (src/routes/jobs.ts), as a request past its answer bound returns it (202) and GET /api/jobs/{id} shows it. */
import { Type, type Static } from '@sinclair/typebox'
import { JOB_KINDS } from '../../application/jobs.js'
import { StringEnum } from '../../domain/string-enum.js'
import { ErrorSchema } from '../../plugins/errors.js'
import { ImportAnswer } from './origins.js'

export const JobParams = Type.Object({ id: Type.String({ maxLength: 64 }) })

export const JobSchema = Type.Object({
  id: Type.String(),
  kind: StringEnum(JOB_KINDS, { description: 'What the job does; `result` has that request\'s answer' }),
  state: StringEnum(['running', 'done', 'failed']),
  startedAt: Type.String({ format: 'date-time' }),
  finishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  progress: Type.Object({
    done: Type.Integer({ description: 'Units done (an import\'s resources probed)' }),
    total: Type.Integer()
  }, { additionalProperties: false }),
  result: Type.Union([ImportAnswer, Type.Null()], { description: 'The answer the request would have given, once the job is done' }),
  error: Type.Union([ErrorSchema, Type.Null()], { description: 'Why the job failed: the error answer the request would have had' })
}, { additionalProperties: false })

export type Job = Static<typeof JobSchema>
