/**
 * ServiceRecord, probes, payments and API keys ↔ MongoDB documents. Integers that are money
 * or counters are written as Long (Int64), revenue (a sum of amounts) as Decimal128, times as
 * BSON dates; reads accept what the driver returns for them (Long, or a number when it
 * promotes a small Long) and refuse anything a JS number cannot hold exactly.
 */
import { Decimal128, Long, type ObjectId } from 'mongodb'
import type { HttpMethod } from '../../domain/http-method.js'
import type { CallSchema, DiscoveryFields } from '../../domain/call-schema.js'
import type { PrefillInfo } from '../../domain/listing-text.js'
import type { ChainCheckpoint, PaymentRecord, ServiceUsage } from '../../domain/payment.js'
import { payToKey } from '../../domain/pay-to.js'
import type { PaymentRequirement, ProbeOutcome } from '../../domain/probe.js'
import type { ServiceRecord } from '../../domain/service.js'
import type { ServiceStatus } from '../../domain/trust.js'
import type { ApiKeyRecord } from '../catalog-store.js'
import { nameSortKey, priceOfSortKey, priceSortKey } from '../../domain/sort-keys.js'
import type { OriginClaim, ServiceTransfer } from '../../domain/claims.js'
import { originOf } from '../../domain/endpoint-url.js'

export interface ServiceDocument {
  _id: string
  seq: Long
  name: string
  nameSort: string
  description: string
  endpoint: string
  /** originOf(endpoint): a proof finds the origin's listings by equality (index origin_id). */
  origin: string
  /** With `method`, the listing's identity: unique together (index resource_method_unique). */
  resource: string
  method: HttpMethod
  category: string
  currency: string
  priceAtomic: Long
  freeQuota: Long
  paymentAddress: string
  /** payToKey(paymentAddress): EVM lower-cased, so payTo lookups are exact matches an index serves. */
  payToKey: string
  network: string
  supportedChains: string[]
  status: ServiceStatus
  trustScore: number
  uptimeScore: number | null
  lastChecked: Date | null
  /** ServiceUsage as last computed from payments; null when never measured. */
  usage: UsageDocument | null
  paymentRequirements: PaymentRequirement[] | null
  ownerId: string | null
  /** The owner proved control of the endpoint's origin. */
  claimed: boolean
  /** CallSchema as JSON text; absent when none (src/domain/call-schema.ts). */
  callSchema?: string
  /** The declared extensions.bazaar as JSON text; absent when none. */
  bazaarExtension?: string
  /** Keywords. */
  tags: string[]
  /** Which fields were prefilled from the endpoint's 402 answer; null when all were given. */
  prefill: PrefillInfo | null
  createdAt: Date
  updatedAt: Date
  /** When the prober should check the service again; null: due now. */
  nextProbeAt: Date | null
}

/** ServiceUsage: counts as Long, revenues as Decimal128 (a sum of int64 amounts may pass int64), times as dates. */
export interface UsageDocument {
  txCount: Long
  revenueAtomic: Decimal128
  uniquePayers: Long
  lastPaymentAt: Date | null
  txCount30d: Long
  revenue30dAtomic: Decimal128
  uniquePayers30d: Long
  scope: ServiceUsage['scope']
  computedAt: Date
}

/** A PaymentRecord; unique on (network, txHash, logIndex). */
export interface PaymentDocument {
  _id?: ObjectId
  network: string
  txHash: string
  logIndex: Long
  blockNumber: Long
  blockHash: string
  at: Date
  payer: string
  payTo: string
  /** Atomic units: Int64, exact (USDC's whole supply fits many times over); anything larger is refused. */
  amount: Long
  serviceId: string | null
}

/** One checkpoint of the chain watcher; unique on (network, blockNumber). */
export interface CheckpointDocument {
  _id?: ObjectId
  network: string
  blockNumber: Long
  blockHash: string
}

/** A watched payTo's scan progress on a network; unique on (network, payTo). */
export interface PayToScanDocument {
  _id?: ObjectId
  network: string
  payTo: string
  scannedTo: Long
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
export function toDate (iso: string, field: string): Date {
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
    origin: originOf(record.endpoint),
    resource: record.resource,
    method: record.method,
    category: record.category,
    currency: record.currency,
    // The price's sort key: a dynamic price sorts above every fixed one.
    priceAtomic: toLong(priceSortKey(record.priceAtomic), 'priceAtomic'),
    freeQuota: toLong(record.freeQuota, 'freeQuota'),
    paymentAddress: record.paymentAddress,
    payToKey: payToKey(record.paymentAddress),
    network: record.network,
    supportedChains: [...record.supportedChains],
    status: record.status,
    trustScore: record.trustScore,
    uptimeScore: record.uptimeScore,
    lastChecked: record.lastChecked === null ? null : toDate(record.lastChecked, 'lastChecked'),
    usage: record.usage === null ? null : toUsageDocument(record.usage),
    paymentRequirements: record.paymentRequirements,
    ownerId: record.ownerId,
    claimed: record.claimed,
    ...toDiscoveryDocument(record),
    tags: [...record.tags],
    prefill: record.prefill,
    createdAt: toDate(record.createdAt, 'createdAt'),
    updatedAt: toDate(record.updatedAt, 'updatedAt'),
    // A new or replaced service is due for a probe: what the prober checks may have changed.
    nextProbeAt: null
  }
}

/** A record's discovery fields as the document keeps them: JSON text, absent when none. */
export function toDiscoveryDocument (record: DiscoveryFields): Pick<ServiceDocument, 'callSchema' | 'bazaarExtension'> {
  return {
    ...(record.callSchema === undefined ? {} : { callSchema: JSON.stringify(record.callSchema) }),
    ...(record.bazaarExtension === undefined ? {} : { bazaarExtension: JSON.stringify(record.bazaarExtension) })
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
    resource: doc.resource,
    method: doc.method,
    category: doc.category,
    currency: doc.currency,
    priceAtomic: priceOfSortKey(fromLong(doc.priceAtomic, 'priceAtomic')),
    freeQuota: fromLong(doc.freeQuota, 'freeQuota'),
    paymentAddress: doc.paymentAddress,
    network: doc.network,
    supportedChains: [...doc.supportedChains],
    status: doc.status,
    trustScore: doc.trustScore,
    uptimeScore: doc.uptimeScore,
    lastChecked: doc.lastChecked === null ? null : doc.lastChecked.toISOString(),
    usage: doc.usage === null ? null : fromUsageDocument(doc.usage),
    paymentRequirements: doc.paymentRequirements,
    ownerId: doc.ownerId,
    claimed: doc.claimed,
    ...(doc.callSchema == null ? {} : { callSchema: JSON.parse(doc.callSchema) as CallSchema }),
    ...(doc.bazaarExtension == null ? {} : { bazaarExtension: JSON.parse(doc.bazaarExtension) as Record<string, unknown> }),
    tags: doc.tags,
    prefill: doc.prefill,
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

/** Largest amount a payment document holds: Int64, as the SQLite store's INTEGER. */
export const MAX_PAYMENT_AMOUNT = (1n << 63n) - 1n

/** Decimal128 holds 34 significant digits exactly; a longer integer would be rounded. */
const DECIMAL_DIGITS = 34

/** A decimal integer string of atomic units as an exact Decimal128 (revenue: a sum of amounts). */
export function toAtomicDecimal (value: string, field: string): Decimal128 {
  if (!/^\d+$/.test(value) || value.replace(/^0+(?=\d)/, '').length > DECIMAL_DIGITS) {
    throw new RangeError(`${field} must be a non-negative integer of at most ${DECIMAL_DIGITS} digits, got ${value}`)
  }
  return Decimal128.fromString(value.replace(/^0+(?=\d)/, ''))
}

/** A Decimal128 of atomic units back to its decimal integer string; refuses a fraction. */
export function fromAtomicDecimal (value: Decimal128, field: string): string {
  const text = decimalString(value)
  const integer = /^(\d+)(?:\.0*)?$/.exec(text)
  if (integer === null) throw new RangeError(`${field} ${text} is not a non-negative integer`)
  return (integer[1] as string).replace(/^0+(?=\d)/, '')
}

/** A payment amount (decimal integer string) as an exact Int64; RangeError beyond it, as the SQLite store. */
export function toAmountLong (amount: string, field = 'amount'): Long {
  if (!/^\d+$/.test(amount)) throw new RangeError(`${field} must be a non-negative decimal integer, got ${amount}`)
  const value = BigInt(amount)
  // Long.fromBigInt wraps silently past 2^63 - 1: the bound is checked here.
  if (value > MAX_PAYMENT_AMOUNT) throw new RangeError(`${field} ${amount} is beyond what the store keeps (Int64)`)
  return Long.fromBigInt(value)
}

/** An Int64 read back (Long, or a number when the driver promoted a small one, or a bigint) as its exact decimal string. */
export function longString (value: Long | number | bigint, field: string): string {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new RangeError(`${field} ${value} is not an exact integer`)
  return value.toString()
}

export function toUsageDocument (usage: ServiceUsage): UsageDocument {
  return {
    txCount: toLong(usage.txCount, 'usage.txCount'),
    revenueAtomic: toAtomicDecimal(usage.revenueAtomic, 'usage.revenueAtomic'),
    uniquePayers: toLong(usage.uniquePayers, 'usage.uniquePayers'),
    lastPaymentAt: usage.lastPaymentAt === null ? null : toDate(usage.lastPaymentAt, 'usage.lastPaymentAt'),
    txCount30d: toLong(usage.txCount30d, 'usage.txCount30d'),
    revenue30dAtomic: toAtomicDecimal(usage.revenue30dAtomic, 'usage.revenue30dAtomic'),
    uniquePayers30d: toLong(usage.uniquePayers30d, 'usage.uniquePayers30d'),
    scope: usage.scope,
    computedAt: toDate(usage.computedAt, 'usage.computedAt')
  }
}

export function fromUsageDocument (doc: UsageDocument): ServiceUsage {
  return {
    txCount: fromLong(doc.txCount, 'usage.txCount'),
    revenueAtomic: fromAtomicDecimal(doc.revenueAtomic, 'usage.revenueAtomic'),
    uniquePayers: fromLong(doc.uniquePayers, 'usage.uniquePayers'),
    lastPaymentAt: doc.lastPaymentAt === null ? null : doc.lastPaymentAt.toISOString(),
    txCount30d: fromLong(doc.txCount30d, 'usage.txCount30d'),
    revenue30dAtomic: fromAtomicDecimal(doc.revenue30dAtomic, 'usage.revenue30dAtomic'),
    uniquePayers30d: fromLong(doc.uniquePayers30d, 'usage.uniquePayers30d'),
    scope: doc.scope,
    computedAt: doc.computedAt.toISOString()
  }
}

/** A payment as stored under `network` (the commit's network, as the SQLite store does); throws before any write on an amount beyond Int64. */
export function toPaymentDocument (network: string, payment: PaymentRecord): PaymentDocument {
  return {
    network,
    txHash: payment.txHash,
    logIndex: toLong(payment.logIndex, 'logIndex'),
    blockNumber: toLong(payment.blockNumber, 'blockNumber'),
    blockHash: payment.blockHash,
    at: toDate(payment.at, 'at'),
    payer: payment.payer,
    payTo: payment.payTo,
    amount: toAmountLong(payment.amount, `payment ${payment.txHash}:${payment.logIndex} amount`),
    serviceId: payment.serviceId
  }
}

export function fromPaymentDocument (doc: PaymentDocument): PaymentRecord {
  return {
    network: doc.network,
    txHash: doc.txHash,
    logIndex: fromLong(doc.logIndex, 'logIndex'),
    blockNumber: fromLong(doc.blockNumber, 'blockNumber'),
    blockHash: doc.blockHash,
    at: doc.at.toISOString(),
    payer: doc.payer,
    payTo: doc.payTo,
    amount: longString(doc.amount, 'amount'),
    serviceId: doc.serviceId
  }
}

export function fromCheckpointDocument (doc: CheckpointDocument): ChainCheckpoint {
  return { blockNumber: fromLong(doc.blockNumber, 'blockNumber'), blockHash: doc.blockHash }
}

export interface OriginClaimDocument { _id: string, origin: string, ownerId: string, token: string, createdAt: Date, provenAt: Date | null }

export function fromOriginClaimDocument (doc: OriginClaimDocument): OriginClaim {
  return { origin: doc.origin, ownerId: doc.ownerId, token: doc.token, createdAt: doc.createdAt.toISOString(), provenAt: doc.provenAt?.toISOString() ?? null }
}

export interface TransferDocument { _id?: ObjectId, serviceId: string, fromOwnerId: string | null, toOwnerId: string, origin: string, reason: string, at: Date }

export function fromTransferDocument (doc: TransferDocument): ServiceTransfer {
  return { serviceId: doc.serviceId, fromOwnerId: doc.fromOwnerId, toOwnerId: doc.toOwnerId, origin: doc.origin, reason: doc.reason, at: doc.at.toISOString() }
}
