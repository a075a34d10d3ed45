/**
 * One JSON error shape for every failure: {statusCode, code, error, message} plus `field`,
 * the (first) input field at fault; a schema violation's message lists every field's problem,
 * in plain words (src/domain/validation.ts). Client mistakes are 4xx; a 5xx means the catalog
 * itself failed and never echoes internals.
 */
import fp from 'fastify-plugin'
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { CatalogError } from '../errors.js'
import { describeIssues, type SchemaIssue } from '../domain/validation.js'
import { MAX_URL_LENGTH } from './http.js'

/** The error shape, registered once (app.addSchema) so OpenAPI lists it once, under components. */
export const ErrorResponseSchema = Type.Object({
  statusCode: Type.Integer(),
  code: Type.String({ description: 'Stable machine-readable code, e.g. VALIDATION_ERROR' }),
  error: Type.String({ description: 'HTTP status text' }),
  message: Type.String(),
  field: Type.Optional(Type.String({ description: 'The input field at fault, when there is one (the first, when the message names several)' }))
}, { $id: 'ErrorResponse', description: 'Every failure: statusCode, code, error and message, plus field when one input field is at fault' })

/** What routes declare for their error responses: a reference to ErrorResponse. */
export const ErrorSchema = Type.Unsafe<Static<typeof ErrorResponseSchema>>({ $ref: 'ErrorResponse#' })

export default fp(async function errorsPlugin (app: FastifyInstance) {
  app.addSchema(ErrorResponseSchema)
  app.setErrorHandler(async (error: FastifyError & { field?: string }, request, reply) => {
    if (error.validation !== undefined) {
      const { field, message } = describeIssues(error.validation as SchemaIssue[], error.validationContext ?? 'request')
      return await reply.code(400).send({
        statusCode: 400,
        code: 'VALIDATION_ERROR',
        error: 'Bad Request',
        message,
        ...(field === '' ? {} : { field })
      })
    }
    const statusCode = error instanceof CatalogError || (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
      ? error.statusCode ?? 500
      : 500
    if (statusCode >= 500) request.log.error({ err: error }, 'request failed')
    if (error instanceof CatalogError && error.code === 'UNAUTHORIZED') {
      void reply.header('www-authenticate', 'Bearer realm="x402-catalog"')
    }
    // Only the catalog's own codes reach clients: Fastify's and libraries' (FST_ERR_…) are
    // implementation names that change between versions.
    const [code, message] = error instanceof CatalogError
      ? [error.code, error.message]
      : statusCode >= 500 ? ['INTERNAL_ERROR', 'Internal Server Error'] : foreignError(error, statusCode, request, app.initialConfig.bodyLimit)
    return await reply.code(statusCode).send({
      statusCode,
      code,
      error: STATUS_CODES[statusCode] ?? 'Error',
      message,
      ...(error.field === undefined ? {} : { field: error.field })
    })
  })

  // Unknown URLs count against the read limit too, or probing for routes would be free.
  app.setNotFoundHandler(app.hasDecorator('rateLimit') ? { preHandler: app.rateLimit() } : {}, async (request, reply) => {
    return await reply.code(404).send({
      statusCode: 404,
      code: 'NOT_FOUND',
      error: 'Not Found',
      message: `Route ${request.method} ${request.url.split('?')[0] ?? ''} not found`
    })
  })
}, { name: 'errors' })

/** Codes by status for client errors the catalog did not raise itself. */
const STATUS_CODE_NAMES: Record<number, string> = {
  400: 'BAD_REQUEST',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  408: 'REQUEST_TIMEOUT',
  413: 'BODY_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED'
}

/** The catalog's code and a plain message for a 4xx raised by Fastify or a library. */
function foreignError (error: FastifyError, statusCode: number, request: FastifyRequest, bodyLimit: number | undefined): [string, string] {
  const code = STATUS_CODE_NAMES[statusCode] ?? 'BAD_REQUEST'
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': {
      const type = request.headers['content-type']
      return [code, `the body must be JSON (Content-Type: application/json), got ${type === undefined ? 'no Content-Type' : type.split(';')[0]?.trim() ?? type}`]
    }
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return [code, `the body is larger than ${bodyLimit === undefined ? 'the limit' : `${bodyLimit / 1024} KiB`}`]
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return [code, 'the body does not match its Content-Length']
    default:
      return [code, error.message]
  }
}

/**
 * Errors Fastify's router raises before any route or hook runs (Fastify's
 * `frameworkErrors` option), in the usual shape. Route parameters are service ids, so a
 * parameter longer than any id is "no such service": 404, as for any other unknown id.
 */
export function frameworkErrors (error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const [statusCode, code, message] = error.code === 'FST_ERR_MAX_PARAM_LENGTH'
    ? [404, 'NOT_FOUND', 'not found: a path parameter is longer than any id']
    : error.code === 'FST_ERR_BAD_URL'
      ? [400, 'BAD_URL', 'the URL path is not validly percent-encoded']
      : [500, 'INTERNAL_ERROR', 'Internal Server Error']
  void reply.code(statusCode).header('x-content-type-options', 'nosniff')
    .send({ statusCode, code, error: STATUS_CODES[statusCode], message })
}

/** Request line (method, target, version) of a raw packet that starts one, e.g. "GET /x HTTP/1.1". */
const REQUEST_LINE_START = /^[A-Z]+ \//

// eslint-disable-next-line no-control-regex -- ASCII is exactly what is asked about
const NON_ASCII = /[^\x00-\x7f]/

/**
 * Node's parser refuses a URL holding raw non-ASCII bytes (curl sends `?query=天気` as it is
 * typed). When the refused packet's request line holds some, say the URL must be
 * percent-encoded and show the curl that does it; null otherwise.
 */
export function unencodedUrl (packet: Buffer): string | null {
  const lineEnd = packet.indexOf('\r\n')
  const line = packet.subarray(0, lineEnd === -1 ? Math.min(packet.length, MAX_URL_LENGTH) : lineEnd).toString('utf8')
  if (!REQUEST_LINE_START.test(line) || !NON_ASCII.test(line)) return null
  const target = line.slice(line.indexOf(' ') + 1).replace(/ HTTP\/[\d.]+$/, '')
  const queryAt = target.indexOf('?')
  const path = queryAt === -1 ? target : target.slice(0, queryAt)
  const parameter = queryAt === -1 ? undefined : target.slice(queryAt + 1).split('&').find((part) => NON_ASCII.test(part))
  const base = 'the URL must be percent-encoded: it holds characters outside ASCII'
  if (parameter === undefined || parameter.length > 200) return `${base} (encode them as UTF-8 %XX escapes, e.g. with encodeURIComponent)`
  const quoted = `'${parameter.replaceAll("'", "'\\''")}'`
  return `${base}; let the client encode the query, e.g. curl -G --data-urlencode ${quoted} 'http://<catalog>${path.slice(0, 200)}'`
}

/**
 * Errors Node's HTTP parser answers before Fastify sees a request (a header section over
 * the server's limit, malformed HTTP, timeouts), in the same JSON shape as every other
 * error. An over-long request line is 414 (URI Too Long), other oversized headers 431.
 * Fastify's `clientErrorHandler` option; `this` is the Fastify instance.
 */
export function clientErrorHandler (this: FastifyInstance, err: ConnectionError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  let statusCode = 400
  let code = 'BAD_REQUEST'
  let message = 'the request is not valid HTTP'
  // Node sets rawPacket to the Buffer being parsed (Fastify's type says otherwise).
  const raw: unknown = err.rawPacket
  const packet = Buffer.isBuffer(raw) ? raw.subarray(0, 64 * 1024) : Buffer.alloc(0)
  const unencoded = unencodedUrl(packet)
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    [statusCode, code, message] = [408, 'REQUEST_TIMEOUT', 'the request was not received in time']
  } else if (err.code === 'HPE_HEADER_OVERFLOW') {
    // The parser counts the request line as part of the header section; when the packet
    // that overflowed starts a request whose first line never ends, the URL is at fault.
    const text = packet.toString('latin1')
    const lineEnd = text.indexOf('\r\n')
    if (REQUEST_LINE_START.test(text) && (lineEnd === -1 || lineEnd > MAX_URL_LENGTH)) {
      [statusCode, code, message] = [414, 'URI_TOO_LONG', `the request URL is longer than ${MAX_URL_LENGTH} characters`]
    } else {
      [statusCode, code, message] = [431, 'HEADERS_TOO_LARGE', 'the request headers are larger than the server accepts']
    }
  } else if (unencoded !== null) {
    [statusCode, code, message] = [400, 'BAD_URL', unencoded]
  }
  this.log.debug({ err }, 'client error')
  if (socket.writable) {
    const body = JSON.stringify({ statusCode, code, error: STATUS_CODES[statusCode], message })
    socket.write(`HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode] ?? ''}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nx-content-type-options: nosniff\r\nconnection: close\r\n\r\n${body}`)
  }
  socket.destroy(err)
}
