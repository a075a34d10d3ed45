/**
 * MongoDB layout of the catalog: collection names, `$jsonSchema` validators and indexes, and
 * the layout marker (`store_meta`, STORE_LAYOUT) that says a database was made by this
 * build's layout. A database made by another layout is refused, never converted: no release
 * was made before this one, so there is no earlier layout to bring forward (the data is
 * re-seeded or re-imported).
 *
 * Validators make the database refuse what the mapping would never write (a float price, a
 * missing endpoint), so a bug or a hand-made write cannot slip a bad document past the domain
 * rules. Money and counters are `long` (Int64): a JS number would be stored as a double.
 */
import { Long, MongoServerError, type Db, type Document, type IndexDescription, type ObjectId } from 'mongodb'
import { CatalogError } from '../../errors.js'
import { HTTP_METHODS } from '../../domain/http-method.js'
import { SOURCE_KINDS, type SourceKind, type SourceRefusal } from '../../domain/sources.js'
import { SERVICE_STATUSES } from '../../domain/trust.js'
import type { ExtensionKey } from '../../domain/catalog-query.js'
import type { CounterDocument } from './mapping.js'

/** The layout this build creates and reads; raised whenever a collection, the fields of its documents or its indexes change. */
export const STORE_LAYOUT = 3

export const COLLECTIONS = {
  services: 'services',
  /** One document per deleted service: its id and the change sequence of the deletion. */
  tombstones: 'service_tombstones',
  apiKeys: 'api_keys',
  /** `{_id: 'services', seq}`: the change feed's counter. */
  counters: 'counters',
  /** Recent probes of each service (at most PROBE_HISTORY_LIMIT per service). */
  probes: 'probes',
  /** `{_id: name, holder, expiresAt}`: one prober per store. */
  leases: 'leases',
  /** `{_id: displaced service id, displacedBy, endpoint, ownerId, reason, at}`: why a listing was taken over. */
  displacements: 'service_displacements',
  /** `{_id: "<ownerId> <origin>", origin, ownerId, token, createdAt, provenAt}`: claims of origins (src/domain/claims.ts). */
  originClaims: 'origin_claims',
  /** `{serviceId, fromOwnerId, toOwnerId, origin, reason, at}`: listings moved to an origin's proven owner. */
  transfers: 'service_transfers',
  /** On-chain x402 settlements (PaymentRecord), unique on (network, txHash, logIndex). */
  payments: 'payments',
  /** The chain watcher's scanned blocks per network, at most CHAIN_CHECKPOINT_HISTORY each. */
  chainCheckpoints: 'chain_checkpoints',
  /** The block through which each watched payTo has been scanned, per network. */
  chainPayTos: 'chain_pay_tos',
  /** `{_id, kind, url, createdAt, lastSync, lastCompleteAt}`: the lists the catalog mirrors (src/domain/sources.ts), unique on (kind, url). */
  sources: 'sources',
  /** `{sourceId, serviceId, firstSeenAt}`: which listings each source lists (provenance), unique on (sourceId, serviceId). */
  serviceSources: 'service_sources',
  /** `{origin, address, document, checkedAt}`: the payTo wallets that proved each origin (src/domain/ownership-proof.ts), unique on (origin, address). */
  originProofs: 'origin_proofs',
  /** `{_id: 'layout', version}`: the layout the database was made by (STORE_LAYOUT). */
  storeMeta: 'store_meta'
} as const

export const SERVICE_COUNTER_ID = 'services'

const string = { bsonType: 'string' }
const long = { bsonType: 'long', minimum: 0 }
const date = { bsonType: 'date' }
// Revenue can exceed what an Int64 of atomic units holds: an exact decimal (34 digits).
const decimal = { bsonType: 'decimal' }
// Transaction and block hashes: strings as the watcher gives them (the SQLite store does not check their form either).
const hash = string

/** ServiceUsage on a service document; null before the first measurement. */
const USAGE_SCHEMA: Document = {
  // `required`, `properties` and `additionalProperties` apply to an object only: null passes them.
  bsonType: ['object', 'null'],
  required: ['txCount', 'revenueAtomic', 'uniquePayers', 'lastPaymentAt', 'txCount30d', 'revenue30dAtomic', 'uniquePayers30d', 'scope', 'computedAt'],
  additionalProperties: false,
  properties: {
    txCount: long,
    revenueAtomic: decimal,
    uniquePayers: long,
    lastPaymentAt: { bsonType: ['date', 'null'] },
    txCount30d: long,
    revenue30dAtomic: decimal,
    uniquePayers30d: long,
    scope: { enum: ['service', 'shared'] },
    computedAt: date
  }
}

export const SERVICE_VALIDATOR: Document = {
  $jsonSchema: {
    bsonType: 'object',
    required: ['_id', 'seq', 'name', 'nameSort', 'description', 'endpoint', 'origin', 'resource', 'method', 'category', 'currency', 'priceAtomic',
      'freeQuota', 'paymentAddress', 'payToKey', 'network', 'supportedChains', 'status', 'trustScore', 'uptimeScore', 'lastChecked',
      'usage', 'paymentRequirements', 'ownerId', 'claimed', 'tags', 'prefill', 'createdAt', 'updatedAt', 'nextProbeAt'],
    additionalProperties: false,
    properties: {
      _id: { bsonType: 'string', pattern: '^svc_' },
      seq: long,
      name: string,
      nameSort: string,
      description: string,
      endpoint: string,
      // originOf(endpoint) (src/domain/endpoint-url.ts): what a proof of the origin finds its listings by.
      origin: string,
      resource: string,
      method: { enum: [...HTTP_METHODS] },
      category: string,
      currency: string,
      priceAtomic: long,
      freeQuota: long,
      paymentAddress: string,
      // payToKey(paymentAddress): what payTo filters and the chain watcher's lookups compare.
      payToKey: string,
      network: string,
      supportedChains: { bsonType: 'array', minItems: 1, items: string },
      status: { enum: [...SERVICE_STATUSES] },
      trustScore: { bsonType: 'int', minimum: 0, maximum: 100 },
      uptimeScore: { bsonType: ['double', 'int', 'null'], minimum: 0, maximum: 100 },
      lastChecked: { bsonType: ['date', 'null'] },
      usage: USAGE_SCHEMA,
      // The accepts of the last matching probe, as the endpoint sent them (free-form x402 objects).
      paymentRequirements: { bsonType: ['array', 'null'], items: { bsonType: 'object' } },
      ownerId: { bsonType: ['string', 'null'] },
      claimed: { bsonType: 'bool' },
      // Optional: absent while none is declared (a probe declaring none $unsets it). JSON text: a
      // declared JSON Schema has \$-prefixed keys (\$schema, \$ref) that update operators refuse.
      callSchema: { bsonType: 'string', maxLength: 64 * 1024 },
      bazaarExtension: { bsonType: 'string', maxLength: 64 * 1024 },
      tags: { bsonType: 'array', maxItems: 5, items: string },
      prefill: { bsonType: ['object', 'null'] },
      createdAt: date,
      updatedAt: date,
      // Null: due now (never probed since registration or an update, or asked for).
      nextProbeAt: { bsonType: ['date', 'null'] }
    }
  }
}

export const PROBE_VALIDATOR: Document = {
  $jsonSchema: {
    bsonType: 'object',
    required: ['_id', 'serviceId', 'at', 'checkedAt', 'httpStatus', 'x402Version', 'latencyMs', 'answered402', 'matched', 'reason', 'accepts'],
    additionalProperties: false,
    properties: {
      _id: { bsonType: 'objectId' },
      serviceId: string,
      // Insertion order within a service (ObjectIds from several processes need not be ordered).
      at: long,
      checkedAt: date,
      httpStatus: { bsonType: ['int', 'null'] },
      x402Version: { bsonType: ['int', 'null'] },
      latencyMs: { bsonType: ['int', 'double', 'null'] },
      answered402: { bsonType: 'bool' },
      matched: { bsonType: 'bool' },
      reason: string,
      accepts: { bsonType: ['array', 'null'], items: { bsonType: 'object' } }
    }
  }
}

export const LEASE_VALIDATOR: Document = {
  $jsonSchema: {
    bsonType: 'object',
    required: ['_id', 'holder', 'expiresAt'],
    additionalProperties: false,
    properties: { _id: string, holder: string, expiresAt: long }
  }
}

export const TOMBSTONE_VALIDATOR: Document = {
  $jsonSchema: {
    bsonType: 'object',
    required: ['_id', 'seq', 'deletedAt'],
    additionalProperties: false,
    properties: { _id: string, seq: long, deletedAt: date }
  }
}

export const API_KEY_VALIDATOR: Document = {
  $jsonSchema: {
    bsonType: 'object',
    required: ['_id', 'name', 'hash', 'createdAt', 'revokedAt'],
    additionalProperties: false,
    properties: {
      _id: string,
      name: string,
      // Only the sha256 of a key is ever stored.
      hash: { bsonType: 'string', pattern: '^[0-9a-f]{64}$' },
      createdAt: date,
      revokedAt: { bsonType: ['date', 'null'] }
    }
  }
}

export const DISPLACEMENT_VALIDATOR: Document = {
  $jsonSchema: {
    bsonType: 'object',
    required: ['_id', 'displacedBy', 'endpoint', 'ownerId', 'reason', 'at'],
    additionalProperties: false,
    properties: { _id: string, displacedBy: string, endpoint: string, ownerId: { bsonType: ['string', 'null'] }, reason: string, at: date }
  }
}

export const ORIGIN_CLAIM_VALIDATOR: Document = {
  $jsonSchema: {
    bsonType: 'object',
    required: ['_id', 'origin', 'ownerId', 'token', 'createdAt', 'provenAt'],
    additionalProperties: false,
    properties: { _id: string, origin: string, ownerId: string, token: string, createdAt: date, provenAt: { bsonType: ['date', 'null'] } }
  }
}

export const TRANSFER_VALIDATOR: Document = {
  $jsonSchema: {
    bsonType: 'object',
    required: ['_id', 'serviceId', 'fromOwnerId', 'toOwnerId', 'origin', 'reason', 'at'],
    additionalProperties: false,
    properties: { _id: { bsonType: 'objectId' }, serviceId: string, fromOwnerId: { bsonType: ['string', 'null'] }, toOwnerId: string, origin: string, reason: string, at: date }
  }
}

export const ORIGIN_CLAIM_INDEXES: IndexDescription[] = [{ key: { origin: 1, provenAt: -1 }, name: 'origin_provenAt' }]
export const TRANSFER_INDEXES: IndexDescription[] = [{ key: { serviceId: 1, at: -1 }, name: 'serviceId_at' }]

export const PAYMENT_VALIDATOR: Document = {
  $jsonSchema: {
    bsonType: 'object',
    required: ['_id', 'network', 'txHash', 'logIndex', 'blockNumber', 'blockHash', 'at', 'payer', 'payTo', 'amount', 'serviceId'],
    additionalProperties: false,
    properties: {
      _id: { bsonType: 'objectId' },
      network: string,
      txHash: hash,
      logIndex: long,
      blockNumber: long,
      blockHash: hash,
      at: date,
      payer: string,
      payTo: string,
      // Atomic units of the token, exact: Int64 (the mapping refuses larger amounts).
      amount: long,
      serviceId: { bsonType: ['string', 'null'] }
    }
  }
}

export const CHECKPOINT_VALIDATOR: Document = {
  $jsonSchema: {
    bsonType: 'object',
    required: ['_id', 'network', 'blockNumber', 'blockHash'],
    additionalProperties: false,
    properties: { _id: { bsonType: 'objectId' }, network: string, blockNumber: long, blockHash: hash }
  }
}

export const PAY_TO_SCAN_VALIDATOR: Document = {
  $jsonSchema: {
    bsonType: 'object',
    required: ['_id', 'network', 'payTo', 'scannedTo'],
    additionalProperties: false,
    properties: { _id: { bsonType: 'objectId' }, network: string, payTo: string, scannedTo: long }
  }
}

/** A SyncReport (src/domain/sources.ts): counts as Long, times as dates. */
export interface SyncReportDocument {
  startedAt: Date
  finishedAt: Date
  complete: boolean
  seen: Long
  added: Long
  updated: Long
  unchanged: Long
  retired: Long
  refusedCount: Long
  refused: SourceRefusal[]
  error: string | null
  /** A catalog source's feed position (FeedPosition); absent for other kinds. */
  feed?: { since: string, next: string, wholeAt: Date | null }
}

/** A SourceRecord; unique on (kind, url). */
export interface SourceDocument {
  _id: string
  kind: SourceKind
  url: string
  createdAt: Date
  /** The newest pass; null before the first. */
  lastSync: SyncReportDocument | null
  /** When the newest complete pass started; null before one. */
  lastCompleteAt: Date | null
}

/** One provenance entry: the source lists the service since `firstSeenAt`; unique on (sourceId, serviceId). */
export interface ServiceSourceDocument {
  _id?: ObjectId
  sourceId: string
  serviceId: string
  firstSeenAt: Date
}

/** SyncReport on a source document; null before the first pass. */
const SYNC_REPORT_SCHEMA: Document = {
  // As USAGE_SCHEMA: `required`, `properties` and `additionalProperties` apply to an object only.
  bsonType: ['object', 'null'],
  required: ['startedAt', 'finishedAt', 'complete', 'seen', 'added', 'updated', 'unchanged', 'retired', 'refusedCount', 'refused', 'error'],
  additionalProperties: false,
  properties: {
    startedAt: date,
    finishedAt: date,
    complete: { bsonType: 'bool' },
    seen: long,
    added: long,
    updated: long,
    unchanged: long,
    retired: long,
    refusedCount: long,
    refused: {
      bsonType: 'array',
      items: { bsonType: 'object', required: ['item', 'reason'], additionalProperties: false, properties: { item: string, reason: string } }
    },
    error: { bsonType: ['string', 'null'] },
    feed: {
      bsonType: 'object',
      required: ['since', 'next', 'wholeAt'],
      additionalProperties: false,
      properties: { since: string, next: string, wholeAt: { bsonType: ['date', 'null'] } }
    }
  }
}

export const SOURCE_VALIDATOR: Document = {
  $jsonSchema: {
    bsonType: 'object',
    required: ['_id', 'kind', 'url', 'createdAt', 'lastSync', 'lastCompleteAt'],
    additionalProperties: false,
    properties: {
      _id: { bsonType: 'string', pattern: '^src_' },
      kind: { enum: [...SOURCE_KINDS] },
      url: string,
      createdAt: date,
      lastSync: SYNC_REPORT_SCHEMA,
      lastCompleteAt: { bsonType: ['date', 'null'] }
    }
  }
}

export const SERVICE_SOURCE_VALIDATOR: Document = {
  $jsonSchema: {
    bsonType: 'object',
    required: ['_id', 'sourceId', 'serviceId', 'firstSeenAt'],
    additionalProperties: false,
    properties: { _id: { bsonType: 'objectId' }, sourceId: string, serviceId: string, firstSeenAt: date }
  }
}

/** One valid ownership proof of an origin (OriginProof); unique on (origin, address). */
export interface OriginProofDocument {
  _id?: ObjectId
  origin: string
  address: string
  /** The URL of the document it was read from. */
  document: string
  checkedAt: Date
}

export const ORIGIN_PROOF_VALIDATOR: Document = {
  $jsonSchema: {
    bsonType: 'object',
    required: ['_id', 'origin', 'address', 'document', 'checkedAt'],
    additionalProperties: false,
    properties: { _id: { bsonType: 'objectId' }, origin: string, address: string, document: string, checkedAt: date }
  }
}

/** The layout marker: one document, written when the database is set up (STORE_LAYOUT). */
export const STORE_META_VALIDATOR: Document = {
  $jsonSchema: {
    bsonType: 'object',
    required: ['_id', 'version'],
    additionalProperties: false,
    properties: { _id: { enum: ['layout'] }, version: { bsonType: 'int', minimum: 1 } }
  }
}

export const VALIDATORS: Record<string, Document> = {
  [COLLECTIONS.storeMeta]: STORE_META_VALIDATOR,
  [COLLECTIONS.services]: SERVICE_VALIDATOR,
  [COLLECTIONS.tombstones]: TOMBSTONE_VALIDATOR,
  [COLLECTIONS.apiKeys]: API_KEY_VALIDATOR,
  [COLLECTIONS.probes]: PROBE_VALIDATOR,
  [COLLECTIONS.leases]: LEASE_VALIDATOR,
  [COLLECTIONS.displacements]: DISPLACEMENT_VALIDATOR,
  [COLLECTIONS.originClaims]: ORIGIN_CLAIM_VALIDATOR,
  [COLLECTIONS.transfers]: TRANSFER_VALIDATOR,
  [COLLECTIONS.payments]: PAYMENT_VALIDATOR,
  [COLLECTIONS.chainCheckpoints]: CHECKPOINT_VALIDATOR,
  [COLLECTIONS.chainPayTos]: PAY_TO_SCAN_VALIDATOR,
  [COLLECTIONS.sources]: SOURCE_VALIDATOR,
  [COLLECTIONS.serviceSources]: SERVICE_SOURCE_VALIDATOR,
  [COLLECTIONS.originProofs]: ORIGIN_PROOF_VALIDATOR
}

/** Document fields behind each list sort (SortField → field). */
export const SORT_KEYS = {
  price: 'priceAtomic',
  trustScore: 'trustScore',
  name: 'nameSort',
  createdAt: 'createdAt'
} as const

/** Document fields behind the equality filters (ServiceFilter key → field). */
export const EQUALITY_FILTER_KEYS = {
  category: 'category',
  status: 'status',
  chain: 'supportedChains'
} as const

/**
 * Per x402 extension key, the field present exactly while the endpoint declares it: the
 * validator allows it only as a string, and a probe declaring none `$unset`s it.
 */
export const EXTENSION_FIELDS = { bazaar: 'bazaarExtension' } as const satisfies Record<ExtensionKey, string>

/**
 * Indexes of the services collection.
 *
 * The list endpoint filters by equality on category, status or chain (optionally bounded by
 * price) and sorts by one of four fields, with `_id` as tie-breaker in the same direction.
 * For each equality filter × sort there is an index `{filter: 1, sort: 1, _id: 1}`, and for
 * each sort alone `{sort: 1, _id: 1}`: the planner then walks one index in order (forwards
 * for asc, backwards for desc: both keys flip together) and stops after offset + limit
 * entries, instead of sorting every match in memory; counts of one equality filter are
 * answered from the same index (COUNT_SCAN). A second filter (category and status) is
 * applied while walking; `{priceAtomic, _id}` also serves "maxPrice" ranges sorted by price.
 * `supportedChains` is an array: those indexes are multikey, which still provides the sort
 * for an equality match on the chain. 16 list indexes (and a partial one for `extensions=bazaar`), 23 in all, well under MongoDB's 64 per collection;
 * registrations are rare next to reads.
 */
export function serviceIndexes (): IndexDescription[] {
  const sorts = Object.values(SORT_KEYS)
  const filters = Object.values(EQUALITY_FILTER_KEYS)
  return [
    // A listing's identity (src/domain/service.ts); the endpoint alone is no longer unique.
    { key: { resource: 1, method: 1 }, name: 'resource_method_unique', unique: true },
    { key: { seq: 1 }, name: 'seq_unique', unique: true },
    // A proof of an origin: its listings, in id order (proveClaim).
    { key: { origin: 1, _id: 1 }, name: 'origin_id' },
    // The prober's queue: due services, soonest first (null, i.e. due now, sorts first).
    { key: { nextProbeAt: 1, _id: 1 }, name: 'nextProbeAt_id' },
    // An origin's listings (origin import): a range on the canonical endpoint.
    { key: { endpoint: 1 }, name: 'endpoint' },
    // `extensions=bazaar` (the discovery list, by trust): only the services declaring it, a
    // small share, are in it, so the walk and the count touch those alone.
    { key: { trustScore: 1, _id: 1 }, name: 'bazaar_trustScore_id', partialFilterExpression: { [EXTENSION_FIELDS.bazaar]: { $exists: true } } },
    // The Bazaar payTo filter: an exact match on payToKey (EVM addresses lower-cased).
    { key: { payToKey: 1, _id: 1 }, name: 'payToKey_id' },
    // The chain watcher: distinct payTos of a network (payTosOn) and a payTo's services, oldest first (servicesByPayTo).
    { key: { network: 1, payToKey: 1, createdAt: 1, _id: 1 }, name: 'network_payToKey_createdAt_id' },
    ...sorts.map((sort): IndexDescription => ({ key: { [sort]: 1, _id: 1 }, name: `${sort}_id` })),
    ...filters.flatMap((filter) => sorts.map((sort): IndexDescription => ({ key: { [filter]: 1, [sort]: 1, _id: 1 }, name: `${filter}_${sort}_id` })))
  ]
}

export const PROBE_INDEXES: IndexDescription[] = [{ key: { serviceId: 1, at: -1 }, name: 'serviceId_at' }]

export const TOMBSTONE_INDEXES: IndexDescription[] = [{ key: { seq: 1 }, name: 'seq_unique', unique: true }]

export const API_KEY_INDEXES: IndexDescription[] = [
  { key: { hash: 1 }, name: 'hash_unique', unique: true },
  { key: { createdAt: 1, _id: 1 }, name: 'createdAt_id' }
]

export const PAYMENT_INDEXES: IndexDescription[] = [
  // Idempotence: a payment is stored once, however often its range is scanned.
  { key: { network: 1, txHash: 1, logIndex: 1 }, name: 'network_txHash_logIndex_unique', unique: true },
  // listPayments' order (newest first) and summarizePayments' match, per (network, payTo).
  { key: { network: 1, payTo: 1, blockNumber: -1, logIndex: -1 }, name: 'network_payTo_blockNumber_logIndex' },
  // rewindChain: the payments above a block.
  { key: { network: 1, blockNumber: 1 }, name: 'network_blockNumber' }
]

/** Kept newest first, trimmed to CHAIN_CHECKPOINT_HISTORY per network. */
export const CHECKPOINT_INDEXES: IndexDescription[] = [
  { key: { network: 1, blockNumber: -1 }, name: 'network_blockNumber_unique', unique: true }
]

export const PAY_TO_SCAN_INDEXES: IndexDescription[] = [
  { key: { network: 1, payTo: 1 }, name: 'network_payTo_unique', unique: true }
]

export const SOURCE_INDEXES: IndexDescription[] = [
  // One source per list: a second of the same kind and URL is a DuplicateSourceError.
  { key: { kind: 1, url: 1 }, name: 'kind_url_unique', unique: true },
  // listSources: oldest first.
  { key: { createdAt: 1, _id: 1 }, name: 'createdAt_id' }
]

export const SERVICE_SOURCE_INDEXES: IndexDescription[] = [
  // A listing carries a source once; a source's listings in id order (servicesOfSource, deleteSource).
  { key: { sourceId: 1, serviceId: 1 }, name: 'sourceId_serviceId_unique', unique: true },
  // A listing's provenance, oldest first (provenanceOf), and its removal with the listing.
  { key: { serviceId: 1, firstSeenAt: 1, sourceId: 1 }, name: 'serviceId_firstSeenAt_sourceId' }
]

export const ORIGIN_PROOF_INDEXES: IndexDescription[] = [
  // One proof per origin and wallet; an origin's proofs by address (originProofs, recordOriginProofs).
  { key: { origin: 1, address: 1 }, name: 'origin_address_unique', unique: true }
]

/** The code of a write a unique index refused. */
export const DUPLICATE_KEY = 11000
const NAMESPACE_EXISTS = 48

/** `store_meta`'s one document: the layout the database was made by. */
export interface LayoutMarkerDocument {
  _id: 'layout'
  version: number
}

/** A database made by another layout than this build's (STORE_LAYOUT): refused at open, left as it was. */
export class MongoStoreLayoutError extends CatalogError {
  /** `found`: the marker's version as the database holds it, or 'none' when it has no marker. */
  constructor (database: string, found: string) {
    super(`MongoDB database ${database} was made by another build (store layout ${found}, this build reads ${STORE_LAYOUT}): ` +
      'drop it or point MONGO_URL at an empty database, then re-seed or re-import', 'STORE_LAYOUT', 500)
  }
}

export type LayoutVerdict = { action: 'create' } | { action: 'open' } | { action: 'refuse', error: MongoStoreLayoutError }

/**
 * What opening does with a database, from the names of its collections and its layout marker
 * (null when it has none):
 * - marked with this build's layout: open it (collections, validators and indexes are
 *   ensured again, idempotently);
 * - no marker and none of the catalog's collections: a new database, set it up;
 * - anything else is refused: the catalog's collections without a marker (an earlier build,
 *   which wrote none), or a marker of another layout.
 * `store_meta` alone, without the marker, is a database whose first start stopped before the
 * marker was written, nothing else being created before it: a new database too.
 */
export function layoutVerdict (database: string, collections: readonly string[], marker: { version?: unknown } | null): LayoutVerdict {
  if (marker?.version === STORE_LAYOUT) return { action: 'open' }
  const ours = new Set<string>(Object.values(COLLECTIONS))
  ours.delete(COLLECTIONS.storeMeta)
  if (marker === null && !collections.some((name) => ours.has(name))) return { action: 'create' }
  return { action: 'refuse', error: new MongoStoreLayoutError(database, marker === null ? 'none' : String(marker.version)) }
}

async function layoutMarker (db: Db): Promise<LayoutMarkerDocument | null> {
  return await db.collection<LayoutMarkerDocument>(COLLECTIONS.storeMeta).findOne({ _id: 'layout' })
}

/** Creates a collection with its validator; one that exists gets the validator set (strict: every insert and update is checked). */
async function ensureCollection (db: Db, name: string, validator: Document): Promise<void> {
  const options = { validator, validationLevel: 'strict', validationAction: 'error' } as const
  try {
    await db.createCollection(name, options)
  } catch (err) {
    if (!(err instanceof MongoServerError && err.code === NAMESPACE_EXISTS)) throw err
    await db.command({ collMod: name, ...options })
  }
}

/**
 * Throws MongoStoreLayoutError, having written nothing, unless the database is new or made by
 * this layout; then creates what is missing of the layout (collections with their
 * validators, indexes, the change counter) and sets the validators again.
 */
export async function setUpLayout (db: Db): Promise<void> {
  const collections = (await db.listCollections({}, { nameOnly: true }).toArray()).map((info) => info.name)
  const verdict = layoutVerdict(db.databaseName, collections, await layoutMarker(db))
  if (verdict.action === 'refuse') throw verdict.error
  if (verdict.action === 'create') {
    // The marker first, then the rest: a first start stopped half-way leaves a database marked
    // with this layout, which the next start completes (every step below is idempotent); the
    // other order would leave collections without a marker, refused as an earlier build's.
    await ensureCollection(db, COLLECTIONS.storeMeta, STORE_META_VALIDATOR)
    await db.collection<LayoutMarkerDocument>(COLLECTIONS.storeMeta).insertOne({ _id: 'layout', version: STORE_LAYOUT }).catch((err: unknown) => {
      if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err
    })
    // Read again: another process may have set up the same new database first (another build's, even).
    const marker = await layoutMarker(db)
    if (marker?.version !== STORE_LAYOUT) throw new MongoStoreLayoutError(db.databaseName, marker === null ? 'none' : String(marker.version))
  }
  for (const [name, validator] of Object.entries(VALIDATORS)) await ensureCollection(db, name, validator)
  await db.collection(COLLECTIONS.services).createIndexes(serviceIndexes())
  await db.collection(COLLECTIONS.tombstones).createIndexes(TOMBSTONE_INDEXES)
  await db.collection(COLLECTIONS.apiKeys).createIndexes(API_KEY_INDEXES)
  await db.collection(COLLECTIONS.probes).createIndexes(PROBE_INDEXES)
  await db.collection(COLLECTIONS.originClaims).createIndexes(ORIGIN_CLAIM_INDEXES)
  await db.collection(COLLECTIONS.transfers).createIndexes(TRANSFER_INDEXES)
  await db.collection(COLLECTIONS.payments).createIndexes(PAYMENT_INDEXES)
  await db.collection(COLLECTIONS.chainCheckpoints).createIndexes(CHECKPOINT_INDEXES)
  await db.collection(COLLECTIONS.chainPayTos).createIndexes(PAY_TO_SCAN_INDEXES)
  await db.collection(COLLECTIONS.sources).createIndexes(SOURCE_INDEXES)
  await db.collection(COLLECTIONS.serviceSources).createIndexes(SERVICE_SOURCE_INDEXES)
  await db.collection(COLLECTIONS.originProofs).createIndexes(ORIGIN_PROOF_INDEXES)
  await db.collection<CounterDocument>(COLLECTIONS.counters).updateOne(
    { _id: SERVICE_COUNTER_ID }, { $setOnInsert: { seq: Long.ZERO } }, { upsert: true })
}
