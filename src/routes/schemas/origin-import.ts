/** Response schemas of an origin import: its answer, and the job it runs as past the answer bound. */
import { Type } from '@sinclair/typebox'
import { HttpMethodEnum } from '../../domain/http-method.js'
import { REMOVED_FROM_DOCUMENT } from '../../domain/origin-document.js'
import { ServiceStatusEnum } from '../../domain/service.js'
import { StringEnum } from '../../domain/string-enum.js'
import { JOB_KINDS } from '../../application/jobs.js'
import { ErrorSchema } from '../../plugins/errors.js'

const ImportRowSchema = Type.Object({
  resource: Type.String({ description: 'The document\'s entry as written' }),
  result: StringEnum(['registered', 'updated', 'unchanged', 'refused'], { description: 'registered: a new listing of this key; updated/unchanged: this key\'s listing, re-read; refused: not listed (reason says why)' }),
  method: Type.Optional(HttpMethodEnum),
  endpoint: Type.Optional(Type.String()),
  serviceId: Type.Optional(Type.String()),
  status: Type.Optional(ServiceStatusEnum),
  reason: Type.String({ description: 'Why it was refused ("answered 200, not 402", "timeout after 8 s", …), or the probe\'s reason' })
}, { additionalProperties: false })

export const ImportAnswer = Type.Object({
  origin: Type.String(),
  document: Type.String({ description: 'The URL read' }),
  rows: Type.Array(ImportRowSchema, { description: 'One per entry of the document, in its order' }),
  inactive: Type.Array(Type.Object({
    serviceId: Type.String(),
    endpoint: Type.String(),
    method: HttpMethodEnum,
    reason: Type.String({ examples: [REMOVED_FROM_DOCUMENT] })
  }, { additionalProperties: false }), { description: 'This key\'s listings an earlier import of the document made that it no longer lists: now inactive' })
}, { additionalProperties: false })

/** A job, as a request past its answer bound returns it (202) and GET /api/jobs/{id} shows it. */
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
