/**
 * Origin import: an origin lists its paid resources in its OpenAPI document
 * (src/domain/openapi-document.ts) or, when that lists none, at `{origin}/.well-known/x402` in
 * x402scan's format, `{ "version": 1, "resources": ["GET /path", "POST /other",
 * "https://host/full/url"], "instructions": "…", "ownershipProofs": ["0x…"] }`. Each entry is a path or a URL on the
 * origin, optionally preceded by its method (GET when none is given). Bounded: at most
 * MAX_ORIGIN_RESOURCES entries and MAX_ORIGIN_DOCUMENT_BYTES per document. A document that
 * breaks a rule is refused whole, naming what is wrong.
 */
import { canonicalEndpoint } from './endpoint-url.js'
import { HTTP_METHODS, type HttpMethod } from './http-method.js'
import { wellKnownOwnershipProofs } from './ownership-proof.js'
import type { ServiceRecord } from './service.js'

export const ORIGIN_DOCUMENT_PATH = '/.well-known/x402'
export const MAX_ORIGIN_RESOURCES = 100
export const MAX_ORIGIN_DOCUMENT_BYTES = 256 * 1024
/** The reason a listing gets when a re-import no longer finds it in the document at `path` (e.g. /openapi.json). */
export function removedFrom (path: string): string {
  return `removed from ${path}`
}

/** One entry of the document, as written, and what it names (or why it names nothing). */
export type OriginResource =
  | { entry: string, ok: true, method: HttpMethod, endpoint: string }
  | { entry: string, ok: false, reason: string }

/** A document read: its resources and the ownership proofs it carries (src/domain/ownership-proof.ts), or why it lists none. */
export type OriginDocument = { ok: true, resources: OriginResource[], ownershipProofs: string[] } | { ok: false, reason: string }

function describe (value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

/** What one entry ("METHOD /path", a path, or a URL) of an origin's document names. */
export function resourceOf (origin: string, entry: string): OriginResource {
  const match = /^\s*(?:([A-Za-z]+)\s+)?(\S+)\s*$/.exec(entry)
  if (match === null) return { entry, ok: false, reason: 'not "METHOD /path" or a URL' }
  const method = (match[1] ?? 'GET').toUpperCase()
  if (!(HTTP_METHODS as readonly string[]).includes(method)) return { entry, ok: false, reason: `method ${method} is not one of ${HTTP_METHODS.join(', ')}` }
  const target = match[2] as string
  let url: URL
  try {
    url = new URL(target, `${origin}/`)
  } catch {
    return { entry, ok: false, reason: 'not a path or URL' }
  }
  if (!target.startsWith('/') && !/^https?:\/\//i.test(target)) return { entry, ok: false, reason: 'a path must start with /' }
  if (url.origin !== origin) return { entry, ok: false, reason: `not on ${origin}: only the origin's own resources are imported` }
  try {
    return { entry, ok: true, method: method as HttpMethod, endpoint: canonicalEndpoint(url.href) }
  } catch (err) {
    return { entry, ok: false, reason: (err as Error).message }
  }
}

/** Reads a parsed document; `origin` is canonical (canonicalOrigin). */
export function readOriginDocument (origin: string, document: unknown): OriginDocument {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return { ok: false, reason: `the document is ${describe(document)}, not an object` }
  const { version, resources, instructions } = document as Record<string, unknown>
  if (version !== undefined && version !== 1) return { ok: false, reason: `version is ${JSON.stringify(version)}; only version 1 is read` }
  if (instructions !== undefined && typeof instructions !== 'string') return { ok: false, reason: `instructions is ${describe(instructions)}, not a string` }
  if (!Array.isArray(resources)) return { ok: false, reason: resources === undefined ? 'the document has no "resources" list' : `resources is ${describe(resources)}, not a list` }
  if (resources.length > MAX_ORIGIN_RESOURCES) return { ok: false, reason: `the document lists ${resources.length} resources; at most ${MAX_ORIGIN_RESOURCES} are imported per origin` }
  const bad = resources.findIndex((entry) => typeof entry !== 'string')
  if (bad !== -1) return { ok: false, reason: `resources.${bad} is ${describe(resources[bad])}, not a string` }
  return { ok: true, resources: (resources as string[]).map((entry) => resourceOf(origin, entry)), ownershipProofs: wellKnownOwnershipProofs(document) }
}

/**
 * A listing the caller already owns, brought up to what a re-import read: the fields that were
 * prefilled take the fresh values, the ones its owner set stay; it is listed by the document again.
 */
export function reimported (existing: ServiceRecord, fresh: ServiceRecord, importedFrom: string, at: string): { record: ServiceRecord, changed: boolean } {
  const fields = new Set(existing.prefill?.fields ?? [])
  const next: ServiceRecord = { ...existing }
  if (fields.has('name')) next.name = fresh.name
  if (fields.has('description')) next.description = fresh.description
  if (fields.has('tags')) next.tags = fresh.tags
  if (fields.has('category')) next.category = fresh.category
  if (fields.has('price')) { next.priceAtomic = fresh.priceAtomic; next.currency = fresh.currency }
  if (fields.has('paymentAddress')) next.paymentAddress = fresh.paymentAddress
  if (fields.has('network')) { next.network = fresh.network; next.supportedChains = fresh.supportedChains }
  next.prefill = { fields: existing.prefill?.fields ?? [], importedFrom }
  const shown = (r: ServiceRecord): string => JSON.stringify([r.name, r.description, r.tags, r.category, r.priceAtomic, r.currency, r.paymentAddress, r.network, r.supportedChains, r.prefill])
  const changed = shown(next) !== shown(existing)
  if (changed) next.updatedAt = at
  return { record: next, changed }
}
