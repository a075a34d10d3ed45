/**
 * POST /api/origins/import: reads an origin's OpenAPI document (src/domain/openapi-document.ts)
 * or its /.well-known/x402 (src/domain/origin-document.ts) through the probe client (SSRF guard,
 * per-address cap, time budget, 256 KiB, served by the origin itself), then registers each listed resource that answers a valid 402 under the
 * caller's key by the path POST /api/services takes with the endpoint alone. The document is
 * read and checked whole before anything is written: a bad one changes nothing. Listings the
 * caller owns that an earlier import of this document made, and that it no longer lists,
 * become `inactive`. The two steps are apart because the second runs as a job.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { CatalogError, OriginDocumentError } from '../errors.js'
import { canonicalOrigin } from '../domain/endpoint-url.js'
import type { HttpMethod } from '../domain/http-method.js'
import {
  MAX_ORIGIN_DOCUMENT_BYTES, MAX_ORIGIN_RESOURCES, ORIGIN_DOCUMENT_PATH, readOriginDocument, reimported, removedFrom, type OriginDocument, type OriginResource
} from '../domain/origin-document.js'
import { OPENAPI_DOCUMENT_PATHS, readOpenApiDocument } from '../domain/openapi-document.js'
import { retiredListing } from '../domain/lifecycle.js'
import { probeTargetOf } from '../domain/probe.js'
import type { ServiceRecord } from '../domain/service.js'
import type { ServiceStatus } from '../domain/trust.js'
import { judgeAnswer } from '../prober/endpoint-prober.js'
import type { JobContext } from './jobs.js'
import { recordOwnership, type OriginOwnership } from './origin-proofs.js'
import { pairOf, prepareListing, refreshUsage, storeListing } from './register-listing.js'

export type ImportResult = 'registered' | 'updated' | 'unchanged' | 'refused'

export interface ImportRow {
  /** The document's entry as written. */
  resource: string
  result: ImportResult
  method?: HttpMethod
  endpoint?: string
  serviceId?: string
  status?: ServiceStatus
  /** Why it was refused; for a listing, its probe's reason. */
  reason: string
}

export interface RetiredRow { serviceId: string, endpoint: string, method: HttpMethod, reason: string }

export interface OriginImport {
  origin: string
  document: string
  rows: ImportRow[]
  inactive: RetiredRow[]
  /** The document's ownership proofs and the payTos of its listed resources they proved (src/application/origin-proofs.ts). */
  ownership: OriginOwnership
}

/** Resources handled at once: the probe client's per-address cap bounds the load on the origin anyway. */
const CONCURRENCY = 4

/** An origin's document, read and checked: what the import then probes. `document` is its URL; `ownershipProofs` as it carries them. */
export interface ReadOrigin { origin: string, document: string, resources: OriginResource[], ownershipProofs: string[] }

/** The documents an origin may list its paid resources in, in the order they are taken (x402scan's). */
export const ORIGIN_DOCUMENT_PATHS = [...OPENAPI_DOCUMENT_PATHS, ORIGIN_DOCUMENT_PATH] as const

/** A guarded GET of a JSON document (the prober's fetchOriginDocument). */
export type DocumentReader = (url: string, maxBytes: number) => Promise<{ ok: true, document: unknown } | { ok: false, reason: string }>

/**
 * Reads an origin's documents and takes the first that lists a paid resource: /openapi.json,
 * /.well-known/openapi.json, then /.well-known/x402. The three are read at once, so the whole
 * read takes one probe budget (CATALOG_PROBE_TIMEOUT_MS), not three. When none lists one, an
 * OriginDocumentError (422) says what each answered, and nothing is written. `origin` is
 * canonical (canonicalOrigin); origin import and `origin` sources both read this way.
 */
export async function readOriginDocuments (readJson: DocumentReader, origin: string): Promise<ReadOrigin> {
  const reads = await Promise.all(ORIGIN_DOCUMENT_PATHS.map(async (path): Promise<OriginDocument> => {
    const fetched = await readJson(origin + path, MAX_ORIGIN_DOCUMENT_BYTES)
    if (!fetched.ok) return fetched
    return path === ORIGIN_DOCUMENT_PATH ? readOriginDocument(origin, fetched.document) : await readOpenApiDocument(origin, fetched.document)
  }))
  const taken = reads.findIndex((read) => read.ok)
  const read = reads[taken]
  if (read?.ok === true) return { origin, document: origin + (ORIGIN_DOCUMENT_PATHS[taken] as string), resources: read.resources, ownershipProofs: read.ownershipProofs }
  const why = ORIGIN_DOCUMENT_PATHS.map((path, i) => `${path}: ${(reads[i] as { reason: string }).reason}`)
  throw new OriginDocumentError(`${origin} lists no paid resource: ${why.join('; ')}`)
}

/** readOriginDocuments for POST /api/origins/import, through the API's prober. */
export async function readOrigin (app: FastifyInstance, originInput: string): Promise<ReadOrigin> {
  return await readOriginDocuments(app.prober.fetchOriginDocument, canonicalOrigin('origin', originInput))
}

/**
 * Registers or re-reads each resource of a read document under `ownerId`, then retires what an
 * earlier import listed and this one does not. Once the job's signal aborts (the catalog is
 * closing), the resources not begun are refused and nothing is retired.
 */
export async function importResources (app: FastifyInstance, log: FastifyBaseLogger, ownerId: string | null, read: ReadOrigin, job: JobContext): Promise<OriginImport> {
  const { origin, document } = read

  const listed = new Set<string>()
  // The payTos the listed resources' 402 answers named: what the document's proofs are checked against.
  const payTos: string[] = []
  const importOne = async (resource: OriginResource): Promise<ImportRow> => {
    if (!resource.ok) return { resource: resource.entry, result: 'refused', reason: resource.reason }
    const row = { resource: resource.entry, method: resource.method, endpoint: resource.endpoint }
    try {
      const prepared = await prepareListing(app, ownerId, { endpoint: resource.endpoint, method: resource.method }, document)
      const existing = await app.store.findServiceByResource(prepared.record.resource, resource.method)
      if (existing !== null && existing.ownerId === ownerId) {
        listed.add(existing.id)
        payTos.push(prepared.record.paymentAddress)
        const { record, changed } = reimported(existing, prepared.record, document, new Date().toISOString())
        if (changed) await app.store.updateService(record)
        const outcome = judgeAnswer(prepared.answer as NonNullable<typeof prepared.answer>, probeTargetOf(record))
        let stored = await app.prober.record(record.id, outcome) ?? record
        if (changed) stored = await refreshUsage(app, log, stored, [pairOf(existing), pairOf(record)])
        return { ...row, result: changed ? 'updated' : 'unchanged', serviceId: stored.id, status: stored.status, reason: outcome.reason }
      }
      const stored = await storeListing(app, log, prepared)
      listed.add(stored.id)
      payTos.push(prepared.record.paymentAddress)
      return { ...row, result: 'registered', serviceId: stored.id, status: stored.status, reason: prepared.outcome.reason }
    } catch (err) {
      // Anything a client could fix (no 402, a claimed origin, a taken identity, a bad field) refuses this row only.
      if (err instanceof CatalogError && err.statusCode < 500) return { ...row, result: 'refused', reason: err.message }
      throw err
    }
  }

  const rows: ImportRow[] = new Array(read.resources.length)
  let next = 0
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, read.resources.length) }, async () => {
    while (next < read.resources.length) {
      const at = next++
      const resource = read.resources[at] as OriginResource
      rows[at] = job.signal.aborted
        ? { resource: resource.entry, result: 'refused', reason: 'not probed: the catalog was shutting down' }
        : await importOne(resource)
      job.advance()
    }
  }))

  // What an earlier import of this document listed for this key, and this one does not.
  const inactive: RetiredRow[] = []
  if (job.signal.aborted) return { origin, document, rows, inactive, ownership: { proofs: read.ownershipProofs.length, proven: [] } }
  const now = new Date().toISOString()
  const ownership = await recordOwnership(app.store, read, payTos, now)
  const documents = new Set(ORIGIN_DOCUMENT_PATHS.map((path) => origin + path))
  const previous = await app.store.servicesOnOrigin(origin, 10 * MAX_ORIGIN_RESOURCES)
  for (const record of previous) {
    // Made by an import of any of the origin's documents: an origin that moves its list to its
    // OpenAPI document retires what the old one listed and the new one does not.
    const from = record.prefill?.importedFrom
    if (record.ownerId !== ownerId || from === undefined || !documents.has(from) || listed.has(record.id) || record.prefill?.removed !== undefined) continue
    const retired: ServiceRecord = retiredListing(record, removedFrom(document.slice(origin.length)), now)
    if (!await app.store.updateService(retired)) continue
    inactive.push({ serviceId: record.id, endpoint: record.endpoint, method: record.method, reason: (retired.prefill?.removed as { reason: string }).reason })
  }
  app.searchIndex.indexer.notify()
  return { origin, document, rows, inactive, ownership }
}
