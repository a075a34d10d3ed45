/**
 * MongoDB layout of the catalog: collection names, `$jsonSchema` validators and indexes.
 *
 * Validators make the database refuse what the mapping would never write (a float price, a
 * missing endpoint), so a bug or a hand-made write cannot slip a bad document past the domain
 * rules. Money and counters are `long` (Int64): a JS number would be stored as a double.
 */
import type { Document, IndexDescription } from 'mongodb'
import { HTTP_METHODS } from '../../domain/http-method.js'
import { SERVICE_STATUSES } from '../../domain/trust.js'

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
  displacements: 'service_displacements'
} as const

export const SERVICE_COUNTER_ID = 'services'

const string = { bsonType: 'string' }
const long = { bsonType: 'long', minimum: 0 }
const date = { bsonType: 'date' }

export const SERVICE_VALIDATOR: Document = {
  $jsonSchema: {
    bsonType: 'object',
    required: ['_id', 'seq', 'name', 'nameSort', 'description', 'endpoint', 'method', 'category', 'currency', 'priceAtomic',
      'freeQuota', 'paymentAddress', 'network', 'supportedChains', 'status', 'trustScore', 'uptimeScore', 'lastChecked',
      'txCount', 'totalRevenue', 'paymentRequirements', 'ownerId', 'createdAt', 'updatedAt', 'nextProbeAt'],
    additionalProperties: false,
    properties: {
      _id: { bsonType: 'string', pattern: '^svc_' },
      seq: long,
      name: string,
      nameSort: string,
      description: string,
      endpoint: string,
      method: { enum: [...HTTP_METHODS] },
      category: string,
      currency: string,
      priceAtomic: long,
      freeQuota: long,
      paymentAddress: string,
      network: string,
      supportedChains: { bsonType: 'array', minItems: 1, items: string },
      status: { enum: [...SERVICE_STATUSES] },
      trustScore: { bsonType: 'int', minimum: 0, maximum: 100 },
      uptimeScore: { bsonType: ['double', 'int', 'null'], minimum: 0, maximum: 100 },
      lastChecked: { bsonType: ['date', 'null'] },
      txCount: long,
      // Revenue can exceed what an Int64 of atomic units holds: an exact decimal.
      totalRevenue: { bsonType: 'decimal' },
      // The accepts of the last matching probe, as the endpoint sent them (free-form x402 objects).
      paymentRequirements: { bsonType: ['array', 'null'], items: { bsonType: 'object' } },
      ownerId: { bsonType: ['string', 'null'] },
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

export const VALIDATORS: Record<string, Document> = {
  [COLLECTIONS.services]: SERVICE_VALIDATOR,
  [COLLECTIONS.tombstones]: TOMBSTONE_VALIDATOR,
  [COLLECTIONS.apiKeys]: API_KEY_VALIDATOR,
  [COLLECTIONS.probes]: PROBE_VALIDATOR,
  [COLLECTIONS.leases]: LEASE_VALIDATOR,
  [COLLECTIONS.displacements]: DISPLACEMENT_VALIDATOR
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
 * for an equality match on the chain. 16 indexes, well under MongoDB's 64 per collection;
 * registrations are rare next to reads.
 */
export function serviceIndexes (): IndexDescription[] {
  const sorts = Object.values(SORT_KEYS)
  const filters = Object.values(EQUALITY_FILTER_KEYS)
  return [
    { key: { endpoint: 1 }, name: 'endpoint_unique', unique: true },
    { key: { seq: 1 }, name: 'seq_unique', unique: true },
    // The prober's queue: due services, soonest first (null, i.e. due now, sorts first).
    { key: { nextProbeAt: 1, _id: 1 }, name: 'nextProbeAt_id' },
    // The Bazaar payTo filter (exact for Solana; EVM addresses match case-insensitively).
    { key: { paymentAddress: 1, _id: 1 }, name: 'paymentAddress_id' },
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
