/**
 * The catalog as an MCP server for agents: read-only tools over the same store and search
 * engine as the HTTP API, answering with what an agent needs to pay for and call a service.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { toCallSchemaView } from '../domain/call-schema.js'
import { CATEGORIES } from '../domain/categories.js'
import { SERVICE_ID_PATTERN, SERVICE_ID_WORDS } from '../domain/ids.js'
import { resolveNetwork } from '../domain/networks.js'
import { toService, toServiceStatus, type ServiceRecord, type ServiceStatusView } from '../domain/service.js'
import { toPaymentView } from '../domain/payment-view.js'
import { revenueSourceOf } from '../domain/usage.js'
import { listingProof } from '../application/origin-proofs.js'
import { listingProvenance } from '../application/sync-source.js'
import { attributedPayments, currentUsage } from '../application/usage.js'
import { MAX_OFFSET, PRICE_PATTERN, PRICE_WORDS, toStoreQuery } from '../domain/service-query.js'
import { SERVICE_STATUSES } from '../domain/trust.js'
import { NotFoundError, ValidationError } from '../errors.js'
import { MAX_QUERY_LENGTH, searchServices, type SearchDeps } from '../search/service-search.js'
import { SORT_FIELDS, TESTNET_MODES } from '../domain/catalog-query.js'

/** The store and the search application's dependencies (engine, tokenizer), and the watched networks (revenueSource). */
export type CatalogDeps = SearchDeps & { chainNetworks: ReadonlySet<string> }

/** Payments get_service_status shows: the newest few, enough to check some on a block explorer. */
export const LATEST_PAYMENTS = 5

/** At most this many services per search_services call: an agent's context is small. */
export const MAX_TOOL_RESULTS = 50

/** How to pay for and call one service, as an agent needs it. */
/** Runs `work`, naming a validation failure of `from` (the list API's name) as `to` (this tool's argument). */
function renameField<T> (from: string, to: string, work: () => T): T {
  try {
    return work()
  } catch (err) {
    if (err instanceof ValidationError && err.field === from) throw new ValidationError(to, err.message.slice(from.length + 2))
    throw err
  }
}

export function agentView (record: ServiceRecord): Record<string, unknown> {
  const service = toService(record)
  const network = resolveNetwork(record.network)
  // Services registered before methods were recorded are GET endpoints.
  const method = (record as ServiceRecord & { method?: string }).method ?? 'GET'
  return {
    id: service.id,
    name: service.name,
    description: service.description,
    // An agent should not take a squatter's words for the provider's.
    claimed: record.claimed,
    textBy: record.claimed ? 'provider (proved control of the origin)' : 'registrant (not confirmed by the provider)',
    category: service.category,
    endpoint: service.endpoint,
    method,
    // A test network's payments are worthless: an agent should know it is not calling a real paid API.
    testnet: service.testnet,
    payment: {
      protocol: 'x402',
      network: record.network,
      networkName: network?.v1Name ?? null,
      payTo: record.paymentAddress,
      asset: network?.usdc ?? null,
      currency: service.pricing.currency,
      price: service.pricing.pricePerRequest,
      // Null with price: the endpoint sets it per request (a dynamic price).
      amount: record.priceAtomic === null ? null : String(record.priceAtomic),
      freeQuota: service.pricing.freeQuota,
      supportedChains: record.supportedChains.map((id) => ({ network: id, asset: resolveNetwork(id)?.usdc ?? null }))
    },
    status: service.status,
    trustScore: service.trustScore,
    uptimeScore: record.uptimeScore,
    detailUrl: `/api/services/${service.id}`
  }
}

export interface CatalogServerOptions {
  /** Bytes the tool answers of this server (one HTTP request) may take in all; a call past it answers an error. */
  answerBytes: number
}

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
// Messages carry words, not the regex (zod's default shows it).
const ServiceId = z.string().regex(new RegExp(SERVICE_ID_PATTERN), `must be ${SERVICE_ID_WORDS}`).describe('Service id (svc_…), from search_services')

export function createCatalogServer (deps: CatalogDeps, version: string, options: CatalogServerOptions): McpServer {
  let bytesLeft = options.answerBytes
  /** A tool's answer, its text and structured content the same JSON; an error once the request's answers would pass their bound. */
  function result (value: Record<string, unknown>): CallToolResult {
    const text = JSON.stringify(value)
    // The answer carries the value twice: as structured content, and as text (escaped once more).
    const bytes = Buffer.byteLength(text) + Buffer.byteLength(JSON.stringify(text))
    if (bytes > bytesLeft) {
      return {
        isError: true,
        content: [{
          type: 'text',
          text: `answer too large: this answer is ${Math.ceil(bytes / 1024)} KiB and the tool answers of one request may take ` +
            `${Math.floor(options.answerBytes / 1024)} KiB in all (${Math.floor(Math.max(0, bytesLeft) / 1024)} KiB left); ask for fewer results (limit) or send fewer calls per request`
        }]
      }
    }
    bytesLeft -= bytes
    return { content: [{ type: 'text', text }], structuredContent: value }
  }

  const server = new McpServer({ name: 'x402-service-catalog', version }, {
    instructions: 'A catalog of paid HTTP APIs that accept x402 payments (HTTP 402, USDC). Find a service with ' +
      'search_services, then call its endpoint with its method: it answers 402 with payment requirements; pay ' +
      '`amount` atomic units of `asset` on `network` to `payTo` with an x402 client and retry.'
  })

  async function findRecord (id: string): Promise<ServiceRecord> {
    const record = await deps.store.getService(id)
    if (record === null) throw new NotFoundError(`service ${id} not found`)
    return record
  }

  /** The same object as GET /api/services/:id/status. */
  async function statusOf (record: ServiceRecord): Promise<ServiceStatusView> {
    const [lastProbe, usage] = await Promise.all([deps.store.lastProbe(record.id), currentUsage(deps.store, record, new Date())])
    return toServiceStatus(record, lastProbe, usage, revenueSourceOf(record.network, deps.chainNetworks))
  }

  server.registerTool('search_services', {
    title: 'Search paid APIs',
    description: 'Find x402 paid APIs by what they do, in English or Japanese (typo-tolerant; keywords or a sentence such as ' +
      '"weather forecast for Tokyo" or "東京の天気"), with optional filters. Constraints in the query ("under $0.01", "cheap", ' +
      '"on solana", "verified", "0.01ドル以下", "検証済み") become filters and a sort; the answer lists them (filters) and the words ' +
      'taken out (removed); explicit arguments win. Without query, lists by filters. Each result has the endpoint, method, price ' +
      'and payment details.',
    inputSchema: {
      query: z.string().min(1).max(MAX_QUERY_LENGTH).optional().describe('What the API should do'),
      category: z.string().max(64).optional().describe('Category id from list_categories'),
      network: z.string().max(64).optional().describe('Payment network: x402 name (base, solana) or CAIP-2 id (eip155:8453)'),
      status: z.enum(SERVICE_STATUSES).optional().describe('verified: probed and answering'),
      testnet: z.enum(TESTNET_MODES).optional().describe('Listings on test networks (no real payments): exclude (default, unless network names a test network), include, or only them'),
      maxPricePerRequest: z.string().regex(new RegExp(PRICE_PATTERN), `must be ${PRICE_WORDS}`).max(40).optional().describe('Highest acceptable price per request in USDC, e.g. "0.01"'),
      sortBy: z.enum(SORT_FIELDS).optional().describe('Default: relevance with a query, trustScore without'),
      limit: z.number().int().min(1).max(MAX_TOOL_RESULTS).default(10),
      offset: z.number().int().min(0).max(MAX_OFFSET).default(0)
    },
    annotations: { title: 'Search paid APIs', ...READ_ONLY }
  }, async (args) => {
    const { filter, sort, page } = renameField('chain', 'network', () => toStoreQuery({
      ...(args.category === undefined ? {} : { category: args.category }),
      ...(args.network === undefined ? {} : { chain: args.network }),
      ...(args.status === undefined ? {} : { status: args.status }),
      ...(args.testnet === undefined ? {} : { testnet: args.testnet }),
      ...(args.maxPricePerRequest === undefined ? {} : { maxPricePerRequest: args.maxPricePerRequest }),
      ...(args.sortBy === undefined ? {} : { sortBy: args.sortBy }),
      limit: args.limit,
      offset: args.offset
    }))
    if (args.query === undefined || args.query.trim() === '') {
      const listed = await deps.store.listServices(filter, sort ?? { field: 'trustScore', order: 'desc' }, page)
      return result({ total: listed.total, results: listed.items.map(agentView) })
    }
    // Agents tend to write sentences: drop their request phrasing as intent search does.
    const found = await searchServices(deps, { text: args.query, style: 'intent', filter, sort, page, parseConstraints: true })
    return result({
      total: found.total,
      totalExact: found.totalExact,
      filters: found.understood?.filters ?? {},
      removed: found.understood?.removed ?? [],
      results: found.hits.map((hit) => ({ ...agentView(hit.record), score: hit.score, matchedTokens: [...new Set(hit.matchedTokens.map((m) => m.word))] }))
    })
  })

  server.registerTool('get_service', {
    title: 'One paid API',
    description: 'Everything about one service: endpoint, method, price and payment details, status and monitoring figures, and how to ' +
      'call it when its endpoint declares it (callSchema: the input schema, an example input, the output, and exampleCall, a request to make; null when undeclared). ' +
      'sources: the other lists it was mirrored from (none for a registration); ownershipProof: a signature of the origin by this payTo, published by the origin (null when none).',
    inputSchema: { id: ServiceId },
    annotations: { title: 'One paid API', ...READ_ONLY }
  }, async ({ id }) => {
    const record = await findRecord(id)
    const [monitoring, sources, ownershipProof] = await Promise.all([statusOf(record), listingProvenance(deps.store, record.id), listingProof(deps.store, record)])
    return result({ ...agentView(record), callSchema: toCallSchemaView(record), monitoring, sources, ownershipProof, createdAt: record.createdAt, updatedAt: record.updatedAt })
  })

  server.registerTool('get_service_status', {
    title: 'Health of a paid API',
    description: 'Trust and monitoring signals of one service (status, trust score, uptime, last check) and its usage measured ' +
      'on-chain (payments, revenue, distinct payers, all time and 30 days; revenueSource "none" means not measured), with the ' +
      'latest payments (transaction hashes to check on a block explorer): check before paying.',
    inputSchema: { id: ServiceId },
    annotations: { title: 'Health of a paid API', ...READ_ONLY }
  }, async ({ id }) => {
    const record = await findRecord(id)
    const [status, latest] = await Promise.all([statusOf(record), attributedPayments(deps.store, record, { limit: LATEST_PAYMENTS, offset: 0 })])
    return result({ ...status, latestPayments: latest.items.map(toPaymentView) })
  })

  server.registerTool('list_categories', {
    title: 'Categories',
    description: 'The catalog\'s categories (English and Japanese names) with their service counts; use an id as search_services\' category.',
    annotations: { title: 'Categories', ...READ_ONLY }
  }, async () => {
    const counts = await deps.store.countByCategory()
    return result({ categories: CATEGORIES.map((category) => ({ ...category, count: counts.get(category.id) ?? 0 })) })
  })

  return server
}
