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
  return addFormats(new Ajv({ removeAdditional: false, useDefaults: true, coerceTypes: coerce ? 'array' : false, allErrors: false, strict: false }))
}

export interface SchemaIssue {
  instancePath?: string
  keyword?: string
  message?: string
  params?: { missingProperty?: string, additionalProperty?: string, allowedValues?: unknown[] }
}

/** Dotted field path of a schema violation: '/pricing/pricePerRequest' → 'pricing.pricePerRequest'. */
export function fieldOf (issue: SchemaIssue): string {
  const path = (issue.instancePath ?? '').split('/').filter((part) => part !== '')
  const leaf = issue.params?.missingProperty ?? issue.params?.additionalProperty
  if (leaf !== undefined) path.push(leaf)
  return path.join('.')
}

export function messageOf (issue: SchemaIssue, field: string, context: string): string {
  if (issue.keyword === 'additionalProperties') return `${field}: unknown ${context === 'body' ? 'field' : 'parameter'}`
  if (issue.keyword === 'required') return `${field}: is required`
  if (issue.keyword === 'enum') return `${field}: must be one of ${(issue.params?.allowedValues ?? []).join(', ')}`
  return `${field === '' ? context : field}: ${issue.message ?? 'is invalid'}`
}
