/**
 * The service resource: its public JSON shape (TypeBox, also the OpenAPI schema),
 * the record the store keeps, and the conversion between them.
 */
import { createHash } from 'node:crypto'
import { Type, type Static } from '@sinclair/typebox'
import { findCurrency, formatAtomic } from './money.js'
import { isTestListing, TEST_NETWORK_IDS } from './networks.js'
import { SERVICE_ID_PATTERN } from './ids.js'
import type { PaymentRequirement, ProbeOutcome } from './probe.js'
import { CallSchemaViewSchema, toCallSchemaView, type CallSchema } from './call-schema.js'
import type { ServiceUsage } from './payment.js'
import { LastProbeSchema, toLastProbe } from './probe-view.js'
import { HttpMethodEnum, type HttpMethod } from './http-method.js'
import { StringEnum } from './string-enum.js'
import type { Provenance } from './sources.js'
import type { OriginProof } from './ownership-proof.js'
import { SERVICE_STATUSES, type ServiceStatus } from './trust.js'
import type { PrefillInfo } from './listing-text.js'

export const ServiceStatusEnum = StringEnum(SERVICE_STATUSES)

const DecimalString = Type.String({ pattern: '^\\d+(\\.\\d+)?$', examples: ['0.001'] })
const IsoDate = Type.String({ format: 'date-time' })

export const ServiceSchema = Type.Object({
  id: Type.String({ pattern: SERVICE_ID_PATTERN }),
  name: Type.String(),
  description: Type.String(),
  endpoint: Type.String({ format: 'uri' }),
  method: HttpMethodEnum,
  category: Type.String(),
  pricing: Type.Object({
    currency: Type.String(),
    pricePerRequest: Type.Union([DecimalString, Type.Null()], { description: 'Per request, in the currency; null when the price is not fixed (dynamic: the endpoint sets it per request). Price filters leave those out; the price sort puts them last cheapest first, first dearest first' }),
    freeQuota: Type.Integer({ minimum: 0 })
  }),
  x402Config: Type.Object({
    paymentAddress: Type.String(),
    network: Type.String({ description: 'CAIP-2 network id, e.g. eip155:8453' })
  }),
  trustScore: Type.Integer({ minimum: 0, maximum: 100 }),
  status: ServiceStatusEnum,
  supportedChains: Type.Array(Type.String(), { description: 'CAIP-2 ids; the first is x402Config.network' }),
  testnet: Type.Boolean({ description: 'true when every supported chain is a test network (base-sepolia, solana-devnet, …): no real money changes hands. Lists leave such listings out unless asked (testnet=include)' }),
  tags: Type.Array(Type.String(), { description: 'Keywords (at most 5): given, or the endpoint\'s Bazaar tags (resource.tags of its 402 answer)' }),
  claimed: Type.Boolean({ description: 'true when the owner proved control of the endpoint\'s origin (POST /api/claims); false: name and description are the registrant\'s, not confirmed by the provider' }),
  createdAt: IsoDate,
  updatedAt: IsoDate
}, { additionalProperties: false })
export type Service = Static<typeof ServiceSchema>

/** Why a listing was retired: inactive, and kept so by probes, until its owner lists it again. */
const RetiredSchema = Type.Union([
  Type.Object({ reason: Type.String({ examples: ['removed from /.well-known/x402'] }), at: IsoDate }, { additionalProperties: false }),
  Type.Null()
], { description: 'Why the listing was retired (its origin\'s document no longer lists it) and when; null for a listing that was not' })

const ProvenanceSchema = Type.Array(Type.Object({
  id: Type.String({ description: 'The source (GET /api/sources)' }),
  url: Type.String(),
  firstSeenAt: IsoDate,
  lastSeenAt: IsoDate
}, { additionalProperties: false }), { description: 'The sources that list this listing (docs/sources.md), oldest first; empty for a listing no source lists. A source\'s word never sets status: only the catalog\'s probes do' })

const OwnershipProofSchema = Type.Union([
  Type.Object({
    address: Type.String({ description: 'The payTo that signed the origin: this listing\'s own' }),
    document: Type.String({ description: 'The URL of the origin\'s document the proof was read from' }),
    checkedAt: IsoDate
  }, { additionalProperties: false, description: 'When the catalog first found it valid (kept while later reads of the origin still do)' }),
  Type.Null()
], { description: 'An ownership proof (x402scan\'s): the listing\'s payTo signed its origin in the origin\'s OpenAPI document or /.well-known/x402 (docs/sources.md). It shows who is paid vouches for the origin; it moves no listing to any key. Null without one' })

/** One service as GET /api/services/:id shows it: the list view plus how to call it, why it was retired, where it comes from and its origin's proof (lists stay small). */
export const ServiceDetailSchema = Type.Composite([
  ServiceSchema,
  Type.Object({ callSchema: CallSchemaViewSchema, retired: RetiredSchema, sources: ProvenanceSchema, ownershipProof: OwnershipProofSchema })
], { additionalProperties: false })
export type ServiceDetail = Static<typeof ServiceDetailSchema>

export function toServiceDetail (record: ServiceRecord, sources: Provenance[], ownershipProof: OriginProof | null): ServiceDetail {
  return { ...toService(record), callSchema: toCallSchemaView(record), retired: record.prefill?.removed ?? null, sources, ownershipProof }
}

const Usdc = (description: string): ReturnType<typeof Type.Number> => Type.Number({ minimum: 0, description })

export const ServiceStatusSchema = Type.Object({
  id: Type.String(),
  trustScore: Type.Integer({ minimum: 0, maximum: 100, description: 'Status, uptime and measured usage in one score (docs/api.md)' }),
  status: ServiceStatusEnum,
  uptimeScore: Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()], { description: 'Percentage of probes over the last 7 days that got a valid x402 402 answer; null before any probe (nothing measured)' }),
  lastChecked: Type.Union([IsoDate, Type.Null()], { description: 'Time of the last probe; null before the first' }),
  txCount: Type.Integer({ minimum: 0, description: 'x402 payments settled on-chain to this service (see revenueScope), all time' }),
  totalRevenue: Usdc('Their sum, in the pricing currency (USDC)'),
  uniquePayers: Type.Integer({ minimum: 0, description: 'Distinct payer addresses among them' }),
  lastPaymentAt: Type.Union([IsoDate, Type.Null()], { description: 'Block time of the newest payment; null without any' }),
  txCount30d: Type.Integer({ minimum: 0, description: 'Payments in the last 30 days' }),
  revenue30d: Usdc('Their sum, in the pricing currency (USDC)'),
  uniquePayers30d: Type.Integer({ minimum: 0, description: 'Distinct payers in the last 30 days' }),
  revenueSource: StringEnum(['chain', 'none'], { description: 'chain: the service\'s network is watched and the figures are its settlements; none: not measured (figures are whatever was stored while it was, usually 0)' }),
  revenueScope: StringEnum(['service', 'shared'], { description: 'shared: other services list the same payTo and some payments cannot be told apart, so these are the payTo\'s figures' }),
  lastProbe: LastProbeSchema,
  retired: RetiredSchema
}, { additionalProperties: false })
export type ServiceStatusView = Static<typeof ServiceStatusSchema>

/** What the store keeps: prices as integer atomic units, plus fields the API does not show. */
export interface ServiceRecord {
  id: string
  name: string
  description: string
  endpoint: string
  /**
   * The listing's identity with `method` (unique together in every store): the canonical
   * resource URL the endpoint's 402 answer declared at registration, on the endpoint's origin
   * (listingResource, src/domain/endpoint-url.ts); the canonical endpoint when it declared none.
   */
  resource: string
  method: HttpMethod
  category: string
  currency: string
  /** Null: the price is not fixed (dynamic): the source listed no exact positive amount (docs/sources.md). */
  priceAtomic: number | null
  freeQuota: number
  paymentAddress: string
  network: string
  supportedChains: string[]
  status: ServiceStatus
  trustScore: number
  uptimeScore: number | null
  lastChecked: string | null
  /** Usage figures measured on-chain (src/domain/payment.ts), as last computed; null when never measured. */
  usage: ServiceUsage | null
  /** The `accepts` of the last probe that matched the registration (the real requirements); null before one. */
  paymentRequirements: PaymentRequirement[] | null
  /** Id of the API key owner that registered the service; null for seeded services. */
  ownerId: string | null
  /** The owner proved control of the endpoint's origin (src/domain/claims.ts); else the text is only the registrant's. */
  claimed: boolean
  /**
   * How to call the service, as its endpoint's 402 answer declares it (src/domain/call-schema.ts),
   * from the last probe that read a declaration; absent when it declares none. Never the registrant's.
   */
  callSchema?: CallSchema
  /** The endpoint's `extensions.bazaar` exactly as declared (v1: as the Bazaar synthesizes it), echoed by export and discovery; absent with callSchema. */
  bazaarExtension?: Record<string, unknown>
  /** Keywords, given or prefilled from the 402 answer's Bazaar tags. */
  tags: string[]
  /** Which fields were prefilled from the endpoint (a later probe refreshes the text ones); null when all were given. */
  prefill: PrefillInfo | null
  createdAt: string
  updatedAt: string
}

function decimalsOf (currency: string): number {
  return findCurrency(currency)?.decimals ?? 6
}

export function toService (record: ServiceRecord): Service {
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    endpoint: record.endpoint,
    method: record.method,
    category: record.category,
    pricing: {
      currency: record.currency,
      pricePerRequest: record.priceAtomic === null ? null : formatAtomic(record.priceAtomic, decimalsOf(record.currency)),
      freeQuota: record.freeQuota
    },
    x402Config: { paymentAddress: record.paymentAddress, network: record.network },
    trustScore: record.trustScore,
    status: record.status,
    supportedChains: record.supportedChains,
    testnet: isTestListing(record.supportedChains),
    tags: record.tags,
    claimed: record.claimed,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt
  }
}

declare const serviceJsonBrand: unique symbol
/**
 * A service's public view (toService) as JSON text, byte for byte what the response
 * serializer writes for it: a list page is these joined, so a store can keep them with its
 * rows and a list reads one column instead of building and serializing every service.
 */
export type ServiceJson = string & { readonly [serviceJsonBrand]: true }

export function toServiceJson (record: ServiceRecord): ServiceJson {
  return JSON.stringify(toService(record)) as ServiceJson
}

/**
 * Raise when toService's own rules change (a price format, say) without the schema changing.
 * Stores compare SERVICE_JSON_FORMAT with the one their kept texts were made by, and remake
 * them all when it differs. The test networks are part of it: `testnet` follows the table.
 */
const SERVICE_JSON_REVISION = 1
export const SERVICE_JSON_FORMAT = `${SERVICE_JSON_REVISION}.${createHash('sha256').update(JSON.stringify([ServiceSchema, TEST_NETWORK_IDS])).digest('hex').slice(0, 16)}`

/** No payment measured: what a service shows before the watcher found any. */
const NO_USAGE: Omit<ServiceUsage, 'computedAt'> = {
  txCount: 0, revenueAtomic: '0', uniquePayers: 0, lastPaymentAt: null, txCount30d: 0, revenue30dAtomic: '0', uniquePayers30d: 0, scope: 'service'
}

/** Atomic units as a JSON number in the currency: exact to the cent far past any real revenue. */
function amountOf (atomic: string, currency: string): number {
  return Number(formatAtomic(BigInt(atomic), decimalsOf(currency)))
}

/**
 * `usage`: the figures to show (the status route computes them fresh from the payments; null
 * shows zeros); `revenueSource`: whether the service's network is watched (src/domain/usage.ts).
 */
export function toServiceStatus (record: ServiceRecord, lastProbe: ProbeOutcome | null, usage: ServiceUsage | null, revenueSource: 'chain' | 'none'): ServiceStatusView {
  const figures = usage ?? NO_USAGE
  return {
    id: record.id,
    trustScore: record.trustScore,
    status: record.status,
    uptimeScore: record.uptimeScore,
    lastChecked: record.lastChecked,
    txCount: figures.txCount,
    totalRevenue: amountOf(figures.revenueAtomic, record.currency),
    uniquePayers: figures.uniquePayers,
    lastPaymentAt: figures.lastPaymentAt,
    txCount30d: figures.txCount30d,
    revenue30d: amountOf(figures.revenue30dAtomic, record.currency),
    uniquePayers30d: figures.uniquePayers30d,
    revenueSource,
    revenueScope: figures.scope,
    lastProbe: toLastProbe(lastProbe),
    retired: record.prefill?.removed ?? null
  }
}
