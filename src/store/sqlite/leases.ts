/** The SQLite store's leases section: one holder at a time of a named job, across the processes sharing the file. */
import type { LeaseStore } from '../catalog-store.js'
import type { SqliteConnection } from './connection.js'

export class SqliteLeases implements LeaseStore {
  readonly #connection: SqliteConnection
  readonly #acquireLease: (name: string, holder: string, ttlMs: number, now: number) => boolean

  constructor (connection: SqliteConnection) {
    this.#connection = connection
    this.#acquireLease = connection.writeTransaction((name: string, holder: string, ttlMs: number, now: number): boolean => {
      const current = connection.statement('SELECT holder, expires_at FROM leases WHERE name = ?').get(name) as { holder: string, expires_at: number } | undefined
      if (current !== undefined && current.holder !== holder && current.expires_at > now) return false
      connection.statement('INSERT OR REPLACE INTO leases (name, holder, expires_at) VALUES (?, ?, ?)').run(name, holder, now + ttlMs)
      return true
    })
  }

  async acquireLease (name: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
    return this.#acquireLease(name, holder, ttlMs, now)
  }

  async releaseLease (name: string, holder: string): Promise<void> {
    this.#connection.statement('DELETE FROM leases WHERE name = ? AND holder = ?').run(name, holder)
  }
}
