/**
 * One JSON error shape for every failure: {statusCode, code, error, message} plus
 * `field` when a single input field is at fault. Client mistakes are 4xx; a 5xx means
 * the catalog itself failed and never echoes internals.
 */
import fp from 'fastify-plugin'
import { STATUS_CODES } from 'node:http'
import type { FastifyError, FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { CatalogError } from '../errors.js'
import { fieldOf, messageOf, type SchemaIssue } from '../domain/validation.js'

export const ErrorSchema = Type.Object({
  statusCode: Type.Integer(),
  code: Type.String(),
  error: Type.String(),
  message: Type.String(),
  field: Type.Optional(Type.String())
})

export default fp(async function errorsPlugin (app: FastifyInstance) {
  app.setErrorHandler(async (error: FastifyError & { field?: string }, request, reply) => {
    if (error.validation !== undefined) {
      const issue = (error.validation[0] ?? {}) as SchemaIssue
      const field = fieldOf(issue)
      return await reply.code(400).send({
        statusCode: 400,
        code: 'VALIDATION_ERROR',
        error: 'Bad Request',
        message: messageOf(issue, field, error.validationContext ?? 'request'),
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
    return await reply.code(statusCode).send({
      statusCode,
      code: error.code ?? 'INTERNAL_ERROR',
      error: STATUS_CODES[statusCode] ?? 'Error',
      message: statusCode >= 500 && !(error instanceof CatalogError) ? 'Internal Server Error' : error.message,
      ...(error.field === undefined ? {} : { field: error.field })
    })
  })

  app.setNotFoundHandler(async (request, reply) => {
    return await reply.code(404).send({
      statusCode: 404,
      code: 'NOT_FOUND',
      error: 'Not Found',
      message: `Route ${request.method} ${request.url.split('?')[0] ?? ''} not found`
    })
  })
}, { name: 'errors' })
