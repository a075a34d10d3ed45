/**
 * CATALOG_CHAINS: the JSON file naming the networks whose USDC settlements the chain watcher
 * follows. Parsed and checked once at start; each problem is one line naming the file and the
 * field (`[0].confirmations`), so an operator can fix it without reading code. RPC URLs often
 * carry an API key, so they are never echoed.
 */
import { readFileSync } from 'node:fs'
import { resolveNetwork, type Network } from '../domain/networks.js'

export interface ChainConfig {
  /** CAIP-2 id, e.g. eip155:8453. */
  network: string
  /** JSON-RPC endpoint (http or https); may hold a key: never logged or shown. */
  rpcUrl: string
  /** The USDC contract, lower case. */
  usdc: string
  /** Its EIP-712 domain (x402 `extra.name`/`extra.version`). */
  usdcEip712: { name: string, version: string }
  /** Blocks below the head a block must be before it is scanned. */
  confirmations: number
  /** First block scanned for a payTo that was never scanned (backfill starts here). */
  startBlock: number
  /** Facilitator addresses (lower case): their transactions' Transfers count as payments (the Permit2 path). */
  facilitators: string[]
}

/** Blocks a payment must be buried under before it counts: a reorg deeper than this is undone by the checkpoints. */
export const DEFAULT_CONFIRMATIONS = 5
const MAX_CONFIRMATIONS = 10_000
/** FiatTokenV2's domain: the default for a network the built-in table does not know. */
const FIAT_TOKEN_EIP712 = { name: 'USD Coin', version: '2' }
const FIELDS = ['network', 'rpcUrl', 'usdc', 'usdcEip712', 'confirmations', 'startBlock', 'facilitators']
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/
const CAIP2_EVM = /^eip155:[1-9]\d{0,18}$/

export class ChainConfigError extends Error {}

function describe (value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 57)}…` : text
}

function integer (value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ChainConfigError(`${field} must be an integer from ${min} to ${max}, got ${describe(value)}`)
  }
  return value
}

function address (value: unknown, field: string): string {
  if (typeof value !== 'string' || !EVM_ADDRESS.test(value)) throw new ChainConfigError(`${field} must be an EVM address (0x and 40 hex digits), got ${describe(value)}`)
  return value.toLowerCase()
}

function chainOf (item: unknown, at: string): ChainConfig {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new ChainConfigError(`${at} must be an object, got ${describe(item)}`)
  const entry = item as Record<string, unknown>
  const unknown = Object.keys(entry).find((key) => !FIELDS.includes(key))
  if (unknown !== undefined) throw new ChainConfigError(`${at}.${unknown} is not a field (fields: ${FIELDS.join(', ')})`)

  const name = entry.network
  if (typeof name !== 'string' || name === '') throw new ChainConfigError(`${at}.network must be a CAIP-2 id such as eip155:8453 or an x402 network name, got ${describe(name)}`)
  const known = resolveNetwork(name)
  if (known !== undefined && known.family !== 'evm') throw new ChainConfigError(`${at}.network ${known.id}: only EVM (eip155) networks are watched so far`)
  if (known === undefined && !CAIP2_EVM.test(name)) throw new ChainConfigError(`${at}.network must be a CAIP-2 id such as eip155:8453 or an x402 network name, got ${describe(name)}`)
  const network = known?.id ?? name

  const rpcUrl = entry.rpcUrl
  let url: URL | undefined
  try {
    url = typeof rpcUrl === 'string' ? new URL(rpcUrl) : undefined
  } catch {}
  // Not echoed: an RPC URL usually holds the provider's key.
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new ChainConfigError(`${at}.rpcUrl must be an http(s) URL`)

  const usdc = entry.usdc === undefined ? known?.usdc?.toLowerCase() : address(entry.usdc, `${at}.usdc`)
  if (usdc === undefined) throw new ChainConfigError(`${at}.usdc is required: the catalog knows no USDC contract on ${network}`)

  let usdcEip712 = known?.usdcEip712 ?? FIAT_TOKEN_EIP712
  if (entry.usdcEip712 !== undefined) {
    const domain = entry.usdcEip712 as Record<string, unknown> | null
    if (typeof domain !== 'object' || domain === null || typeof domain.name !== 'string' || domain.name === '' ||
      typeof domain.version !== 'string' || domain.version === '' || Object.keys(domain).length !== 2) {
      throw new ChainConfigError(`${at}.usdcEip712 must be { "name": "…", "version": "…" }, got ${describe(domain)}`)
    }
    usdcEip712 = { name: domain.name, version: domain.version }
  }

  const facilitators = entry.facilitators ?? []
  if (!Array.isArray(facilitators)) throw new ChainConfigError(`${at}.facilitators must be an array of EVM addresses, got ${describe(facilitators)}`)

  return {
    network,
    rpcUrl: url.href,
    usdc,
    usdcEip712,
    confirmations: entry.confirmations === undefined ? DEFAULT_CONFIRMATIONS : integer(entry.confirmations, `${at}.confirmations`, 0, MAX_CONFIRMATIONS),
    startBlock: entry.startBlock === undefined ? 0 : integer(entry.startBlock, `${at}.startBlock`, 0, Number.MAX_SAFE_INTEGER),
    facilitators: facilitators.map((f: unknown, i) => address(f, `${at}.facilitators[${i}]`))
  }
}

/** The chains of a CATALOG_CHAINS document (its text); throws ChainConfigError naming the field. */
export function parseChains (text: string): ChainConfig[] {
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch (err) {
    throw new ChainConfigError(`is not JSON: ${(err as Error).message}`)
  }
  if (!Array.isArray(document)) throw new ChainConfigError(`must be a JSON array of chains, got ${describe(document)}`)
  const chains = document.map((item, i) => chainOf(item, `[${i}]`))
  const seen = new Set<string>()
  chains.forEach((chain, i) => {
    if (seen.has(chain.network)) throw new ChainConfigError(`[${i}].network ${chain.network} is listed twice`)
    seen.add(chain.network)
  })
  return chains
}

/** Reads and parses the file CATALOG_CHAINS names; the error names the file. */
export function loadChains (path: string): ChainConfig[] {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw new ChainConfigError(`CATALOG_CHAINS: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
  }
  try {
    return parseChains(text)
  } catch (err) {
    throw new ChainConfigError(`CATALOG_CHAINS file ${path}: ${(err as Error).message}`)
  }
}

/** The table entries of the watched networks the built-in table lacks (see registerNetworks). */
export function chainNetworks (chains: readonly ChainConfig[]): Array<Omit<Network, 'testnet'>> {
  return chains.filter((chain) => resolveNetwork(chain.network) === undefined)
    .map((chain) => ({ id: chain.network, v1Name: null, family: 'evm', usdc: chain.usdc, usdcEip712: chain.usdcEip712 }))
}
