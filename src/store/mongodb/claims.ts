/** The MongoDB store's claims section: proofs of control of an origin (src/domain/claims.ts), and the transfers they make. */
import type { ClientSession } from 'mongodb'
import { applyOriginClaim, type OriginClaim, type ServiceTransfer } from '../../domain/claims.js'
import { originOf } from '../../domain/endpoint-url.js'
import type { ServiceRecord } from '../../domain/service.js'
import type { ClaimStore } from '../catalog-store.js'
import { WRITE_CONCERN, type MongoConnection } from './connection.js'
import { fromOriginClaimDocument, fromServiceDocument, fromTransferDocument, toDate, toLong } from './mapping.js'

/**
 * `records` as their origins' proven claims let them be written (applyOriginClaim), read in
 * the write's transaction. Every listing write also increments the change counter, and so
 * does every proof (proveClaim), so a proof and a write that overlap conflict and one of them
 * retries after the other committed: a proof lands wholly before or after the write.
 */
export async function underOriginClaims (connection: MongoConnection, session: ClientSession, records: readonly ServiceRecord[]): Promise<ServiceRecord[]> {
  const origins = [...new Set(records.map((record) => originOf(record.endpoint)))]
  const docs = await connection.claims.find({ origin: { $in: origins }, provenAt: { $ne: null } }, { session, sort: { provenAt: 1 } }).toArray()
  // Newest proof last, so it is the one kept per origin.
  const proven = new Map(docs.map((doc) => [doc.origin, fromOriginClaimDocument(doc)]))
  return records.map((record) => applyOriginClaim(record, proven.get(originOf(record.endpoint)) ?? null))
}

export class MongoClaims implements ClaimStore {
  readonly #connection: MongoConnection

  constructor (connection: MongoConnection) {
    this.#connection = connection
  }

  async issueClaim (claim: OriginClaim): Promise<OriginClaim> {
    const _id = `${claim.ownerId} ${claim.origin}`
    await this.#connection.claims.updateOne({ _id: { $eq: _id } }, {
      $setOnInsert: { origin: claim.origin, ownerId: claim.ownerId, token: claim.token, createdAt: toDate(claim.createdAt, 'createdAt'), provenAt: claim.provenAt === null ? null : toDate(claim.provenAt, 'provenAt') }
    }, { upsert: true, writeConcern: WRITE_CONCERN })
    return await this.getClaim(claim.origin, claim.ownerId) as OriginClaim
  }

  async getClaim (origin: string, ownerId: string): Promise<OriginClaim | null> {
    const doc = await this.#connection.claims.findOne({ _id: { $eq: `${ownerId} ${origin}` } })
    return doc === null ? null : fromOriginClaimDocument(doc)
  }

  async provenClaim (origin: string): Promise<OriginClaim | null> {
    const doc = await this.#connection.claims.findOne({ origin: { $eq: origin }, provenAt: { $ne: null } }, { sort: { provenAt: -1 } })
    return doc === null ? null : fromOriginClaimDocument(doc)
  }

  async proveClaim (origin: string, ownerId: string, at: string, reason: string): Promise<ServiceRecord[] | null> {
    const when = toDate(at, 'at')
    const { claims, services, transfers } = this.#connection
    return await this.#connection.transaction(async (session) => {
      const proven = await claims.updateOne({ _id: { $eq: `${ownerId} ${origin}` } }, { $set: { provenAt: when } }, { session })
      if (proven.matchedCount === 0) return null
      // One proven owner per origin: the newest proof (a domain changes hands).
      await claims.updateMany({ origin: { $eq: origin }, ownerId: { $ne: ownerId } }, { $set: { provenAt: null } }, { session })
      const docs = await services.find({ origin: { $eq: origin }, $or: [{ ownerId: { $ne: ownerId } }, { claimed: { $ne: true } }] }, { session, sort: { _id: 1 } }).toArray()
      // At least one number, also with nothing to move: the counter write is what makes a
      // listing write of this origin running meanwhile conflict with the proof (underOriginClaims).
      const first = await this.#connection.reserve(session, Math.max(1, docs.length))
      const moved: ServiceRecord[] = []
      for (const [i, doc] of docs.entries()) {
        await services.updateOne({ _id: { $eq: doc._id } }, { $set: { ownerId, claimed: true, updatedAt: when, seq: toLong(first + i, 'seq') } }, { session })
        if (doc.ownerId === ownerId) continue
        await transfers.insertOne({ serviceId: doc._id, fromOwnerId: doc.ownerId, toOwnerId: ownerId, origin, reason, at: when }, { session })
        moved.push(fromServiceDocument(doc))
      }
      return moved
    })
  }

  async getTransfer (serviceId: string): Promise<ServiceTransfer | null> {
    const doc = await this.#connection.transfers.findOne({ serviceId: { $eq: serviceId } }, { sort: { at: -1, _id: -1 } })
    return doc === null ? null : fromTransferDocument(doc)
  }
}
