/**
 * Schema validation shared by the API and the operator CLIs: one Ajv setup and one way of
 * turning a schema violation into a field path and a message, so a bulk import rejects a
 * line with the words a POST would have answered.
 */
import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

/**
 * Unknown fields and parameters are errors, not silently dropped: hostile or misspelled
 * input (category[$ne]=x, sortby=price) gets a 400 naming it. `coerce` is for query
 * strings and params, which arrive as text ("20" → 20); JSON bodies are never coerced.
 */
export function validator (coerce: boolean): Ajv {
  // allErrors: a registration missing several fields hears of all of them at once. verbose: the
  // failing schema comes with the error, so a pattern is explained by its EXPECTED words.
  return addFormats(new Ajv({ removeAdditional: false, useDefaults: true, coerceTypes: coerce ? 'array' : false, allErrors: true, verbose: true, strict: false }))
}

/**
 * The schema keyword saying in words what a pattern (or format) accepts: messages use it, as
 * people should never be shown a regular expression. An OpenAPI extension (x-…), so the
 * generated document carries it too.
 */
export const EXPECTED = 'x-expected'

/** A string schema's pattern with the words that explain it: `Type.String({ ...patterned('^\\d+$', 'a whole number'), … })`. */
export function patterned (pattern: string, words: string): { pattern: string, [EXPECTED]: string } {
  return { pattern, [EXPECTED]: words }
}

export interface SchemaIssue {
  instancePath?: string
  keyword?: string
  message?: string
  params?: { missingProperty?: string, additionalProperty?: string, allowedValues?: unknown[], limit?: number, type?: string, format?: string, allowedValue?: unknown }
  parentSchema?: Record<string, unknown>
}

/** Dotted field path of a schema violation: '/pricing/pricePerRequest' → 'pricing.pricePerRequest'. */
export function fieldOf (issue: SchemaIssue): string {
  const path = (issue.instancePath ?? '').split('/').filter((part) => part !== '')
  const leaf = issue.params?.missingProperty ?? issue.params?.additionalProperty
  if (leaf !== undefined) path.push(leaf)
  return path.join('.')
}

const TYPE_WORDS: Record<string, string> = {
  integer: 'a whole number',
  number: 'a number',
  string: 'text (a JSON string)',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null'
}

const FORMAT_WORDS: Record<string, string> = {
  'date-time': 'a date and time (ISO 8601, e.g. 2026-01-31T12:00:00Z)',
  uri: 'an absolute URL',
  email: 'an e-mail address'
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`

/** What a violation means, in plain words (Ajv's own wording shows regexes and operators). */
function problemOf (issue: SchemaIssue): string {
  const limit = issue.params?.limit ?? 0
  const expected = issue.parentSchema?.[EXPECTED]
  switch (issue.keyword) {
    case 'required': return 'is required'
    case 'enum': return `must be one of ${(issue.params?.allowedValues ?? []).join(', ')}`
    case 'const': return `must be ${JSON.stringify(issue.params?.allowedValue)}`
    case 'type': return `must be ${(issue.params?.type ?? '').split(',').map((type) => TYPE_WORDS[type] ?? type).join(' or ')}`
    case 'minLength': return limit === 1 ? 'must not be empty' : `must be at least ${plural(limit, 'character')}`
    case 'maxLength': return `must be at most ${plural(limit, 'character')}`
    case 'minimum': return `must be at least ${limit}`
    case 'maximum': return `must be at most ${limit}`
    case 'exclusiveMinimum': return `must be greater than ${limit}`
    case 'exclusiveMaximum': return `must be less than ${limit}`
    case 'minItems': return `must have at least ${plural(limit, 'item')}`
    case 'maxItems': return `must have at most ${plural(limit, 'item')}`
    case 'minProperties': return `must have at least ${plural(limit, 'field')}`
    case 'maxProperties': return `must have at most ${plural(limit, 'field')}`
    case 'pattern': return typeof expected === 'string' ? `must be ${expected}` : 'is not in the accepted form'
    case 'format': return `must be ${typeof expected === 'string' ? expected : FORMAT_WORDS[issue.params?.format ?? ''] ?? `a valid ${issue.params?.format ?? 'value'}`}`
    default: return 'is not valid here'
  }
}

export function messageOf (issue: SchemaIssue, field: string, context: string): string {
  if (issue.keyword === 'additionalProperties') return `${field}: unknown ${context === 'body' ? 'field' : 'parameter'}`
  return `${field === '' ? context : field}: ${problemOf(issue)}`
}

/**
 * Every problem of an input, one per field, in plain words: `name: is required; endpoint: is
 * required`. `field` is the first field at fault ('' for the input as a whole).
 */
export function describeIssues (issues: readonly SchemaIssue[], context: string): { field: string, message: string } {
  const byField = new Map<string, string>()
  for (const issue of issues) {
    const field = fieldOf(issue)
    // One problem per field: the first is the one to fix (a wrong type makes its length moot).
    if (!byField.has(field)) byField.set(field, messageOf(issue, field, context))
  }
  const [first = ''] = byField.keys()
  return { field: first, message: [...byField.values()].join('; ') || `${context}: is not valid` }
}
