/**
 * Origin import from an OpenAPI document, the form x402scan reads first: every operation with
 * `x-payment-info` is a paid resource, at `{origin}{server base path}{path}`. Parsed by
 * @agentcash/discovery (x402scan's own discovery library, so a document it accepts lists here
 * what it lists there), which is loaded only when a document is read. Its ownership proofs are
 * `x-discovery.ownershipProofs` (src/domain/ownership-proof.ts).
 */
import { openApiOwnershipProofs } from './ownership-proof.js'
import { MAX_ORIGIN_RESOURCES, resourceOf, type OriginDocument, type OriginResource } from './origin-document.js'

/** Where an origin's OpenAPI document is looked for, in x402scan's order. */
export const OPENAPI_DOCUMENT_PATHS = ['/openapi.json', '/.well-known/openapi.json'] as const

/** Issues named in a refusal; a broken document can have hundreds. */
const ISSUES_SHOWN = 3

/** Reads a parsed JSON document as OpenAPI; `origin` is canonical (canonicalOrigin). Not ok when it is not OpenAPI or lists no paid operation. */
export async function readOpenApiDocument (origin: string, document: unknown): Promise<OriginDocument> {
  const { checkL2ForOpenAPI, getOpenAPI, isOpenApiParseFailure } = await import('@agentcash/discovery')
  // The library parses only what getOpenAPI fetched. Handed the bytes already read through the
  // prober's guarded client as a data: URL, it parses them without opening a connection.
  const read = await getOpenAPI(origin, {}, undefined, `data:application/json;base64,${Buffer.from(JSON.stringify(document)).toString('base64')}`)
  if (read.isErr() || read.value === null) return { ok: false, reason: 'not an OpenAPI document' }
  if (isOpenApiParseFailure(read.value)) {
    const issues = read.value.issues
    const shown = issues.slice(0, ISSUES_SHOWN).map((issue) => `${issue.path.map(String).join('.') || '(document)'}: ${issue.message}`)
    return { ok: false, reason: `not an OpenAPI document (${shown.join('; ')}${issues.length > ISSUES_SHOWN ? `; ${issues.length - ISSUES_SHOWN} more` : ''})` }
  }
  const paid = checkL2ForOpenAPI(read.value).routes.filter((route) => route.authMode === 'paid' || route.authMode === 'apiKey+paid')
  if (paid.length === 0) return { ok: false, reason: 'lists no paid operation (none has x-payment-info)' }
  if (paid.length > MAX_ORIGIN_RESOURCES) return { ok: false, reason: `the document lists ${paid.length} paid operations; at most ${MAX_ORIGIN_RESOURCES} are imported per origin` }
  return {
    ok: true,
    resources: paid.map((route): OriginResource => {
      const entry = `${route.method} ${route.path}`
      // A template names a family of endpoints, none of which a probe could stand for.
      if (/[{}]/.test(route.path)) return { entry, ok: false, reason: 'a path with parameters ({…}) names no single endpoint to probe' }
      return resourceOf(origin, entry)
    }),
    ownershipProofs: openApiOwnershipProofs(document)
  }
}
