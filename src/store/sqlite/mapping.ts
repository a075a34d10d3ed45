/**
 * ServiceRecord, probes, payments and API keys <-> the SQLite store's rows. Lists and arrays are kept
 * as JSON text, booleans as 0/1, times as ISO text (they sort as they compare).
 */
import type { OriginClaim, ServiceTransfer } from '../../domain/claims.js'
import { originOf } from '../../domain/endpoint-url.js'
import type { HttpMethod } from '../../domain/http-method.js'
import type { CallSchema, DiscoveryFields } from '../../domain/call-schema.js'
import type { PrefillInfo } from '../../domain/listing-text.js'
import type { PaymentRequirement, ProbeOutcome } from '../../domain/probe.js'
import { toServiceJson, type ServiceRecord } from '../../domain/service.js'
import type { ServiceStatus } from '../../domain/trust.js'
import type { ChainCheckpoint, PaymentRecord, ServiceUsage } from '../../domain/payment.js'
import { nameSortKey, priceOfSortKey, priceSortKey } from '../../domain/sort-keys.js'
import type { ApiKeyRecord, Displacement } from '../catalog-store.js'

/**
 * A service row's columns in the order fromValues reads them. Rows are read as arrays (raw):
 * building an object per row, 27 named properties each, costs more than the read itself.
 */
export const RECORD_COLUMNS = 'id, name, description, endpoint, method, category, currency, price_atomic, free_quota, payment_address, network, supported_chains, status, trust_score, uptime_score, last_checked, usage, payment_requirements, owner_id, created_at, updated_at, resource, claimed, call_schema, bazaar_extension, tags, prefill'
export type RecordValues = [
  id: string, name: string, description: string, endpoint: string, method: string, category: string, currency: string,
  priceAtomic: number, freeQuota: number, paymentAddress: string, network: string, supportedChains: string, status: string,
  trustScore: number, uptimeScore: number | null, lastChecked: string | null, usage: string | null,
  paymentRequirements: string | null, ownerId: string | null, createdAt: string, updatedAt: string, resource: string, claimed: number,
  callSchema: string | null, bazaarExtension: string | null, tags: string, prefill: string | null
]
/** How many values RECORD_COLUMNS reads: a column selected after them sits at this index. */
export const RECORD_VALUES = 27

export interface ProbeRow {
  checked_at: string
  http_status: number | null
  x402_version: number | null
  latency_ms: number | null
  answered_402: number
  matched: number
  reason: string
  accepts: string | null
}

export function fromProbeRow (row: ProbeRow): ProbeOutcome {
  return {
    checkedAt: row.checked_at,
    httpStatus: row.http_status,
    x402Version: row.x402_version,
    latencyMs: row.latency_ms,
    answered402: row.answered_402 === 1,
    matched: row.matched === 1,
    reason: row.reason,
    accepts: row.accepts === null ? null : JSON.parse(row.accepts) as PaymentRequirement[]
  }
}

export interface ApiKeyRow { id: string, name: string, hash: string, created_at: string, revoked_at: string | null }

export function fromValues (v: RecordValues | [...RecordValues, number]): ServiceRecord {
  return {
    id: v[0],
    name: v[1],
    description: v[2],
    endpoint: v[3],
    resource: v[21],
    claimed: v[22] === 1,
    tags: JSON.parse(v[25]) as string[],
    prefill: v[26] === null ? null : JSON.parse(v[26]) as PrefillInfo,
    method: v[4] as HttpMethod,
    category: v[5],
    currency: v[6],
    priceAtomic: priceOfSortKey(v[7]),
    freeQuota: v[8],
    paymentAddress: v[9],
    network: v[10],
    supportedChains: JSON.parse(v[11]) as string[],
    status: v[12] as ServiceStatus,
    trustScore: v[13],
    uptimeScore: v[14],
    lastChecked: v[15],
    usage: v[16] === null ? null : JSON.parse(v[16]) as ServiceUsage,
    paymentRequirements: v[17] === null ? null : JSON.parse(v[17]) as PaymentRequirement[],
    ownerId: v[18],
    // Absent rather than null when none: a record without a schema reads back as it was written.
    ...(v[23] === null ? {} : { callSchema: JSON.parse(v[23]) as CallSchema }),
    ...(v[24] === null ? {} : { bazaarExtension: JSON.parse(v[24]) as Record<string, unknown> }),
    createdAt: v[19],
    updatedAt: v[20]
  }
}

export function fromKeyRow (row: ApiKeyRow): ApiKeyRecord {
  return { id: row.id, name: row.name, hash: row.hash, createdAt: row.created_at, revokedAt: row.revoked_at }
}

export interface DisplacementRow { id: string, displaced_by: string, endpoint: string, owner_id: string | null, reason: string, at: string }

export function fromDisplacementRow (row: DisplacementRow): Displacement {
  return { id: row.id, displacedBy: row.displaced_by, endpoint: row.endpoint, ownerId: row.owner_id, reason: row.reason, at: row.at }
}

/** A record as the named parameters of the store's insert and update statements. */
export function toParams (record: ServiceRecord): Record<string, unknown> {
  return {
    ...record,
    nameSort: nameSortKey(record.name),
    // The column is the price's sort key: a dynamic price sorts above every fixed one.
    priceAtomic: priceSortKey(record.priceAtomic),
    supportedChains: JSON.stringify(record.supportedChains),
    paymentRequirements: record.paymentRequirements === null ? null : JSON.stringify(record.paymentRequirements),
    usage: record.usage === null ? null : JSON.stringify(record.usage),
    claimed: record.claimed ? 1 : 0,
    ...discoveryParams(record),
    tags: JSON.stringify(record.tags),
    prefill: record.prefill === null ? null : JSON.stringify(record.prefill),
    // Its own indexed column: a proof finds the origin's listings by equality.
    origin: originOf(record.endpoint),
    serviceJson: toServiceJson(record)
  }
}

/** The discovery columns of a record (call_schema, bazaar_extension) as named parameters. */
export function discoveryParams (record: DiscoveryFields): { callSchema: string | null, bazaarExtension: string | null } {
  return {
    callSchema: record.callSchema === undefined ? null : JSON.stringify(record.callSchema),
    bazaarExtension: record.bazaarExtension === undefined ? null : JSON.stringify(record.bazaarExtension)
  }
}

export interface PaymentRow {
  network: string
  tx_hash: string
  log_index: number
  block_number: number
  block_hash: string
  at: string
  payer: string
  pay_to: string
  /** Read with safe integers: an amount beyond 2^53 stays exact. */
  amount: bigint | number
  service_id: string | null
}

export function fromPaymentRow (row: PaymentRow): PaymentRecord {
  return {
    network: row.network,
    txHash: row.tx_hash,
    logIndex: Number(row.log_index),
    blockNumber: Number(row.block_number),
    blockHash: row.block_hash,
    at: row.at,
    payer: row.payer,
    payTo: row.pay_to,
    amount: String(row.amount),
    serviceId: row.service_id
  }
}

export function fromCheckpointRow (row: { block_number: number, block_hash: string }): ChainCheckpoint {
  return { blockNumber: row.block_number, blockHash: row.block_hash }
}

export interface ClaimRow { origin: string, owner_id: string, token: string, created_at: string, proven_at: string | null }

export function fromClaimRow (row: ClaimRow): OriginClaim {
  return { origin: row.origin, ownerId: row.owner_id, token: row.token, createdAt: row.created_at, provenAt: row.proven_at }
}

export interface TransferRow { service_id: string, from_owner_id: string | null, to_owner_id: string, origin: string, reason: string, at: string }

export function fromTransferRow (row: TransferRow): ServiceTransfer {
  return { serviceId: row.service_id, fromOwnerId: row.from_owner_id, toOwnerId: row.to_owner_id, origin: row.origin, reason: row.reason, at: row.at }
}
