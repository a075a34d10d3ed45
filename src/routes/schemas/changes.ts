/** Query and answer schemas of /api/changes (src/routes/changes.ts). */
import { Type } from '@sinclair/typebox'
import { CURSOR_PATTERN, DEFAULT_CHANGES_LIMIT, MAX_CHANGES_LIMIT } from '../../domain/change-feed.js'
import { ServiceSchema } from '../../domain/service.js'
import { patterned } from '../../domain/validation.js'

const Cursor = Type.String({ ...patterned(CURSOR_PATTERN, 'a cursor from this feed (digits), or 0 for the beginning'), maxLength: 15 })

export const ChangesQuerySchema = Type.Object({
  since: Type.Optional({ ...Cursor, description: 'Changes after this cursor (the `next` of the previous page); 0 or absent: from the beginning' }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CHANGES_LIMIT, default: DEFAULT_CHANGES_LIMIT, description: `Changes per page, 1–${MAX_CHANGES_LIMIT}` }))
}, { additionalProperties: false })

const ChangeSchema = Type.Object({
  cursor: Type.String({ description: 'Position of this change in the feed' }),
  op: Type.Union([Type.Literal('upsert'), Type.Literal('delete')], { description: 'upsert: the listing as it is now; delete: it is gone (a tombstone)' }),
  id: Type.String(),
  service: Type.Optional({ ...ServiceSchema, description: 'The listing as GET /api/services/:id shows it (without callSchema and retired); absent for a delete' })
}, { additionalProperties: false })

export const ChangesAnswer = Type.Object({
  changes: Type.Array(ChangeSchema, { description: 'In commit order; each listing at most once per page, as it is now' }),
  next: Type.String({ description: 'The cursor to ask with next (the last change\'s, or `since` when there was none): a follower polls with it' })
}, { additionalProperties: false })
