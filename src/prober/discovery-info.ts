/**
 * Reads the discovery declaration of a parsed 402 answer with the official @x402/extensions,
 * the way the Coinbase Bazaar does: v2 `extensions.bazaar` checked with
 * validateDiscoveryExtensionSpec and validateDiscoveryExtension and read with
 * extractDiscoveryInfoFromExtension; v1 `accepts[].outputSchema` read with extractDiscoveryInfo
 * (extractDiscoveryInfoV1, plus the `extensions.bazaar` the Bazaar synthesizes for v1 resources).
 * Bounded: a declaration over MAX_DISCOVERY_BYTES (serialized) is refused before any parsing.
 */
import {
  extractDiscoveryInfo, extractDiscoveryInfoFromExtension, validateDiscoveryExtension, validateDiscoveryExtensionSpec,
  type DiscoveryExtension, type DiscoveryInfo
} from '@x402/extensions/bazaar'
import type { PaymentPayload, PaymentRequirementsV1 } from '@x402/core/types'
import { MAX_DISCOVERY_BYTES, type CallSchema, type DiscoveryOutcome } from '../domain/call-schema.js'
import type { HttpMethod } from '../domain/http-method.js'

/** The parts of a validated 402 answer (parsePaymentRequired's data) discovery reads. */
export interface DeclaringAnswer {
  x402Version: number
  accepts: ReadonlyArray<{ outputSchema?: unknown }>
  resource?: unknown
  extensions?: unknown
}

function isPlainObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function kib (bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`
}

/** JSON size in bytes, or null when it cannot be serialized. */
function jsonBytes (value: unknown): number | null {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '')
  } catch {
    return null
  }
}

function tooLarge (what: string, value: unknown): string | null {
  const bytes = jsonBytes(value)
  if (bytes === null) return `${what} cannot be read as JSON`
  return bytes > MAX_DISCOVERY_BYTES ? `${what} is ${kib(bytes)}, over the ${kib(MAX_DISCOVERY_BYTES)} limit` : null
}

/**
 * The declaration's schema without `pattern` and `patternProperties`, for validation only: Ajv
 * runs a declared pattern as a regular expression over the declared example, and an endpoint
 * must not be able to stall the prober with a catastrophic one. The stored declaration keeps them.
 */
function withoutPatterns (node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutPatterns)
  if (!isPlainObject(node)) return node
  const copy: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === 'pattern' || key === 'patternProperties') continue
    copy[key] = withoutPatterns(value)
  }
  return copy
}

function objectOrNull (value: unknown): Record<string, unknown> | null {
  return isPlainObject(value) ? value : null
}

/** `schema.properties.input.properties[name]` (or output's) of a v2 extension, where the input and output JSON Schemas sit. */
function declaredSchema (extension: Record<string, unknown>, part: 'input' | 'output', name: string): Record<string, unknown> | null {
  const schema = objectOrNull(extension.schema)
  const section = objectOrNull(objectOrNull(objectOrNull(schema?.properties)?.[part])?.properties)
  return objectOrNull(section?.[name])
}

function methodOf (value: unknown): CallSchema['method'] {
  const method = typeof value === 'string' ? value.toUpperCase() : ''
  return (['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const).find((m) => m === method) ?? null
}

type HttpInput = Exclude<DiscoveryInfo['input'], { type: 'mcp' }>

/** The input schema and example of an HTTP call, from the `part` it is declared in and what that part holds. */
type InputReader = (part: 'body' | 'queryParams', declared: unknown) => Pick<CallSchema, 'inputSchema' | 'inputExample'>

/** An HTTP call as v1 and v2 both declare it: a method, and query parameters or a body. */
function httpCall (
  declaredIn: CallSchema['declaredIn'],
  input: HttpInput,
  readInput: InputReader,
  output: Pick<CallSchema, 'outputSchema' | 'outputExample'>
): CallSchema {
  const body = 'bodyType' in input
  return {
    declaredIn,
    method: methodOf(input.method),
    inputKind: body ? 'body' : 'query',
    bodyType: body ? input.bodyType : null,
    ...(body ? readInput('body', input.body) : readInput('queryParams', input.queryParams)),
    ...output,
    mcpTool: null
  }
}

/** v2: the extension's info and its JSON Schemas (info holds the examples, schema the shapes). */
function fromExtension (info: DiscoveryInfo, extension: Record<string, unknown>): CallSchema {
  const output = { outputSchema: declaredSchema(extension, 'output', 'example'), outputExample: info.output?.example ?? null }
  if (info.input.type === 'mcp') {
    return {
      declaredIn: 'extensions.bazaar',
      method: null,
      inputKind: 'mcp',
      bodyType: null,
      inputSchema: objectOrNull(info.input.inputSchema),
      inputExample: info.input.example ?? null,
      ...output,
      mcpTool: { toolName: info.input.toolName, description: info.input.description ?? null, transport: info.input.transport ?? null }
    }
  }
  return httpCall('extensions.bazaar', info.input, (part, example) => ({ inputSchema: declaredSchema(extension, 'input', part), inputExample: example ?? null }), output)
}

/**
 * v1 declares field definitions (`{ city: { type, description, required: true } }`), not
 * examples: they become the properties of an object schema (`required: true` lifted into the
 * schema's `required` list), and the declared `output` is the output schema.
 */
function fieldsSchema (fields: unknown): Record<string, unknown> | null {
  if (!isPlainObject(fields)) return null
  const properties: Record<string, unknown> = {}
  const required: string[] = []
  for (const [name, definition] of Object.entries(fields)) {
    if (isPlainObject(definition)) {
      const { required: isRequired, ...rest } = definition
      if (isRequired === true) required.push(name)
      properties[name] = rest
    } else {
      properties[name] = typeof definition === 'string' ? { type: definition } : {}
    }
  }
  return { type: 'object', properties, ...(required.length === 0 ? {} : { required }) }
}

/** v1: field definitions and an output schema, no examples; v1 has no MCP input (null). */
function fromV1 (info: DiscoveryInfo): CallSchema | null {
  if (info.input.type === 'mcp') return null
  const readFields: InputReader = (_part, fields) => ({ inputSchema: fieldsSchema(fields), inputExample: null })
  return httpCall('accepts.outputSchema', info.input, readFields, { outputSchema: objectOrNull(info.output?.example), outputExample: null })
}

function declared (callSchema: CallSchema, bazaar: Record<string, unknown>, listingMethod: HttpMethod): DiscoveryOutcome {
  if (callSchema.method !== null && callSchema.method !== listingMethod) {
    return { kind: 'refused', reason: `it declares method ${callSchema.method}, but the listing is ${listingMethod}` }
  }
  const size = tooLarge('the call schema', callSchema)
  return size === null ? { kind: 'declared', callSchema, bazaar } : { kind: 'refused', reason: size }
}

function readV2 (extension: unknown, listingMethod: HttpMethod): DiscoveryOutcome {
  if (!isPlainObject(extension)) return { kind: 'refused', reason: 'extensions.bazaar is not an object' }
  const size = tooLarge('extensions.bazaar', extension)
  if (size !== null) return { kind: 'refused', reason: size }
  const spec = validateDiscoveryExtensionSpec(extension)
  if (!spec.valid) return { kind: 'refused', reason: `extensions.bazaar is invalid: ${(spec.errors ?? []).join('; ')}` }
  if (!isPlainObject(extension.schema)) return { kind: 'refused', reason: 'extensions.bazaar is invalid: it has no schema object' }
  const checked = validateDiscoveryExtension({ info: extension.info, schema: withoutPatterns(extension.schema) } as unknown as DiscoveryExtension)
  if (!checked.valid) return { kind: 'refused', reason: `extensions.bazaar is invalid: ${(checked.errors ?? ['its info does not match its schema']).slice(0, 3).join('; ')}` }
  const info = extractDiscoveryInfoFromExtension(extension as unknown as DiscoveryExtension, false)
  return declared(fromExtension(info, extension), extension, listingMethod)
}

function readV1 (answer: DeclaringAnswer, listingMethod: HttpMethod): DiscoveryOutcome {
  const requirement = answer.accepts.find((entry) => entry.outputSchema !== undefined && entry.outputSchema !== null)
  if (requirement === undefined) return { kind: 'none' }
  const size = tooLarge('accepts[].outputSchema', requirement.outputSchema)
  if (size !== null) return { kind: 'refused', reason: size }
  let found: ReturnType<typeof extractDiscoveryInfo>
  try {
    // The payload is only read for its version and extensions (none in v1).
    found = extractDiscoveryInfo({ x402Version: 1 } as unknown as PaymentPayload, requirement as unknown as PaymentRequirementsV1)
  } catch (err) {
    return { kind: 'refused', reason: `accepts[].outputSchema cannot be read: ${(err as Error).message}` }
  }
  // Not discoverable (`discoverable: false`) or no http input with a method: nothing declared.
  if (found === null) return { kind: 'none' }
  const bazaar = objectOrNull(found.extensions?.bazaar)
  const callSchema = fromV1(found.discoveryInfo)
  if (bazaar === null || callSchema === null) return { kind: 'none' }
  return declared(callSchema, bazaar, listingMethod)
}

/** The answer's discovery declaration, read for a listing called with `listingMethod`. */
export function readDiscovery (answer: DeclaringAnswer, listingMethod: HttpMethod): DiscoveryOutcome {
  if (answer.x402Version === 1) return readV1(answer, listingMethod)
  const extensions = answer.extensions
  if (!isPlainObject(extensions) || extensions.bazaar === undefined) return { kind: 'none' }
  return readV2(extensions.bazaar, listingMethod)
}
