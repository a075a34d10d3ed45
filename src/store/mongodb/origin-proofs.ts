/**
 * The MongoDB store's ownership proofs section: which payTo wallets proved each origin
 * (src/domain/ownership-proof.ts), one `origin_proofs` document per origin and address. A
 * change of an origin's set is one transaction that also gives each listing of the origin a
 * new change-feed sequence (connection.ts, reserve): its detail shows the proof.
 */
import { mergedProofs, type OriginProof } from '../../domain/ownership-proof.js'
import type { OriginProofStore } from '../catalog-store.js'
import type { MongoConnection } from './connection.js'
import { toDate, toLong } from './mapping.js'
import type { OriginProofDocument } from './schema.js'

export function toOriginProofDocument (origin: string, proof: OriginProof): OriginProofDocument {
  return { origin, address: proof.address, document: proof.document, checkedAt: toDate(proof.checkedAt, 'checkedAt') }
}

export function fromOriginProofDocument (doc: OriginProofDocument): OriginProof {
  return { address: doc.address, document: doc.document, checkedAt: doc.checkedAt.toISOString() }
}

export class MongoOriginProofs implements OriginProofStore {
  readonly #connection: MongoConnection

  constructor (connection: MongoConnection) {
    this.#connection = connection
  }

  async recordOriginProofs (origin: string, fresh: readonly OriginProof[]): Promise<void> {
    await this.#connection.transaction(async (session) => {
      const stored = await this.#connection.originProofs.find({ origin: { $eq: origin } }, { session }).toArray()
      const { proofs, changed } = mergedProofs(stored.map(fromOriginProofDocument), fresh)
      if (!changed) return
      await this.#connection.originProofs.deleteMany({ origin: { $eq: origin } }, { session })
      if (proofs.length > 0) await this.#connection.originProofs.insertMany(proofs.map((proof) => toOriginProofDocument(origin, proof)), { session })
      // '0' follows '/' in code point order: the range is exactly the endpoints under `origin/`.
      const listings = await this.#connection.services.find({ endpoint: { $gte: `${origin}/`, $lt: `${origin}0` } }, { session, projection: { _id: 1 } }).sort({ _id: 1 }).toArray()
      // Reserved also with no listing: two writers of one origin conflict on the counter, and the second retries.
      const first = await this.#connection.reserve(session, Math.max(1, listings.length))
      if (listings.length === 0) return
      await this.#connection.services.bulkWrite(listings.map(({ _id }, i) => ({
        updateOne: { filter: { _id: { $eq: _id } }, update: { $set: { seq: toLong(first + i, 'seq') } } }
      })), { session, ordered: true })
    })
  }

  async originProofs (origins: readonly string[]): Promise<Map<string, OriginProof[]>> {
    const found = new Map<string, OriginProof[]>()
    if (origins.length === 0) return found
    const docs = await this.#connection.originProofs.find({ origin: { $in: [...origins] } }).sort({ origin: 1, address: 1 }).toArray()
    for (const doc of docs) {
      const proofs = found.get(doc.origin) ?? []
      proofs.push(fromOriginProofDocument(doc))
      found.set(doc.origin, proofs)
    }
    return found
  }
}
