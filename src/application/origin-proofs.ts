/**
 * An origin's ownership proofs (src/domain/ownership-proof.ts), checked when the catalog reads
 * its documents (origin import, an `origin` source's pass): each proof of the document read
 * against the payTos of the resources listed from it, the valid ones recorded for the origin
 * (replacing what an earlier read recorded, so a document that drops its proof loses it). A
 * proof is shown, never a transfer: listings stay with their owners.
 */
import { originOf } from '../domain/endpoint-url.js'
import { proofFor, provenPayTos, type OriginProof } from '../domain/ownership-proof.js'
import type { ServiceRecord } from '../domain/service.js'
import type { OriginProofStore } from '../store/catalog-store.js'

/** What a read found: how many proofs the document carries, and the payTos they proved. */
export interface OriginOwnership { proofs: number, proven: string[] }

/** `read` is an origin's document as readOriginDocuments (./import-origin.ts) read it. */
export async function recordOwnership (store: OriginProofStore, read: { origin: string, document: string, ownershipProofs: readonly string[] }, payTos: readonly string[], at: string): Promise<OriginOwnership> {
  const proven = await provenPayTos(read.origin, read.ownershipProofs, payTos)
  await store.recordOriginProofs(read.origin, proven.map((address) => ({ address, document: read.document, checkedAt: at })))
  return { proofs: read.ownershipProofs.length, proven }
}

/** The proof a listing's detail shows: its origin's, by its own payTo; null when none. One read, for the detail only. */
export async function listingProof (store: OriginProofStore, record: ServiceRecord): Promise<OriginProof | null> {
  const origin = originOf(record.endpoint)
  return proofFor((await store.originProofs([origin])).get(origin) ?? [], record.paymentAddress)
}
