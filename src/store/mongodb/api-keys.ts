/** The MongoDB store's API keys section: their hashes, never the keys. */
import type { ApiKeyRecord, ApiKeyStore } from '../catalog-store.js'
import type { MongoConnection } from './connection.js'
import { fromApiKeyDocument, toApiKeyDocument } from './mapping.js'

export class MongoApiKeys implements ApiKeyStore {
  readonly #connection: MongoConnection

  constructor (connection: MongoConnection) {
    this.#connection = connection
  }

  async insertApiKey (key: ApiKeyRecord): Promise<void> {
    await this.#connection.apiKeys.insertOne(toApiKeyDocument(key))
  }

  async listApiKeys (): Promise<ApiKeyRecord[]> {
    return (await this.#connection.apiKeys.find({}).sort({ createdAt: 1, _id: 1 }).toArray()).map(fromApiKeyDocument)
  }

  async revokeApiKey (id: string, at: string): Promise<boolean> {
    const result = await this.#connection.apiKeys.updateOne({ _id: { $eq: id }, revokedAt: null }, { $set: { revokedAt: new Date(at) } })
    return result.modifiedCount === 1
  }

  async findActiveApiKeyByHash (hash: string): Promise<ApiKeyRecord | null> {
    const doc = await this.#connection.apiKeys.findOne({ hash: { $eq: hash }, revokedAt: null })
    return doc === null ? null : fromApiKeyDocument(doc)
  }
}
