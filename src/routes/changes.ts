/**
 * GET /api/changes: the catalog's change feed for followers (other catalogs, aggregators): every
 * listing added, changed or deleted since a cursor, in commit order, so a follower applies
 * pages instead of downloading the export again (the MCP registry's cursor model). From 0 the
 * feed holds every live listing once, so a new follower needs nothing else.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { DEFAULT_CHANGES_LIMIT, cursorOf, seqOfCursor, toPublicChange } from '../domain/change-feed.js'
import { CursorGoneError } from '../errors.js'
import { ErrorSchema } from '../plugins/errors.js'
import { ChangesAnswer, ChangesQuerySchema } from './schemas/changes.js'

const changesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/api/changes', {
    config: { cache: 'store' },
    schema: {
      tags: ['changes'],
      summary: 'Listings added, changed or deleted since a cursor, in commit order (follow with `next`)',
      querystring: ChangesQuerySchema,
      response: { 200: ChangesAnswer, 400: ErrorSchema, 410: ErrorSchema }
    }
  }, async (request) => {
    const since = request.query.since ?? '0'
    const afterSeq = seqOfCursor(since)
    const [changes, latest] = await Promise.all([app.store.changesSince(afterSeq, request.query.limit ?? DEFAULT_CHANGES_LIMIT), app.store.latestSeq()])
    // Read after the page: a change committed between the two reads only raises `latest`.
    if (afterSeq > latest) throw new CursorGoneError(`cursor ${since} is ahead of this catalog's newest change (${cursorOf(latest)}): it is another catalog's, or this one was reset; follow again from since=0 (the feed holds every listing)`)
    const last = changes.at(-1)
    return { changes: changes.map(toPublicChange), next: last === undefined ? since : cursorOf(last.seq) }
  })
}

export default changesRoutes
