/**
 * CatalogStore on MongoDB (official driver). Needs a replica set (a single node is enough):
 * every write is a transaction acknowledged by a majority and journaled, so when the API
 * answers 201 the service survives a crash of the server or of this process. The change
 * feed is a counter incremented in each write's transaction (connection.ts says why).
 *
 * One section of the port per file, as the port is laid out (src/store/catalog-store.ts):
 * services.ts, feed.ts, claims.ts, api-keys.ts, probes.ts, leases.ts, payments.ts, sources.ts,
 * origin-proofs.ts, each
 * on the connection they share (connection.ts). This class opens the database, checks its
 * layout (schema.ts); SectionedStore (src/store/sectioned-store.ts) hands each method to
 * its section.
 */
import { MongoClient } from 'mongodb'
import { StoreUnavailableError } from '../../errors.js'
import { SectionedStore } from '../sectioned-store.js'
import { MongoApiKeys } from './api-keys.js'
import { MongoClaims } from './claims.js'
import { MongoConnection, WRITE_CONCERN, unavailable } from './connection.js'
import { MongoFeed } from './feed.js'
import { MongoLeases } from './leases.js'
import { MongoOriginProofs } from './origin-proofs.js'
import { MongoPayments } from './payments.js'
import { MongoProbes } from './probes.js'
import { MongoStoreLayoutError, setUpLayout } from './schema.js'
import { MongoServices } from './services.js'
import { MongoSources } from './sources.js'

export interface MongoStoreOptions {
  /** How long an operation waits for a usable server before failing (start, /health). */
  serverSelectionTimeoutMS?: number
}

export class MongoCatalogStore extends SectionedStore {
  readonly #connection: MongoConnection

  private constructor (client: MongoClient, url: string) {
    const connection = new MongoConnection(client, url)
    super({
      services: new MongoServices(connection),
      feed: new MongoFeed(connection),
      claims: new MongoClaims(connection),
      apiKeys: new MongoApiKeys(connection),
      probes: new MongoProbes(connection),
      leases: new MongoLeases(connection),
      payments: new MongoPayments(connection),
      sources: new MongoSources(connection),
      originProofs: new MongoOriginProofs(connection)
    })
    this.#connection = connection
  }

  /**
   * Connects, checks the server can run transactions, and sets up the database's layout
   * (schema.ts, setUpLayout: a new database gets it, one of this layout gets its validators
   * and indexes again). Fails with StoreUnavailableError naming the server and MONGO_URL, or
   * with MongoStoreLayoutError, the database left as it was, when another build made it.
   */
  static async open (url: string, options: MongoStoreOptions = {}): Promise<MongoCatalogStore> {
    const timeout = options.serverSelectionTimeoutMS ?? 5000
    let client: MongoClient
    try {
      client = new MongoClient(url, {
        serverSelectionTimeoutMS: timeout,
        connectTimeoutMS: timeout,
        writeConcern: WRITE_CONCERN,
        // Reads see only majority-committed data: the indexer never mirrors a write a failover could roll back.
        readConcern: { level: 'majority' },
        appName: 'x402-catalog'
      })
      await client.connect()
    } catch (err) {
      throw unavailable(url, err)
    }
    try {
      const hello = await client.db('admin').command({ hello: 1 })
      if (hello.setName === undefined && hello.msg !== 'isdbgrid') {
        throw new StoreUnavailableError('it is a standalone server; the catalog needs a replica set for transactions (start mongod with --replSet and run rs.initiate())')
      }
      await setUpLayout(client.db())
    } catch (err) {
      await client.close().catch(() => {})
      // Already one line saying what to do (re-seed or re-import into an empty database).
      if (err instanceof MongoStoreLayoutError) throw err
      throw unavailable(url, err)
    }
    return new MongoCatalogStore(client, url)
  }

  async ping (): Promise<void> {
    try {
      await this.#connection.db.command({ ping: 1 })
    } catch (err) {
      throw unavailable(this.#connection.url, err)
    }
  }

  async close (): Promise<void> {
    await this.#connection.client.close()
  }
}
