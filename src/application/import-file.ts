/**
 * Bulk import of registration bodies (an operator seeding the catalog from a crawl): each
 * item is checked by the same schema and rules as POST /api/services (an origin whose owner
 * proved control of it takes only that owner's listings, src/domain/claims.ts), accepted
 * items are stored one transaction per batch, and every rejected item is reported with its
 * reason.
 * The indexer then picks the new services up from the change feed like any registration.
 */
import { createReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import { applyOriginClaim, type OriginClaim } from '../domain/claims.js'
import { originOf } from '../domain/endpoint-url.js'
import { newServiceId } from '../domain/ids.js'
import { buildServiceRecord, RegistrationBodySchema, type RegistrationBody } from '../domain/registration.js'
import type { ServiceRecord } from '../domain/service.js'
import { describeIssues, validator, type SchemaIssue } from '../domain/validation.js'
import { CatalogError, DuplicateEndpointError, FileError, OriginClaimedError } from '../errors.js'
import type { CatalogStore } from '../store/catalog-store.js'

export const DEFAULT_IMPORT_BATCH = 500

export interface Rejection {
  /** 1-based line (NDJSON) or item (JSON array) number. */
  line: number
  reason: string
}

export interface ImportSummary {
  accepted: number
  rejected: Rejection[]
}

export interface ImportOptions {
  batchSize?: number
  /** Recorded as the services' owner (an API key id), as a registration records its key's. */
  ownerId?: string | null
  /** Called after each stored batch with the items read so far. */
  onProgress?: (read: number, accepted: number, rejected: number) => void
}

const checkBody = validator(false).compile<RegistrationBody>(RegistrationBodySchema)

/** The service a body describes, or why it is refused (the API's own words). */
export function checkRegistration (item: unknown, ownerId: string | null, now: string): ServiceRecord | string {
  if (!checkBody(item)) {
    return describeIssues((checkBody.errors ?? []) as SchemaIssue[], 'body').message
  }
  try {
    return buildServiceRecord(item, { id: newServiceId(), ownerId, now })
  } catch (err) {
    if (err instanceof CatalogError) return err.message
    throw err
  }
}

/** Items of a file: a JSON array (first character `[`) or newline-delimited JSON; unparsable lines become reasons. */
export async function * readItems (file: string): AsyncGenerator<{ line: number, item: unknown } | Rejection> {
  const handle = await open(file).catch((err: unknown) => { throw new FileError(`cannot read ${file}: ${(err as Error).message}`, { cause: err }) })
  const head = Buffer.alloc(64)
  const { bytesRead } = await handle.read(head, 0, head.length, 0)
  await handle.close()
  if (head.subarray(0, bytesRead).toString('utf8').replace(/^\uFEFF/, '').trimStart().startsWith('[')) {
    const chunks: Buffer[] = []
    for await (const chunk of createReadStream(file)) chunks.push(chunk as Buffer)
    let items: unknown
    try {
      items = JSON.parse(Buffer.concat(chunks).toString('utf8').replace(/^\uFEFF/, ''))
    } catch (err) {
      yield { line: 1, reason: `not valid JSON: ${(err as Error).message}` }
      return
    }
    let line = 0
    for (const item of items as unknown[]) yield { line: ++line, item }
    return
  }
  let line = 0
  for await (const text of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    line++
    if (text.trim() === '') continue
    try {
      yield { line, item: JSON.parse(text) as unknown }
    } catch (err) {
      yield { line, reason: `not valid JSON: ${(err as Error).message}` }
    }
  }
}

export async function importServices (store: CatalogStore, items: AsyncIterable<{ line: number, item: unknown } | Rejection>, options: ImportOptions = {}): Promise<ImportSummary> {
  const batchSize = options.batchSize ?? DEFAULT_IMPORT_BATCH
  const ownerId = options.ownerId ?? null
  const summary: ImportSummary = { accepted: 0, rejected: [] }
  const endpoints = new Map<string, number>()
  // Each origin's proven claim, read once a batch (so the map stays a batch's size); the store
  // applies it again as it writes (a proof during the import refuses the batch, whose items
  // are then stored one by one).
  const proven = new Map<string, OriginClaim | null>()
  const claimOf = async (origin: string): Promise<OriginClaim | null> => {
    if (!proven.has(origin)) proven.set(origin, await store.provenClaim(origin))
    return proven.get(origin) ?? null
  }
  const refused = (err: unknown): err is DuplicateEndpointError | OriginClaimedError =>
    err instanceof DuplicateEndpointError || err instanceof OriginClaimedError
  let batch: Array<{ line: number, record: ServiceRecord }> = []
  let read = 0

  const flush = async (): Promise<void> => {
    if (batch.length === 0) return
    try {
      await store.insertServices(batch.map((b) => b.record))
      summary.accepted += batch.length
    } catch (err) {
      if (!refused(err)) throw err
      // Some endpoint is already in the catalog, or its origin was claimed meanwhile: store
      // the rest one by one, naming the refusals.
      for (const { line, record } of batch) {
        try {
          await store.insertService(record)
          summary.accepted++
        } catch (clash) {
          if (!refused(clash)) throw clash
          summary.rejected.push({ line, reason: clash.message })
        }
      }
    }
    batch = []
    proven.clear()
    options.onProgress?.(read, summary.accepted, summary.rejected.length)
  }

  const now = new Date().toISOString()
  for await (const entry of items) {
    read++
    if ('reason' in entry) { summary.rejected.push(entry); continue }
    const checked = checkRegistration(entry.item, ownerId, now)
    if (typeof checked === 'string') { summary.rejected.push({ line: entry.line, reason: checked }); continue }
    let record: ServiceRecord
    try {
      record = applyOriginClaim(checked, await claimOf(originOf(checked.endpoint)))
    } catch (err) {
      if (!(err instanceof OriginClaimedError)) throw err
      summary.rejected.push({ line: entry.line, reason: err.message })
      continue
    }
    // The store's identity: an import probes nothing, so each resource is its endpoint.
    const identity = `${record.method} ${record.resource}`
    const first = endpoints.get(identity)
    if (first !== undefined) { summary.rejected.push({ line: entry.line, reason: `endpoint: ${record.endpoint} already appears on line ${first}` }); continue }
    endpoints.set(identity, entry.line)
    batch.push({ line: entry.line, record })
    if (batch.length >= batchSize) await flush()
  }
  await flush()
  summary.rejected.sort((a, b) => a.line - b.line)
  return summary
}
