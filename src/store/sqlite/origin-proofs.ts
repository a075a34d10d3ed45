/** The SQLite store's ownership proofs section: which payTo wallets proved each origin (src/domain/ownership-proof.ts). */
import { mergedProofs, type OriginProof } from '../../domain/ownership-proof.js'
import type { OriginProofStore } from '../catalog-store.js'
import { NEXT_SEQ, type SqliteConnection } from './connection.js'

/** Bound parameters per statement, well under SQLite's limit (32766). */
const CHUNK = 500

export class SqliteOriginProofs implements OriginProofStore {
  readonly #connection: SqliteConnection
  readonly #record: (origin: string, proofs: readonly OriginProof[]) => void

  constructor (connection: SqliteConnection) {
    this.#connection = connection
    this.#record = connection.writeTransaction((origin: string, fresh: readonly OriginProof[]) => {
      const stored = connection.rawStatement('SELECT address, document, checked_at FROM origin_proofs WHERE origin = ?').all(origin) as Array<[string, string, string]>
      const { proofs, changed } = mergedProofs(stored.map(([address, document, checkedAt]) => ({ address, document, checkedAt })), fresh)
      if (!changed) return
      connection.statement('DELETE FROM origin_proofs WHERE origin = ?').run(origin)
      for (const proof of proofs) {
        connection.statement('INSERT OR REPLACE INTO origin_proofs (origin, address, document, checked_at) VALUES (?, ?, ?, ?)').run(origin, proof.address, proof.document, proof.checkedAt)
      }
      // A listing's detail shows its origin's proof: each listing of the origin is a change (one seq each, as NEXT_SEQ is read per statement).
      const listings = connection.statement('SELECT id FROM services WHERE origin = ? ORDER BY id').pluck().all(origin) as string[]
      for (const id of listings) connection.statement(`UPDATE services SET seq = ${NEXT_SEQ} WHERE id = ?`).run(id)
    })
  }

  async recordOriginProofs (origin: string, proofs: readonly OriginProof[]): Promise<void> {
    this.#record(origin, proofs)
  }

  async originProofs (origins: readonly string[]): Promise<Map<string, OriginProof[]>> {
    const found = new Map<string, OriginProof[]>()
    for (let at = 0; at < origins.length; at += CHUNK) {
      const chunk = origins.slice(at, at + CHUNK)
      const rows = this.#connection.rawStatement(`SELECT origin, address, document, checked_at FROM origin_proofs WHERE origin IN (${chunk.map(() => '?').join(',')}) ORDER BY origin, address`)
        .all(...chunk) as Array<[string, string, string, string]>
      for (const [origin, address, document, checkedAt] of rows) {
        const proofs = found.get(origin) ?? []
        proofs.push({ address, document, checkedAt })
        found.set(origin, proofs)
      }
    }
    return found
  }
}
