/**
 * Builds the network table (`src/domain/networks.generated.json`) from the official
 * x402 packages, so network names, CAIP-2 ids and USDC assets are never hand-written.
 * Whether a network is a test network comes from the packages' own sources: viem's chain
 * definitions (`testnet`, what @x402/evm builds on) for EVM, @x402/svm's devnet and testnet
 * ids for Solana; the x402 packages keep no such flag themselves.
 * Run `npm run networks:generate` after upgrading @x402/* or viem; test/domain/networks.test.ts fails
 * when the committed table drifts from the installed packages.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DEFAULT_ASSETS as EVM_ASSETS } from '@x402/evm'
import { EVM_NETWORK_CHAIN_ID_MAP } from '@x402/evm/v1'
import { DEFAULT_ASSETS as SVM_ASSETS, SOLANA_DEVNET_CAIP2, SOLANA_MAINNET_CAIP2, SOLANA_TESTNET_CAIP2, V1_TO_V2_NETWORK_MAP } from '@x402/svm'
import * as viemChains from 'viem/chains'
import { PROJECT_ROOT } from '../src/paths.js'

export interface NetworkEntry {
  /** CAIP-2 id, the canonical form the catalog stores. */
  id: string
  /** x402 v1 network name, when v1 had one. */
  v1Name: string | null
  family: 'evm' | 'svm'
  /** A test network (base-sepolia, solana-devnet, …): its money is worthless, so its listings are no real paid APIs. */
  testnet: boolean
  /** USDC token address on this network, when the x402 packages know it. */
  usdc: string | null
  /**
   * EVM only: the USDC contract's EIP-712 domain name and version, which x402's exact scheme
   * puts in `extra` (a payer signs against them), when the x402 packages know them.
   */
  usdcEip712?: { name: string, version: string }
}

interface Asset { asset: string, symbol: string, name?: string, version?: string }

function usdcOf (assets: Record<string, readonly Asset[]>, id: string): string | null {
  return assets[id]?.find((a) => a.symbol === 'USDC')?.asset ?? null
}

/** viem's `testnet` flags per chain id: one per definition (viem defines some chains twice). */
const viemTestnet = new Map<number, Set<boolean>>()
for (const chain of Object.values(viemChains as Record<string, unknown>)) {
  const { id, testnet } = chain as { id?: unknown, testnet?: unknown }
  if (typeof id !== 'number') continue
  const flags = viemTestnet.get(id) ?? new Set<boolean>()
  viemTestnet.set(id, flags.add(testnet === true))
}

function evmTestnet (id: string): boolean {
  const flags = [...viemTestnet.get(Number(id.slice('eip155:'.length))) ?? []]
  // Never guessed from the name: a network viem lacks, or defines both ways, fails the build.
  if (flags.length !== 1) throw new Error(`viem ${flags.length === 0 ? 'knows no chain' : 'disagrees about'} ${id}: cannot tell whether it is a test network`)
  return flags[0] as boolean
}

const SVM_TESTNETS = new Map([[SOLANA_MAINNET_CAIP2, false], [SOLANA_DEVNET_CAIP2, true], [SOLANA_TESTNET_CAIP2, true]])

function svmTestnet (id: string): boolean {
  const testnet = SVM_TESTNETS.get(id)
  if (testnet === undefined) throw new Error(`@x402/svm names no Solana cluster ${id}: cannot tell whether it is a test network`)
  return testnet
}

function evmEntry (id: string, v1Name: string | null, assets: Record<string, readonly Asset[]>): NetworkEntry {
  const usdc = assets[id]?.find((a) => a.symbol === 'USDC')
  const entry: NetworkEntry = { id, v1Name, family: 'evm', testnet: evmTestnet(id), usdc: usdc?.asset ?? null }
  if (usdc?.name !== undefined && usdc.version !== undefined) entry.usdcEip712 = { name: usdc.name, version: usdc.version }
  return entry
}

export function buildNetworkTable (): NetworkEntry[] {
  const evmAssets = EVM_ASSETS as unknown as Record<string, readonly Asset[]>
  const svmAssets = SVM_ASSETS as unknown as Record<string, readonly Asset[]>
  const byId = new Map<string, NetworkEntry>()
  for (const [name, chainId] of Object.entries(EVM_NETWORK_CHAIN_ID_MAP as Record<string, number>)) {
    const id = `eip155:${chainId}`
    byId.set(id, evmEntry(id, name, evmAssets))
  }
  for (const id of Object.keys(evmAssets)) {
    if (!byId.has(id)) byId.set(id, evmEntry(id, null, evmAssets))
  }
  for (const [name, id] of Object.entries(V1_TO_V2_NETWORK_MAP as Record<string, string>)) {
    byId.set(id, { id, v1Name: name, family: 'svm', testnet: svmTestnet(id), usdc: usdcOf(svmAssets, id) })
  }
  for (const id of Object.keys(svmAssets)) {
    if (!byId.has(id)) byId.set(id, { id, v1Name: null, family: 'svm', testnet: svmTestnet(id), usdc: usdcOf(svmAssets, id) })
  }
  return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id))
}

export const NETWORK_TABLE_PATH = join(PROJECT_ROOT, 'src', 'domain', 'networks.generated.json')

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(NETWORK_TABLE_PATH, JSON.stringify(buildNetworkTable(), null, 2) + '\n')
  console.log(`wrote ${NETWORK_TABLE_PATH}`)
}
