/**
 * A generated Bazaar list (a facilitator's `GET /discovery/resources`) for bench:sources, shaped
 * like the real ones (docs/sources.md, src/domain/bazaar-item.ts): x402 v1 and v2 items, about
 * 30 % on base-sepolia beside base mainnet (a few accepting both), Japanese and English text from
 * bench/generate.ts, empty descriptions, hundreds of near-identical agent endpoints on one host,
 * a few control characters, and about 1 % with an empty or zero amount (listed with a dynamic price).
 * Deterministic from a seed. Every host is under `.invalid` (RFC 6761: never resolves), so
 * nothing leaves the machine even if something probed them, unless `origin` places them elsewhere.
 *
 * The server answers pages of at most 100 with `pagination.total`, as the Bazaar does, and lets
 * the benchmark decide when passes run: a pass starts at offset 0, and the first page of one the
 * benchmark has not allowed yet is held until it is (or answered 503 by `refuseHeld`, which ends
 * that pass incomplete, retiring nothing). Meanwhile the pass before stays the source's last.
 */
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { bazaarServiceName } from '../src/domain/bazaar.js'
import { resolveNetwork } from '../src/domain/networks.js'
import { generateServices, prng } from './generate.js'
import { HOST } from './support.js'

/** The Bazaar's page size, and the most a page answers whatever `limit` asks. */
const PAGE_LIMIT = 100
/** The one host of the agent endpoints, and a word only their descriptions hold (searched for to see them indexed). */
export const AGENT_HOST = 'agents.clawdia.ai'
export const AGENT_WORD = 'clawdia'

export interface BazaarList {
  items: unknown[]
  /**
   * What a pass should make of it: items without a fixed price (listed as dynamic), agent endpoints, those a
   * search for AGENT_WORD finds (listed, the word in their text, on mainnet: searches may leave
   * test networks out), and the rest of the mix.
   */
  counts: { dynamic: number, agents: number, agentsSearchable: number, v1: number, testnet: number, emptyDescription: number, controlCharacters: number, bothNetworks: number }
}

const hex = (random: () => number, length: number): string => Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join('')
const CONTROLS = ['\u0007', '\u0000', '\u202e', '\u001b[31m']

/** The `.invalid` origin of a generated host (`api1a.nimbus.co.jp` → `https://api1a.nimbus.invalid`). */
export function invalidOrigin (hostname: string): string {
  return `https://${hostname.split('.').slice(0, 2).join('.')}.invalid`
}

/**
 * `origin` gives the URL prefix each generated host's resources go under (bench:sources' probe
 * measurement puts them on loopback servers, each host under a path of its own).
 */
export function generateBazaarList (n: number, seed: number, origin: (hostname: string) => string = invalidOrigin): BazaarList {
  const random = prng(seed)
  const services = generateServices(n, seed + 1)
  const counts = { dynamic: 0, agents: 0, agentsSearchable: 0, v1: 0, testnet: 0, emptyDescription: 0, controlCharacters: 0, bothNetworks: 0 }
  const lastUpdated = '2026-11-20T00:00:00.000Z'
  const items = services.map((service, index) => {
    const agent = random() < 0.04
    const v1 = random() < 0.4
    const testnet = random() < 0.3
    const both = !testnet && random() < 0.05
    const method = random() < 0.2 ? 'POST' : 'GET'
    let resource: string
    let name: string
    let description: string
    let amount = String(Math.max(1, Math.round(Number(service.pricing.pricePerRequest) * 1e6)))
    if (agent) {
      const id = `${index.toString(16).padStart(5, '0')}${hex(random, 11)}`
      resource = `${origin(AGENT_HOST)}/api/agents/${id}/${method === 'POST' ? 'chat' : 'ask'}`
      name = `agent-${id.slice(0, 8)}`
      description = `Clawdia agent ${id.slice(0, 8)}: an autonomous AI agent you can message. Each message is paid in USDC over x402.`
      amount = '10000'
      counts.agents++
    } else {
      const url = new URL(service.endpoint)
      resource = `${origin(url.hostname)}${url.pathname}`
      name = service.name
      description = service.description
    }
    const roll = random()
    if (roll < 0.05) { description = ''; counts.emptyDescription++ } else if (roll < 0.055) {
      const at = Math.floor(random() * description.length)
      description = `${description.slice(0, at)}${CONTROLS[Math.floor(random() * CONTROLS.length)] as string}${description.slice(at)}`
      counts.controlCharacters++
    }
    if (random() < 0.01) { amount = random() < 0.5 ? '' : '0'; counts.dynamic++ } else if (agent && !testnet && description.toLowerCase().includes(AGENT_WORD)) counts.agentsSearchable++
    if (v1) counts.v1++
    if (testnet) counts.testnet++
    if (both) counts.bothNetworks++
    const payTo = `0x${hex(random, 40)}`
    const networks = both ? ['base', 'base-sepolia'] : [testnet ? 'base-sepolia' : 'base']
    const accepts = networks.map((v1Name) => {
      const network = resolveNetwork(v1Name)
      if (network?.usdc == null) throw new Error(`no USDC known on ${v1Name}`)
      const common = { scheme: 'exact', network: v1 ? v1Name : network.id, asset: network.usdc, payTo, extra: { name: network.usdcEip712?.name ?? 'USD Coin', version: network.usdcEip712?.version ?? '2' } }
      return v1
        ? { ...common, maxAmountRequired: amount, resource, description, mimeType: 'application/json', maxTimeoutSeconds: 60, outputSchema: { input: { type: 'http', method, discoverable: true }, output: null } }
        : { ...common, amount, maxTimeoutSeconds: 300 }
    })
    const usage = { quality: { l30DaysTotalCalls: Math.floor(random() * 5000), l30DaysUniquePayers: Math.floor(random() * 300) } }
    if (v1) return { resource, type: 'http', x402Version: 1, accepts, lastUpdated, metadata: {}, ...usage }
    return {
      resource,
      type: 'http',
      x402Version: 2,
      accepts,
      lastUpdated,
      description,
      mimeType: 'application/json',
      // The Bazaar's serviceName rule: a Japanese name (or a long one) has none.
      ...(bazaarServiceName(name) === undefined ? {} : { serviceName: name }),
      tags: agent ? ['agent', 'ai'] : [service.category],
      extensions: { bazaar: { info: { input: { type: 'http', method, ...(method === 'POST' ? { bodyType: 'json', body: { message: 'hello' } } : { queryParams: { q: 'tokyo' } }) }, output: { type: 'json' } } } },
      ...usage
    }
  })
  return { items, counts }
}

export interface BazaarSource {
  url: string
  /** Lets `count` more passes read the list (a pass is a read from offset 0); a held one goes on at once. */
  allowPasses: (count: number) => void
  /** Answers 503 to the first pages held (before stopping the catalog that asked them). */
  refuseHeld: () => void
  /** performance.now() at which each allowed pass got its first page, and of the last page served. */
  passStarts: number[]
  lastPageAt: () => number
  close: () => Promise<void>
}

export async function startBazaarSource (items: readonly unknown[]): Promise<BazaarSource> {
  const pages = new Map<number, Buffer>()
  const passStarts: number[] = []
  const held: Array<{ serve: () => void, refuse: () => void }> = []
  let allowed = 0
  let lastPageAt = 0
  const page = (offset: number, limit: number): Buffer => {
    // Serialised once per page: the source's own cost stays out of the catalog's figures.
    let body = limit === PAGE_LIMIT ? pages.get(offset) : undefined
    if (body === undefined) {
      body = Buffer.from(JSON.stringify({ x402Version: 2, items: items.slice(offset, offset + limit), pagination: { limit, offset, total: items.length } }))
      if (limit === PAGE_LIMIT) pages.set(offset, body)
    }
    return body
  }
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://source')
    if (url.pathname !== '/discovery/resources') { res.writeHead(404).end(); return }
    const offset = Math.max(0, Number(url.searchParams.get('offset') ?? 0) || 0)
    const limit = Math.min(PAGE_LIMIT, Math.max(1, Number(url.searchParams.get('limit') ?? PAGE_LIMIT) || PAGE_LIMIT))
    const serve = (): void => {
      if (offset === 0) passStarts.push(performance.now())
      const body = page(offset, limit)
      lastPageAt = performance.now()
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.byteLength }).end(body)
    }
    if (offset > 0) { serve(); return }
    if (allowed > 0) { allowed--; serve(); return }
    const entry = { serve, refuse: () => { res.writeHead(503, { 'content-type': 'text/plain' }).end('busy') } }
    held.push(entry)
    // A reader that gave up (its time budget) is no longer waiting.
    res.once('close', () => { const at = held.indexOf(entry); if (at >= 0) held.splice(at, 1) })
  })
  server.listen(0, HOST)
  await once(server, 'listening')
  // A benchmark that fails midway must still exit.
  server.unref()
  return {
    url: `http://${HOST}:${(server.address() as AddressInfo).port}`,
    allowPasses: (count) => {
      allowed += count
      while (allowed > 0 && held.length > 0) { allowed--; held.shift()?.serve() }
    },
    refuseHeld: () => { for (const entry of held.splice(0)) entry.refuse() },
    passStarts,
    lastPageAt: () => lastPageAt,
    close: async () => { server.closeAllConnections(); server.close(); await once(server, 'close') }
  }
}
