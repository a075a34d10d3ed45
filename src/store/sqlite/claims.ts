/** The SQLite store's claims section: proofs of control of an origin, and the transfers a proof makes. */
import { applyOriginClaim, type OriginClaim, type ServiceTransfer } from '../../domain/claims.js'
import { originOf } from '../../domain/endpoint-url.js'
import type { ServiceRecord } from '../../domain/service.js'
import type { ClaimStore } from '../catalog-store.js'
import type { SqliteConnection } from './connection.js'
import { RECORD_COLUMNS, fromClaimRow, fromTransferRow, fromValues, type ClaimRow, type RecordValues, type TransferRow } from './mapping.js'

export function provenClaimOf (connection: SqliteConnection, origin: string): OriginClaim | null {
  const row = connection.statement('SELECT * FROM origin_claims WHERE origin = ? AND proven_at IS NOT NULL ORDER BY proven_at DESC LIMIT 1').get(origin) as ClaimRow | undefined
  return row === undefined ? null : fromClaimRow(row)
}

/**
 * `record` as the origin's proven claim lets it be written (applyOriginClaim), read in the
 * caller's write transaction: a proof commits wholly before or after it, never between.
 */
export function underOriginClaim (connection: SqliteConnection, record: ServiceRecord): ServiceRecord {
  return applyOriginClaim(record, provenClaimOf(connection, originOf(record.endpoint)))
}

/**
 * Rewrites a listing as a new change: the services section's update (src/store/sqlite/services.ts,
 * which reads the proven claims here), passed in by the store.
 */
export type RewriteListing = (record: ServiceRecord) => boolean

export class SqliteClaims implements ClaimStore {
  readonly #connection: SqliteConnection
  readonly #proveClaim: (origin: string, ownerId: string, at: string, reason: string) => ServiceRecord[] | null

  constructor (connection: SqliteConnection, rewrite: RewriteListing) {
    this.#connection = connection
    this.#proveClaim = connection.writeTransaction((origin: string, ownerId: string, at: string, reason: string): ServiceRecord[] | null => {
      if (connection.statement('UPDATE origin_claims SET proven_at = ? WHERE origin = ? AND owner_id = ?').run(at, origin, ownerId).changes === 0) return null
      // One proven owner per origin: the newest proof (a domain changes hands).
      connection.statement('UPDATE origin_claims SET proven_at = NULL WHERE origin = ? AND owner_id != ?').run(origin, ownerId)
      const rows = connection.rawStatement(`SELECT ${RECORD_COLUMNS} FROM services WHERE origin = ? ORDER BY id`).all(origin) as RecordValues[]
      const moved: ServiceRecord[] = []
      for (const record of rows.map((row) => fromValues(row))) {
        if (record.ownerId === ownerId && record.claimed) continue
        rewrite({ ...record, ownerId, claimed: true, updatedAt: at })
        if (record.ownerId === ownerId) continue
        connection.statement('INSERT INTO service_transfers (service_id, from_owner_id, to_owner_id, origin, reason, at) VALUES (?, ?, ?, ?, ?, ?)')
          .run(record.id, record.ownerId, ownerId, origin, reason, at)
        moved.push(record)
      }
      return moved
    })
  }

  async issueClaim (claim: OriginClaim): Promise<OriginClaim> {
    this.#connection.statement('INSERT OR IGNORE INTO origin_claims (origin, owner_id, token, created_at, proven_at) VALUES (?, ?, ?, ?, ?)')
      .run(claim.origin, claim.ownerId, claim.token, claim.createdAt, claim.provenAt)
    return await this.getClaim(claim.origin, claim.ownerId) as OriginClaim
  }

  async getClaim (origin: string, ownerId: string): Promise<OriginClaim | null> {
    const row = this.#connection.statement('SELECT * FROM origin_claims WHERE origin = ? AND owner_id = ?').get(origin, ownerId) as ClaimRow | undefined
    return row === undefined ? null : fromClaimRow(row)
  }

  async provenClaim (origin: string): Promise<OriginClaim | null> {
    return provenClaimOf(this.#connection, origin)
  }

  async proveClaim (origin: string, ownerId: string, at: string, reason: string): Promise<ServiceRecord[] | null> {
    return this.#proveClaim(origin, ownerId, at, reason)
  }

  async getTransfer (serviceId: string): Promise<ServiceTransfer | null> {
    const row = this.#connection.statement('SELECT * FROM service_transfers WHERE service_id = ? ORDER BY at DESC, rowid DESC LIMIT 1').get(serviceId) as TransferRow | undefined
    return row === undefined ? null : fromTransferRow(row)
  }
}
