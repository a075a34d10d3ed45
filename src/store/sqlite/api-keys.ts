/** The SQLite store's API keys section: their hashes, never the keys. */
import type { ApiKeyRecord, ApiKeyStore } from '../catalog-store.js'
import type { SqliteConnection } from './connection.js'
import { fromKeyRow, type ApiKeyRow } from './mapping.js'

export class SqliteApiKeys implements ApiKeyStore {
  readonly #connection: SqliteConnection

  constructor (connection: SqliteConnection) {
    this.#connection = connection
  }

  async insertApiKey (key: ApiKeyRecord): Promise<void> {
    this.#connection.statement('INSERT INTO api_keys (id, name, hash, created_at, revoked_at) VALUES (?, ?, ?, ?, ?)')
      .run(key.id, key.name, key.hash, key.createdAt, key.revokedAt)
  }

  async listApiKeys (): Promise<ApiKeyRecord[]> {
    return (this.#connection.statement('SELECT * FROM api_keys ORDER BY created_at, id').all() as ApiKeyRow[]).map(fromKeyRow)
  }

  async revokeApiKey (id: string, at: string): Promise<boolean> {
    return this.#connection.statement('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id).changes === 1
  }

  async findActiveApiKeyByHash (hash: string): Promise<ApiKeyRecord | null> {
    const row = this.#connection.statement('SELECT * FROM api_keys WHERE hash = ? AND revoked_at IS NULL').get(hash) as ApiKeyRow | undefined
    return row === undefined ? null : fromKeyRow(row)
  }
}
