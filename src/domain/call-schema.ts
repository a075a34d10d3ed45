/**
 * How to call a service, as its endpoint declares it in its 402 answer: the Bazaar discovery
 * extension (`extensions.bazaar`, x402 v2, `declareDiscoveryExtension` of @x402/extensions) or
 * a v1 `accepts[].outputSchema`. The prober reads it with the official parsers
 * (src/prober/discovery-info.ts); this module holds what is kept, how a probe replaces it,
 * what is published, and the words search indexes. Never typed by a registrant.
 */
import { Type, type Static } from '@sinclair/typebox'
import type { HttpMethod } from './http-method.js'
import type { ExtensionKey } from './catalog-query.js'
import { StringEnum } from './string-enum.js'

/** Bytes (serialized JSON) of a declared `extensions.bazaar`, and of the call schema read from it, that the catalog keeps. */
export const MAX_DISCOVERY_BYTES = 64 * 1024

export const INPUT_KINDS = ['query', 'body', 'mcp'] as const
export const BODY_TYPES = ['json', 'form-data', 'text'] as const
export type BodyType = typeof BODY_TYPES[number]

const JsonSchemaObject = (description: string): ReturnType<typeof Type.Union> =>
  Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description })

export const CallSchemaSchema = Type.Object({
  declaredIn: StringEnum(['extensions.bazaar', 'accepts.outputSchema'], {
    description: 'Where the endpoint declared it: the Bazaar discovery extension of its x402 v2 402 answer, or the outputSchema of a v1 answer'
  }),
  method: Type.Union([StringEnum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']), Type.Null()], { description: 'HTTP method the declaration names; null for an MCP tool' }),
  inputKind: StringEnum(INPUT_KINDS, { description: 'query: inputs go in the query string; body: in the request body (bodyType); mcp: arguments of an MCP tool' }),
  bodyType: Type.Union([StringEnum(BODY_TYPES), Type.Null()], { description: 'Encoding of the body (inputKind body); null otherwise' }),
  inputSchema: JsonSchemaObject('JSON Schema of the inputs (query parameters, body or tool arguments) as declared; null when none was'),
  inputExample: Type.Union([Type.Unknown(), Type.Null()], { description: 'Example inputs as declared; null when none was (v1 declares field definitions only)' }),
  outputSchema: JsonSchemaObject('JSON Schema of the answer as declared; null when none was'),
  outputExample: Type.Union([Type.Unknown(), Type.Null()], { description: 'Example answer as declared; null when none was' }),
  mcpTool: Type.Union([Type.Object({
    toolName: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    transport: Type.Union([Type.String(), Type.Null()])
  }), Type.Null()], { description: 'The MCP tool the endpoint declares (inputKind mcp); null otherwise' })
}, { additionalProperties: false })
export type CallSchema = Static<typeof CallSchemaSchema>

/** An example request an agent can make, built from the declared input example. */
export const ExampleCallSchema = Type.Object({
  method: Type.String(),
  url: Type.String({ description: 'The endpoint, with the example query parameters for a query input' }),
  headers: Type.Record(Type.String(), Type.String()),
  body: Type.Union([Type.Unknown(), Type.Null()], { description: 'The example body (inputKind body) or tool arguments (mcp); null otherwise' }),
  curl: Type.String({ description: 'The same as a curl command (without payment: the first call answers 402 with the requirements)' })
}, { additionalProperties: false })
export type ExampleCall = Static<typeof ExampleCallSchema>

/** What the service detail publishes: the schema as kept plus the example call made from it. */
export const CallSchemaViewSchema = Type.Union([Type.Composite([CallSchemaSchema, Type.Object({ exampleCall: ExampleCallSchema })]), Type.Null()], {
  description: 'How to call the service, as its endpoint declares it in its 402 answer (the x402 Bazaar discovery extension, or a v1 outputSchema) at the last probe; null when it declares none'
})
export type CallSchemaView = Static<typeof CallSchemaViewSchema>

/** What a probe learned of the endpoint's discovery declaration. */
export type DiscoveryOutcome =
  /** A valid declaration: the call schema and `extensions.bazaar` as the endpoint declared it (v1: as the Bazaar synthesizes it). */
  | { kind: 'declared', callSchema: CallSchema, bazaar: Record<string, unknown> }
  /** The answer declares nothing. */
  | { kind: 'none' }
  /** A declaration the catalog does not keep, and why in plain words. */
  | { kind: 'refused', reason: string }

/** The part of a service a probe's discovery outcome sets. */
export interface DiscoveryFields {
  callSchema?: CallSchema
  bazaarExtension?: Record<string, unknown>
}

/**
 * The service's discovery fields after a probe with a valid 402 answer, or null when they stay
 * as they are: a declaration replaces what was kept, an answer without one clears it (the
 * schema is always the endpoint's current one), a refused one leaves the last good one (the
 * probe's reason says why the new one was not taken).
 */
export function applyDiscovery (before: DiscoveryFields, discovery: DiscoveryOutcome | undefined): DiscoveryFields | null {
  if (discovery === undefined || discovery.kind === 'refused') return null
  const after: DiscoveryFields = discovery.kind === 'declared' ? { callSchema: discovery.callSchema, bazaarExtension: discovery.bazaar } : {}
  return sameDiscovery(before, after) ? null : after
}

/**
 * The x402 extensions the service's endpoint declares, as the `extensions` filter reads them:
 * `bazaar` while a declaration is kept (a v1 outputSchema counts: the catalog publishes the
 * `extensions.bazaar` the Bazaar synthesizes from it).
 */
export function declaredExtensions (record: DiscoveryFields): ExtensionKey[] {
  return record.bazaarExtension === undefined ? [] : ['bazaar']
}

/** `record` with its discovery fields replaced by `fields` (absent ones removed). */
export function withDiscovery<T extends DiscoveryFields> (record: T, fields: DiscoveryFields): T {
  const next = { ...record }
  delete next.callSchema
  delete next.bazaarExtension
  return { ...next, ...fields }
}

export function sameDiscovery (a: DiscoveryFields, b: DiscoveryFields): boolean {
  return JSON.stringify(a.callSchema ?? null) === JSON.stringify(b.callSchema ?? null) &&
    JSON.stringify(a.bazaarExtension ?? null) === JSON.stringify(b.bazaarExtension ?? null)
}

/** The sentence a probe's reason gains about the declaration; '' when there is nothing to say. */
export function discoveryNote (discovery: DiscoveryOutcome | undefined): string {
  return discovery?.kind === 'refused' ? `; call schema not taken: ${discovery.reason}` : ''
}

function isPlainObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function queryString (example: unknown): string {
  if (!isPlainObject(example)) return ''
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(example)) {
    if (value === undefined || value === null) continue
    params.append(key, typeof value === 'object' ? JSON.stringify(value) : String(value))
  }
  const text = params.toString()
  return text === '' ? '' : text
}

/** Single-quoted for a POSIX shell. */
function shellQuote (text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`
}

const CONTENT_TYPES: Record<BodyType, string> = { json: 'application/json', 'form-data': 'multipart/form-data', text: 'text/plain' }

/**
 * The request an agent makes with the declared example: query inputs appended to the
 * endpoint, a body sent as its bodyType says, MCP tool arguments as the body of a JSON call.
 * `method` is the listing's (the one the catalog probes with).
 */
export function exampleCall (endpoint: string, method: HttpMethod, schema: CallSchema): ExampleCall {
  let url = endpoint
  const headers: Record<string, string> = {}
  let body: unknown = null
  if (schema.inputKind === 'query') {
    const query = queryString(schema.inputExample)
    if (query !== '') url += (endpoint.includes('?') ? '&' : '?') + query
  } else {
    body = schema.inputExample ?? {}
    headers['Content-Type'] = CONTENT_TYPES[schema.bodyType ?? 'json']
  }
  const parts = ['curl', '-X', method, shellQuote(url)]
  for (const [name, value] of Object.entries(headers)) parts.push('-H', shellQuote(`${name}: ${value}`))
  if (body !== null) parts.push('--data', shellQuote(typeof body === 'string' ? body : JSON.stringify(body)))
  return { method, url, headers, body, curl: parts.join(' ') }
}

export function toCallSchemaView (record: { endpoint: string, method: HttpMethod, callSchema?: CallSchema }): CallSchemaView {
  const schema = record.callSchema
  return schema === undefined ? null : { ...schema, exampleCall: exampleCall(record.endpoint, record.method, schema) }
}

/** Fields of the declared input a search indexes: each property's name and description, nested objects included, in order. */
const MAX_SCHEMA_WORDS_CHARS = 2000

/**
 * The words of the input schema search indexes: property names (camelCase and snake_case
 * split into words, `cityName` → "city Name") and their descriptions, nested properties
 * included, at most MAX_SCHEMA_WORDS_CHARS characters. '' without a schema.
 */
export function callSchemaWords (schema: CallSchema | undefined): string {
  if (schema === undefined) return ''
  const words: string[] = []
  let length = 0
  const add = (text: string): boolean => {
    if (length + text.length + 1 > MAX_SCHEMA_WORDS_CHARS) return false
    words.push(text)
    length += text.length + 1
    return true
  }
  const walk = (node: unknown, depth: number): boolean => {
    if (!isPlainObject(node) || depth > 8) return true
    const properties = node.properties
    if (isPlainObject(properties)) {
      for (const [name, property] of Object.entries(properties)) {
        if (!add(splitIdentifier(name))) return false
        if (isPlainObject(property) && typeof property.description === 'string' && !add(property.description)) return false
        if (!walk(property, depth + 1)) return false
      }
    }
    return isPlainObject(node.items) ? walk(node.items, depth + 1) : true
  }
  if (schema.mcpTool?.description != null) add(schema.mcpTool.description)
  walk(schema.inputSchema, 0)
  return words.join(' ')
}

function splitIdentifier (name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_\-.]+/g, ' ').trim()
}
