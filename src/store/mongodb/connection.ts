/**
 * What every section of the MongoDB store shares (src/store/mongodb/mongo-store.ts composes
 * them): the client and its database, the collections, transactions, and the change counter
 * every write that changes what search or export shows takes its sequence number from.
 *
 * The change feed is a counter, not a change stream. Each such write increments
 * `counters.services` in the same transaction as the document it changes and stamps the
 * document (or, for a deletion, its tombstone) with the new value. Two transactions that
 * both increment the counter conflict; the second retries after the first committed, so
 * sequence order is commit order. Why a counter rather than resume tokens:
 * docs/decisions.md, "The change feed and checkpoints".
 */
import { Long, type ClientSession, type Collection, type Db, type MongoClient } from 'mongodb'
import { StoreUnavailableError } from '../../errors.js'
import type {
  ApiKeyDocument, CheckpointDocument, CounterDocument, DisplacementDocument, LeaseDocument, OriginClaimDocument, PayToScanDocument, PaymentDocument,
  ProbeDocument, ServiceDocument, TombstoneDocument, TransferDocument
} from './mapping.js'
import { fromLong } from './mapping.js'
import { COLLECTIONS, SERVICE_COUNTER_ID, type OriginProofDocument, type ServiceSourceDocument, type SourceDocument } from './schema.js'

/** Majority-acknowledged and journaled: an acknowledged write survives a failover and a crash. */
export const WRITE_CONCERN = { w: 'majority', journal: true } as const

/** The URL without credentials, for messages. */
export function redactMongoUrl (url: string): string {
  return url.replace(/^(mongodb(?:\+srv)?:\/\/)[^@/]*@/, '$1***@')
}

/** A failure to reach or use the server, in one line naming it (without credentials) and MONGO_URL. */
export function unavailable (url: string, err: unknown): StoreUnavailableError {
  const reason = (err as Error).message.split('\n')[0] ?? String(err)
  return new StoreUnavailableError(`cannot use MongoDB at ${redactMongoUrl(url)} (MONGO_URL): ${reason}`, { cause: err })
}

export class MongoConnection {
  readonly client: MongoClient
  /** MONGO_URL as given (messages redact it). */
  readonly url: string
  readonly db: Db
  readonly services: Collection<ServiceDocument>
  readonly tombstones: Collection<TombstoneDocument>
  readonly apiKeys: Collection<ApiKeyDocument>
  readonly counters: Collection<CounterDocument>
  readonly probes: Collection<ProbeDocument>
  readonly leases: Collection<LeaseDocument>
  readonly displacements: Collection<DisplacementDocument>
  readonly claims: Collection<OriginClaimDocument>
  readonly transfers: Collection<TransferDocument>
  readonly payments: Collection<PaymentDocument>
  readonly checkpoints: Collection<CheckpointDocument>
  readonly payTos: Collection<PayToScanDocument>
  readonly sources: Collection<SourceDocument>
  readonly serviceSources: Collection<ServiceSourceDocument>
  readonly originProofs: Collection<OriginProofDocument>

  constructor (client: MongoClient, url: string) {
    this.client = client
    this.url = url
    const db = client.db()
    this.db = db
    this.services = db.collection(COLLECTIONS.services)
    this.tombstones = db.collection(COLLECTIONS.tombstones)
    this.apiKeys = db.collection(COLLECTIONS.apiKeys)
    this.counters = db.collection(COLLECTIONS.counters)
    this.probes = db.collection(COLLECTIONS.probes)
    this.leases = db.collection(COLLECTIONS.leases)
    this.displacements = db.collection(COLLECTIONS.displacements)
    this.claims = db.collection(COLLECTIONS.originClaims)
    this.transfers = db.collection(COLLECTIONS.transfers)
    this.payments = db.collection(COLLECTIONS.payments)
    this.checkpoints = db.collection(COLLECTIONS.chainCheckpoints)
    this.payTos = db.collection(COLLECTIONS.chainPayTos)
    this.sources = db.collection(COLLECTIONS.sources)
    this.serviceSources = db.collection(COLLECTIONS.serviceSources)
    this.originProofs = db.collection(COLLECTIONS.originProofs)
  }

  /** Runs `work` as one majority-committed transaction on a snapshot (retried by the driver on a transient error or a conflict). */
  async transaction<T> (work: (session: ClientSession) => Promise<T>): Promise<T> {
    const session = this.client.startSession()
    try {
      return await session.withTransaction(work, { writeConcern: WRITE_CONCERN, readConcern: { level: 'snapshot' } })
    } finally {
      await session.endSession()
    }
  }

  /** Reserves `count` sequence numbers of the change feed in the transaction; returns the first. */
  async reserve (session: ClientSession, count: number): Promise<number> {
    const counter = await this.counters.findOneAndUpdate(
      { _id: SERVICE_COUNTER_ID },
      { $inc: { seq: Long.fromNumber(count) } },
      { session, upsert: true, returnDocument: 'after' }
    )
    if (counter === null) throw new StoreUnavailableError('MongoDB did not return the change counter')
    return fromLong(counter.seq, 'seq') - count + 1
  }

  /** The highest sequence number handed out so far (0 for a store never written to). */
  async latestSeq (): Promise<number> {
    const counter = await this.counters.findOne({ _id: SERVICE_COUNTER_ID })
    return counter === null ? 0 : fromLong(counter.seq, 'seq')
  }
}
