/** Answer schema of /api/sources (src/routes/sources.ts). */
import { Type } from '@sinclair/typebox'
import { SOURCE_KINDS } from '../../domain/sources.js'
import { StringEnum } from '../../domain/string-enum.js'

const IsoDate = Type.String({ format: 'date-time' })
const Count = Type.Integer({ minimum: 0 })

const SyncReportSchema = Type.Object({
  startedAt: IsoDate,
  finishedAt: IsoDate,
  complete: Type.Boolean({ description: 'Every page was read; only a complete pass retires what the source no longer lists' }),
  seen: Count,
  added: Count,
  updated: Count,
  unchanged: Count,
  retired: Count,
  refusedCount: Count,
  refused: Type.Array(Type.Object({ item: Type.String(), reason: Type.String() }, { additionalProperties: false }), { description: 'The first refused items, each with its reason' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why the pass stopped early, naming the source; null for a complete pass' }),
  feed: Type.Optional(Type.Object({
    since: Type.String({ description: 'The cursor this pass followed the other catalog\'s change feed from ("0": a whole read)' }),
    next: Type.String({ description: 'The cursor the next pass follows from' }),
    wholeAt: Type.Union([IsoDate, Type.Null()], { description: 'When the newest whole read that completed began' })
  }, { additionalProperties: false, description: 'A catalog source: where its change feed was read' }))
}, { additionalProperties: false })

export const SourcesAnswer = Type.Array(Type.Object({
  id: Type.String(),
  kind: StringEnum(SOURCE_KINDS),
  url: Type.String(),
  createdAt: IsoDate,
  listings: Type.Integer({ minimum: 0, description: 'Listings whose provenance holds this source now' }),
  lastSync: Type.Union([SyncReportSchema, Type.Null()], { description: 'The newest pass, complete or not; null before the first' }),
  lastCompleteAt: Type.Union([IsoDate, Type.Null()], { description: 'When the newest complete pass started' })
}, { additionalProperties: false }), { description: 'Every source, oldest first' })
