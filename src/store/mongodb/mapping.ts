/**
 * ServiceRecord ↔ MongoDB document. Integers that are money or counters are written as
 * Long (Int64), revenue as Decimal128, times as BSON dates; reads accept what the driver
 * returns for them (Long, or a number when it promotes a small Long) and refuse anything a
 * JS number cannot hold exactly.
 */
import { Decimal128, Long, type ObjectId } from 'mongodb'
import type { HttpMethod } from '../../domain/http-method.js'
import type { PaymentRequirement, ProbeOutcome } from '../../domain/probe.js'
import type { ServiceRecord } from '../../domain/service.js'
import type { ServiceStatus } from '../../domain/trust.js'
import type { ApiKeyRecord } from '../catalog-store.js'
import { nameSortKey } from '../../domain/sort-keys.js'

export interface ServiceDocument {
  _id: string
  seq: Long
  name: string
  nameSort: string
  description: string
  endpoint: string
  method: HttpMethod
  category: string
  currency: string
  priceAtomic: Long
  freeQuota: Long
  paymentAddress: string
  network: string
  supportedChains: string[]
  status: ServiceStatus
  trustScore: number
  uptimeScore: number | null
  lastChecked: Date | null
  txCount: Long
  totalRevenue: Decimal128
  paymentRequirements: PaymentRequirement[] | null
  ownerId: string | null
  createdAt: Date
  updatedAt: Date
  /** When the prober should check the service again; null: due now. */
  nextProbeAt: Date | null
}

export interface ProbeDocument {
  _id?: ObjectId
  serviceId: string
  /** Order of the probes of one service: the previous newest `at` + 1. */
  at: Long
  checkedAt: Date
  httpStatus: number | null
  x402Version: number | null
  latencyMs: number | null
  answered402: boolean
  matched: boolean
  reason: string
  accepts: PaymentRequirement[] | null
}

export interface LeaseDocument {
  _id: string
  holder: string
  expiresAt: Long
}

export interface TombstoneDocument {
  _id: string
  seq: Long
  deletedAt: Date
}

/** Why a listing was displaced (CatalogStore.getDisplacement), kept after the service is gone. */
export interface DisplacementDocument { _id: string, displacedBy: string, endpoint: string, ownerId: string | null, reason: string, at: Date }

export interface ApiKeyDocument {
  _id: string
  name: string
  hash: string
  createdAt: Date
  revokedAt: Date | null
}

export interface CounterDocument {
  _id: string
  seq: Long
}

/** An exact Int64 for a non-negative safe integer; anything else is a bug upstream. */
export function toLong (value: number, field: string): Long {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${field} must be a non-negative safe integer, got ${value}`)
  return Long.fromNumber(value)
}

/** A Long (or a promoted number) back to a JS number, refusing values beyond 2^53. */
export function fromLong (value: Long | number | bigint, field: string): number {
  const n = typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : value.toNumber()
  const exact = typeof value === 'number' ? Number.isSafeInteger(value) : typeof value === 'bigint' ? BigInt(n) === value : Long.fromNumber(n).equals(value)
  if (!exact || !Number.isSafeInteger(n)) throw new RangeError(`${field} ${String(value)} does not fit a JS number exactly`)
  return n
}

/** ISO strings round-trip through BSON dates (millisecond precision, as toISOString writes them). */
function toDate (iso: string, field: string): Date {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) throw new RangeError(`${field} is not a date: ${iso}`)
  return date
}

export function toServiceDocument (record: ServiceRecord, seq: number): ServiceDocument {
  return {
    _id: record.id,
    seq: toLong(seq, 'seq'),
    name: record.name,
    nameSort: nameSortKey(record.name),
    description: record.description,
    endpoint: record.endpoint,
    method: record.method,
    category: record.category,
    currency: record.currency,
    priceAtomic: toLong(record.priceAtomic, 'priceAtomic'),
    freeQuota: toLong(record.freeQuota, 'freeQuota'),
    paymentAddress: record.paymentAddress,
    network: record.network,
    supportedChains: [...record.supportedChains],
    status: record.status,
    trustScore: record.trustScore,
    uptimeScore: record.uptimeScore,
    lastChecked: record.lastChecked === null ? null : toDate(record.lastChecked, 'lastChecked'),
    txCount: toLong(record.txCount, 'txCount'),
    totalRevenue: Decimal128.fromString(record.totalRevenue),
    paymentRequirements: record.paymentRequirements,
    ownerId: record.ownerId,
    createdAt: toDate(record.createdAt, 'createdAt'),
    updatedAt: toDate(record.updatedAt, 'updatedAt'),
    // A new or replaced service is due for a probe: what the prober checks may have changed.
    nextProbeAt: null
  }
}

export function toProbeDocument (serviceId: string, at: number, outcome: ProbeOutcome): ProbeDocument {
  return {
    serviceId,
    at: toLong(at, 'at'),
    checkedAt: toDate(outcome.checkedAt, 'checkedAt'),
    httpStatus: outcome.httpStatus,
    x402Version: outcome.x402Version,
    latencyMs: outcome.latencyMs,
    answered402: outcome.answered402,
    matched: outcome.matched,
    reason: outcome.reason,
    accepts: outcome.accepts
  }
}

export function fromProbeDocument (doc: ProbeDocument): ProbeOutcome {
  return {
    checkedAt: doc.checkedAt.toISOString(),
    httpStatus: doc.httpStatus,
    x402Version: doc.x402Version,
    latencyMs: doc.latencyMs,
    answered402: doc.answered402,
    matched: doc.matched,
    reason: doc.reason,
    accepts: doc.accepts
  }
}

/** Plain decimal notation of a Decimal128 (its toString uses exponents for very small values). */
export function decimalString (value: Decimal128): string {
  const text = value.toString()
  const match = /^(-?)(\d+)(?:\.(\d+))?E([+-]\d+)$/.exec(text)
  if (match === null) return text
  const [, sign, int = '', frac = '', exp] = match
  const digits = int + frac
  const point = int.length + Number(exp)
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`
}

export function fromServiceDocument (doc: ServiceDocument): ServiceRecord {
  return {
    id: doc._id,
    name: doc.name,
    description: doc.description,
    endpoint: doc.endpoint,
    method: doc.method,
    category: doc.category,
    currency: doc.currency,
    priceAtomic: fromLong(doc.priceAtomic, 'priceAtomic'),
    freeQuota: fromLong(doc.freeQuota, 'freeQuota'),
    paymentAddress: doc.paymentAddress,
    network: doc.network,
    supportedChains: [...doc.supportedChains],
    status: doc.status,
    trustScore: doc.trustScore,
    uptimeScore: doc.uptimeScore,
    lastChecked: doc.lastChecked === null ? null : doc.lastChecked.toISOString(),
    txCount: fromLong(doc.txCount, 'txCount'),
    totalRevenue: decimalString(doc.totalRevenue),
    paymentRequirements: doc.paymentRequirements,
    ownerId: doc.ownerId,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString()
  }
}

export function toApiKeyDocument (key: ApiKeyRecord): ApiKeyDocument {
  return {
    _id: key.id,
    name: key.name,
    hash: key.hash,
    createdAt: toDate(key.createdAt, 'createdAt'),
    revokedAt: key.revokedAt === null ? null : toDate(key.revokedAt, 'revokedAt')
  }
}

export function fromApiKeyDocument (doc: ApiKeyDocument): ApiKeyRecord {
  return {
    id: doc._id,
    name: doc.name,
    hash: doc.hash,
    createdAt: doc.createdAt.toISOString(),
    revokedAt: doc.revokedAt === null ? null : doc.revokedAt.toISOString()
  }
}
