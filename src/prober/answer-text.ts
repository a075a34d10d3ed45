/**
 * What a 402 answer says about its resource, for registration from the endpoint and for
 * probes that keep prefilled text current: v2 `resource.description`, and the Bazaar
 * `serviceName` and `tags` through the official sanitizer (@x402/extensions); v1 the first
 * accepts entry's `description`.
 */
import { sanitizeResourceServiceMetadata } from '@x402/extensions/bazaar'
import type { AnswerText } from '../domain/listing-text.js'

type ResourceInfo = Parameters<typeof sanitizeResourceServiceMetadata>[0]

/** `answer` is a parsed (schema-valid) PaymentRequired of either version. */
export function answerTextOf (answer: { resource?: unknown, accepts: Array<{ description?: unknown }> }): AnswerText {
  const text: AnswerText = {}
  const resource = typeof answer.resource === 'object' && answer.resource !== null ? answer.resource as ResourceInfo & { description?: unknown } : undefined
  const description = resource?.description ?? answer.accepts[0]?.description
  if (typeof description === 'string' && description.trim() !== '') text.description = description
  const metadata = sanitizeResourceServiceMetadata(resource)
  if (metadata.serviceName !== undefined) text.serviceName = metadata.serviceName
  if (metadata.tags !== undefined) text.tags = metadata.tags
  return text
}
