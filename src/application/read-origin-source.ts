/**
 * A pass over an `origin` source: the origin's paid resources as its OpenAPI document or
 * /.well-known/x402 lists them, read as origin import reads them (src/application/import-origin.ts),
 * each made a listing from its own 402 answer by the rules a Bazaar item is read by
 * (src/domain/bazaar-item.ts). A resource the document still lists but that did not answer this
 * time keeps the source (its probes judge it); only what the document no longer lists is retired.
 * The document's ownership proofs are checked against the payTos read (src/application/origin-proofs.ts).
 */
import { readAnswerItem } from '../domain/bazaar-item.js'
import type { HttpMethod } from '../domain/http-method.js'
import type { OriginResource } from '../domain/origin-document.js'
import { OriginDocumentError } from '../errors.js'
import { readOriginDocuments, type ReadOrigin } from './import-origin.js'
import { recordOwnership } from './origin-proofs.js'
import type { SourcedItem, SourcePass } from './source-pass.js'

/** Resources read at once: the probe client's per-address cap bounds the load on the origin anyway. */
const CONCURRENCY = 4

export async function readOriginSource (pass: SourcePass): Promise<void> {
  const { source, report, deps } = pass
  let read: ReadOrigin
  try {
    read = await readOriginDocuments(deps.readJson, source.url)
  } catch (err) {
    if (!(err instanceof OriginDocumentError)) throw err
    // The import's wording ("origin: …; nothing was changed") as a pass's: the source first.
    report.error = err.message.replace(/^origin: /, '').replace(/; nothing was changed$/, '')
    return
  }
  report.seen = read.resources.length
  const items: SourcedItem[] = []
  const silent: Array<{ endpoint: string, method: HttpMethod, reason: string }> = []
  const readOne = async (resource: OriginResource): Promise<void> => {
    if (!resource.ok) { items.push({ read: { ok: false, item: `${read.document}: ${resource.entry}`, reason: resource.reason } }); return }
    const answer = await deps.readEndpoint(resource.endpoint, resource.method, { sameOrigin: true })
    if (answer.ok) items.push({ read: readAnswerItem(resource.endpoint, resource.method, answer.payment.accepts, answer.payment.text) })
    else silent.push({ endpoint: resource.endpoint, method: resource.method, reason: answer.outcome.reason })
  }
  let next = 0
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, read.resources.length) }, async () => {
    while (next < read.resources.length && !pass.stopped) await readOne(read.resources[next++] as OriginResource)
  }))
  if (pass.stopped) { report.error = `${source.url}: stopped (the catalog is shutting down)`; return }
  await pass.apply(items)
  const payTos = items.flatMap(({ read }) => read.ok ? [read.body.x402Config.paymentAddress] : [])
  await recordOwnership(deps.store, read, payTos, new Date().toISOString())
  const kept: string[] = []
  for (const { endpoint, method, reason } of silent) {
    const listing = await deps.store.findServiceByResource(endpoint, method)
    if (listing === null) pass.refuse(endpoint, `no valid x402 402 answer: ${reason}`)
    else kept.push(listing.id)
  }
  await pass.keep(kept)
  report.complete = true
}
