/** The MongoDB store's leases section: one holder at a time of a named job, across every process using the database. */
import { MongoServerError } from 'mongodb'
import type { LeaseStore } from '../catalog-store.js'
import { WRITE_CONCERN, type MongoConnection } from './connection.js'
import { toLong } from './mapping.js'
import { DUPLICATE_KEY } from './schema.js'

export class MongoLeases implements LeaseStore {
  readonly #connection: MongoConnection

  constructor (connection: MongoConnection) {
    this.#connection = connection
  }

  async acquireLease (name: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
    try {
      // Matches our own lease or an expired one; another holder's live lease matches nothing, and
      // the upsert then clashes on _id: not ours.
      await this.#connection.leases.updateOne(
        { _id: name, $or: [{ holder }, { expiresAt: { $lte: toLong(now, 'now') } }] },
        { $set: { holder, expiresAt: toLong(now + ttlMs, 'expiresAt') } },
        { upsert: true, writeConcern: WRITE_CONCERN }
      )
      return true
    } catch (err) {
      if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false
      throw err
    }
  }

  async releaseLease (name: string, holder: string): Promise<void> {
    await this.#connection.leases.deleteOne({ _id: name, holder }, { writeConcern: WRITE_CONCERN })
  }
}
