import { StringEnum } from './string-enum.js'

/** HTTP methods a paid endpoint can be called (and probed) with. */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
export type HttpMethod = typeof HTTP_METHODS[number]
export const HttpMethodEnum = StringEnum(HTTP_METHODS, { description: 'HTTP method a paying client calls the endpoint with; the catalog probes with it' })
