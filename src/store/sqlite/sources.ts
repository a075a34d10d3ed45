/** The SQLite store's sources section: the sources themselves and the provenance of each listing. */
import type { ProvenanceEntry, SourceKind, SourceRecord, SyncReport } from '../../domain/sources.js'
import { DuplicateSourceError } from '../../errors.js'
import type { SourceStore } from '../catalog-store.js'
import { NEXT_SEQ, type SqliteConnection } from './connection.js'

interface SourceRow { id: string, kind: string, url: string, created_at: string, last_sync: string | null, last_complete_at: string | null }

function fromRow (row: SourceRow): SourceRecord {
  return {
    id: row.id,
    kind: row.kind as SourceKind,
    url: row.url,
    createdAt: row.created_at,
    lastSync: row.last_sync === null ? null : JSON.parse(row.last_sync) as SyncReport,
    lastCompleteAt: row.last_complete_at
  }
}

/** Bound parameters per statement, well under SQLite's limit (32766). */
const CHUNK = 500

export class SqliteSources implements SourceStore {
  readonly #connection: SqliteConnection
  readonly #insert: (source: SourceRecord) => void
  readonly #delete: (id: string) => string[] | null
  readonly #add: (sourceId: string, serviceIds: readonly string[], at: string) => number
  readonly #remove: (sourceId: string, serviceIds: readonly string[]) => void

  constructor (connection: SqliteConnection) {
    this.#connection = connection
    // One seq per listing: NEXT_SEQ is read once per statement, so each row is its own UPDATE.
    const touch = (id: string): void => { connection.statement(`UPDATE services SET seq = ${NEXT_SEQ} WHERE id = ?`).run(id) }
    this.#insert = connection.writeTransaction((source: SourceRecord) => {
      const same = connection.statement('SELECT 1 FROM sources WHERE kind = ? AND url = ?').get(source.kind, source.url)
      if (same !== undefined) throw new DuplicateSourceError(source.kind, source.url)
      connection.statement('INSERT INTO sources (id, kind, url, created_at, last_sync, last_complete_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(source.id, source.kind, source.url, source.createdAt, source.lastSync === null ? null : JSON.stringify(source.lastSync), source.lastCompleteAt)
    })
    this.#delete = connection.writeTransaction((id: string): string[] | null => {
      if (connection.statement('SELECT 1 FROM sources WHERE id = ?').get(id) === undefined) return null
      const listed = connection.statement('SELECT service_id FROM service_sources WHERE source_id = ? ORDER BY service_id').pluck().all(id) as string[]
      connection.statement('DELETE FROM service_sources WHERE source_id = ?').run(id)
      connection.statement('DELETE FROM sources WHERE id = ?').run(id)
      for (const serviceId of listed) touch(serviceId)
      return listed
    })
    this.#add = connection.writeTransaction((sourceId: string, serviceIds: readonly string[], at: string): number => {
      let added = 0
      for (const serviceId of serviceIds) {
        const result = connection.statement('INSERT OR IGNORE INTO service_sources (source_id, service_id, first_seen_at) SELECT ?, id, ? FROM services WHERE id = ?').run(sourceId, at, serviceId)
        if (result.changes === 0) continue
        touch(serviceId)
        added++
      }
      return added
    })
    this.#remove = connection.writeTransaction((sourceId: string, serviceIds: readonly string[]) => {
      for (const serviceId of serviceIds) {
        if (connection.statement('DELETE FROM service_sources WHERE source_id = ? AND service_id = ?').run(sourceId, serviceId).changes > 0) touch(serviceId)
      }
    })
  }

  async insertSource (source: SourceRecord): Promise<void> {
    this.#insert(source)
  }

  async listSources (): Promise<SourceRecord[]> {
    return (this.#connection.statement('SELECT * FROM sources ORDER BY created_at, id').all() as SourceRow[]).map(fromRow)
  }

  async getSource (id: string): Promise<SourceRecord | null> {
    const row = this.#connection.statement('SELECT * FROM sources WHERE id = ?').get(id) as SourceRow | undefined
    return row === undefined ? null : fromRow(row)
  }

  async recordSourceSync (id: string, report: SyncReport, completeAt: string | null): Promise<boolean> {
    return this.#connection.statement('UPDATE sources SET last_sync = ?, last_complete_at = COALESCE(?, last_complete_at) WHERE id = ?')
      .run(JSON.stringify(report), completeAt, id).changes > 0
  }

  async deleteSource (id: string): Promise<string[] | null> {
    return this.#delete(id)
  }

  async addProvenance (sourceId: string, serviceIds: readonly string[], at: string): Promise<number> {
    return this.#add(sourceId, serviceIds, at)
  }

  async removeProvenance (sourceId: string, serviceIds: readonly string[]): Promise<void> {
    this.#remove(sourceId, serviceIds)
  }

  async servicesOfSource (sourceId: string): Promise<string[]> {
    return this.#connection.statement('SELECT service_id FROM service_sources WHERE source_id = ? ORDER BY service_id').pluck().all(sourceId) as string[]
  }

  async provenanceOf (serviceIds: readonly string[]): Promise<Map<string, ProvenanceEntry[]>> {
    const found = new Map<string, ProvenanceEntry[]>()
    for (let at = 0; at < serviceIds.length; at += CHUNK) {
      const chunk = serviceIds.slice(at, at + CHUNK)
      const rows = this.#connection.rawStatement(`SELECT service_id, source_id, first_seen_at FROM service_sources WHERE service_id IN (${chunk.map(() => '?').join(',')}) ORDER BY first_seen_at, source_id`)
        .all(...chunk) as Array<[string, string, string]>
      for (const [serviceId, sourceId, firstSeenAt] of rows) {
        const entries = found.get(serviceId) ?? []
        entries.push({ sourceId, firstSeenAt })
        found.set(serviceId, entries)
      }
    }
    return found
  }
}
