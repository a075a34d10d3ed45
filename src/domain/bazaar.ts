/**
 * The catalog in the x402 Bazaar discovery format (what `withBazaar(...).listResources()` and
 * scanners read): one item per service. `accepts` are the real requirements from the last
 * matching probe where there is one, else built from the registration.
 */
import { Type, type Static } from '@sinclair/typebox'
import { sanitizeTags } from '@x402/extensions/bazaar'
import { isExtensionKey, testnetFilter, type CatalogFilter, type TestnetMode } from './catalog-query.js'
import { requireCategory } from './categories.js'
import { HttpMethodEnum } from './http-method.js'
import { findCurrency, formatAtomic } from './money.js'
import { resolveNetwork } from './networks.js'
import type { ServiceUsage } from './payment.js'
import type { PaymentRequirement } from './probe.js'
import { canonicalNetwork } from './registration.js'
import type { Provenance } from './sources.js'
import { ServiceStatusEnum, type ServiceRecord } from './service.js'
import { StringEnum } from './string-enum.js'
import type { ServiceStatus } from './trust.js'

export const BAZAAR_X402_VERSION = 2
/** x402 resource servers' default (`@x402/core` x402ResourceServer: `maxTimeoutSeconds || 300`). */
export const DEFAULT_MAX_TIMEOUT_SECONDS = 300
/** The catalog does not know what a paid endpoint returns; x402 APIs overwhelmingly answer JSON. */
export const DEFAULT_MIME_TYPE = 'application/json'

/** One `accepts` entry: the v2 shape plus v1's `maxAmountRequired` (same atomic amount) for v1 readers. */
export const BazaarAcceptSchema = Type.Object({
  scheme: Type.String(),
  network: Type.String({ description: 'CAIP-2 id' }),
  amount: Type.String({ pattern: '^\\d*$', description: 'Atomic units; empty when the price is not fixed (dynamic), as Bazaar lists write it' }),
  maxAmountRequired: Type.String({ pattern: '^\\d*$', description: 'Same as amount (x402 v1 name)' }),
  asset: Type.String(),
  payTo: Type.String(),
  maxTimeoutSeconds: Type.Number({ exclusiveMinimum: 0 }),
  extra: Type.Optional(Type.Record(Type.String(), Type.Unknown()))
})
export type BazaarAccept = Static<typeof BazaarAcceptSchema>

export const BazaarItemSchema = Type.Object({
  resource: Type.String({ description: 'The paid endpoint' }),
  type: Type.Literal('http'),
  x402Version: Type.Integer(),
  accepts: Type.Array(BazaarAcceptSchema, { description: 'From the last probe that matched the registration, else built from the registration' }),
  lastUpdated: Type.String({ format: 'date-time' }),
  description: Type.String(),
  mimeType: Type.String(),
  serviceName: Type.Optional(Type.String({ description: 'The name, when it is printable ASCII of at most 32 characters (the Bazaar rule); metadata.name always has it' })),
  tags: Type.Array(Type.String(), { description: 'The category id first, then the service\'s own tags, held to the Bazaar\'s rules (printable ASCII, at most 32 characters, duplicates ignoring case dropped, at most 5)' }),
  extensions: Type.Optional(Type.Object({
    bazaar: Type.Record(Type.String(), Type.Unknown(), { description: 'The Bazaar discovery extension (info and schema: how to call the resource) exactly as the endpoint\'s 402 answer declared it at the last probe; for an x402 v1 endpoint, as the Bazaar builds it from the answer\'s outputSchema' })
  }, { description: 'Absent when the endpoint declares no discovery extension' })),
  quality: Type.Optional(Type.Object({
    l30DaysTotalCalls: Type.Integer({ minimum: 0, description: 'x402 payments settled on-chain in the 30 days before the figures were computed' }),
    l30DaysUniquePayers: Type.Integer({ minimum: 0, description: 'Distinct payers among them' }),
    lastCalledAt: Type.Optional(Type.String({ format: 'date-time', description: 'Block time of the newest payment; absent without any' }))
  }, { description: 'Usage measured on-chain (the field names of Coinbase\'s discovery API), as last computed; absent before they first were (a network no watcher reads)' })),
  metadata: Type.Object({
    id: Type.String({ description: 'Catalog service id' }),
    name: Type.String(),
    category: Type.String(),
    status: ServiceStatusEnum,
    trustScore: Type.Integer(),
    method: HttpMethodEnum,
    supportedChains: Type.Array(Type.String()),
    pricing: Type.Object({ currency: Type.String(), pricePerRequest: Type.Union([Type.String(), Type.Null()], { description: 'null when the price is not fixed (dynamic)' }), freeQuota: Type.Integer() }),
    acceptsSource: StringEnum(['probe', 'registration'], { description: 'Where accepts came from' }),
    claimed: Type.Boolean({ description: 'true when the owner proved control of the resource\'s origin; false: description and name are the registrant\'s, not confirmed by the provider' }),
    sources: Type.Optional(Type.Array(Type.Object({
      id: Type.String(),
      url: Type.String(),
      firstSeenAt: Type.String({ format: 'date-time' }),
      lastSeenAt: Type.String({ format: 'date-time' })
    }, { additionalProperties: false }), { description: 'The export only: the lists this listing was mirrored from (docs/sources.md), oldest first; empty for a listing registered here alone' }))
  })
})
export type BazaarItem = Static<typeof BazaarItemSchema>

export const BazaarListResponseSchema = Type.Object({
  x402Version: Type.Integer(),
  items: Type.Array(BazaarItemSchema),
  pagination: Type.Object({ limit: Type.Integer(), offset: Type.Integer(), total: Type.Integer() })
})

export const BazaarSearchResponseSchema = Type.Object({
  x402Version: Type.Integer(),
  resources: Type.Array(BazaarItemSchema),
  partialResults: Type.Boolean({ description: 'More matches exist beyond this page (see pagination.cursor)' }),
  pagination: Type.Object({ limit: Type.Integer(), cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last' }) })
})

/** What the export and the Bazaar routes filter on, as sent (validated by toCatalogFilter). */
export interface BazaarFilterInput {
  status?: ServiceStatus
  network?: string
  category?: string
  payTo?: string
  type?: string
  scheme?: string
  extensions?: string
  testnet?: TestnetMode
}

/**
 * The store filter for export and discovery, or a ValidationError naming the field; null when
 * the filter can match nothing the catalog publishes: another resource type or scheme (the
 * catalog lists `http` resources paid with `exact`), or an extension key other than `bazaar`
 * (the one declaration it keeps; keys compare exactly, as the Bazaar's do).
 */
export function toCatalogFilter (input: BazaarFilterInput): CatalogFilter | null {
  const filter: CatalogFilter = {}
  if (input.category !== undefined) filter.category = requireCategory('category', input.category)
  if (input.network !== undefined) filter.chain = canonicalNetwork('network', input.network).id
  if (input.status !== undefined) filter.status = input.status
  if (input.payTo !== undefined) filter.payTo = input.payTo
  const testnet = testnetFilter(input.testnet, filter.chain)
  if (testnet !== undefined) filter.testnet = testnet
  if ((input.type !== undefined && input.type !== 'http') || (input.scheme !== undefined && input.scheme !== 'exact')) return null
  if (input.extensions !== undefined) {
    if (!isExtensionKey(input.extensions)) return null
    filter.extension = input.extensions
  }
  return filter
}

const PRINTABLE_ASCII = /^[\x20-\x7e]{1,32}$/

/** The Bazaar's serviceName rule (@x402/extensions isValidServiceName): printable ASCII, 1–32 characters. */
export function bazaarServiceName (name: string): string | undefined {
  return PRINTABLE_ASCII.test(name) ? name : undefined
}

/**
 * An item's `tags`: the category id first (what `tags` always held, so readers of `tags[0]`
 * keep the category), then the service's own tags, through the Bazaar's own sanitizer: a tag
 * the Bazaar would drop (not printable ASCII, say a Japanese one) is left out, duplicates
 * ignoring case go, at most five (a fifth own tag gives way to the category).
 */
export function bazaarTags (record: Pick<ServiceRecord, 'category' | 'tags'>): string[] {
  return sanitizeTags([record.category, ...record.tags]) ?? []
}

/**
 * Requirements a paying client would see, derived from the registration: `exact` USDC on
 * each supported chain at the registered price (an empty amount when it is dynamic, as Bazaar
 * lists write one). A chain whose USDC the x402 packages do not know is left out (no asset to name).
 */
export function acceptsFromRegistration (record: ServiceRecord): BazaarAccept[] {
  const amount = record.priceAtomic === null ? '' : String(record.priceAtomic)
  return record.supportedChains.flatMap((chain): BazaarAccept[] => {
    const network = resolveNetwork(chain)
    if (network?.usdc == null) return []
    const accept: BazaarAccept = {
      scheme: 'exact',
      network: network.id,
      amount,
      maxAmountRequired: amount,
      asset: network.usdc,
      payTo: record.paymentAddress,
      maxTimeoutSeconds: DEFAULT_MAX_TIMEOUT_SECONDS
    }
    // EVM exact payments sign an EIP-3009 authorization against the token's EIP-712 domain.
    if (network.usdcEip712 !== undefined) accept.extra = { name: network.usdcEip712.name, version: network.usdcEip712.version }
    return [accept]
  })
}

/**
 * Stored figures (a change-feed event moves them, so the export's ETag stays honest). With a
 * shared payTo they are the payTo's, as /api/services/:id/status says (revenueScope).
 */
function qualityOf (usage: ServiceUsage): NonNullable<BazaarItem['quality']> {
  return {
    l30DaysTotalCalls: usage.txCount30d,
    l30DaysUniquePayers: usage.uniquePayers30d,
    ...(usage.lastPaymentAt === null ? {} : { lastCalledAt: usage.lastPaymentAt })
  }
}

/** An item with the listing's provenance, as the export carries it. */
export function withProvenance (item: BazaarItem, sources: readonly Provenance[]): BazaarItem {
  return { ...item, metadata: { ...item.metadata, sources: [...sources] } }
}

export function toBazaarItem (record: ServiceRecord): BazaarItem {
  // A dynamic price's probe may have matched any scheme and amount: its items keep to what is known (exact, no amount).
  const fromProbe = record.paymentRequirements !== null && record.paymentRequirements.length > 0 && record.priceAtomic !== null
  const accepts = fromProbe
    ? (record.paymentRequirements as PaymentRequirement[]).map((req) => ({ ...req, maxAmountRequired: req.amount }))
    : acceptsFromRegistration(record)
  const acceptsSource: 'probe' | 'registration' = fromProbe ? 'probe' : 'registration'
  // Only what a change-feed event changes, so the export's ETag (the store's sequence) is honest:
  // per-probe figures (uptime, last check) move without one and live at /api/services/:id/status.
  const lastUpdated = record.updatedAt
  const serviceName = bazaarServiceName(record.name)
  return {
    resource: record.endpoint,
    type: 'http',
    x402Version: BAZAAR_X402_VERSION,
    accepts,
    lastUpdated,
    description: record.description,
    mimeType: DEFAULT_MIME_TYPE,
    ...(serviceName === undefined ? {} : { serviceName }),
    tags: bazaarTags(record),
    ...(record.bazaarExtension === undefined ? {} : { extensions: { bazaar: record.bazaarExtension } }),
    ...(record.usage === null ? {} : { quality: qualityOf(record.usage) }),
    metadata: {
      id: record.id,
      name: record.name,
      category: record.category,
      status: record.status,
      trustScore: record.trustScore,
      method: record.method,
      supportedChains: record.supportedChains,
      pricing: {
        currency: record.currency,
        pricePerRequest: record.priceAtomic === null ? null : formatAtomic(record.priceAtomic, findCurrency(record.currency)?.decimals ?? 6),
        freeQuota: record.freeQuota
      },
      acceptsSource,
      claimed: record.claimed
    }
  }
}
