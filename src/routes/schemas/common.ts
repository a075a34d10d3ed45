/** Schemas more than one route file takes: search text, a page of a list, a URL in a body, an answer without a body. */
import { Type } from '@sinclair/typebox'
import { ListQueryProperties } from '../../domain/service-query.js'
import { MAX_QUERY_LENGTH } from '../../search/service-search.js'

export const QueryText = Type.String({ minLength: 1, maxLength: MAX_QUERY_LENGTH, description: `Search text, at most ${MAX_QUERY_LENGTH} characters` })

/** A page of a list, as the list endpoint takes it: limit and offset. */
export const PageProperties = { limit: ListQueryProperties.limit, offset: ListQueryProperties.offset }

export const PageQuerySchema = Type.Object(PageProperties, { additionalProperties: false })

/** A URL a request body names (an origin, an endpoint), described for its field. */
export function UrlText (description: string): ReturnType<typeof Type.String> {
  return Type.String({ minLength: 1, maxLength: 2048, description })
}

/** A 204 or 304: no body. */
export const NoBody = Type.Null()
