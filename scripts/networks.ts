/**
 * Builds the network table (`src/domain/networks.generated.json`) from the official
 * x402 packages, so network names, CAIP-2 ids and USDC assets are never hand-written.
 * Run `npm run networks:generate` after upgrading @x402/*; test/domain/networks.test.ts fails
 * when the committed table drifts from the installed packages.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DEFAULT_ASSETS as EVM_ASSETS } from '@x402/evm'
import { EVM_NETWORK_CHAIN_ID_MAP } from '@x402/evm/v1'
import { DEFAULT_ASSETS as SVM_ASSETS, V1_TO_V2_NETWORK_MAP } from '@x402/svm'
import { PROJECT_ROOT } from '../src/paths.js'

export interface NetworkEntry {
  /** CAIP-2 id, the canonical form the catalog stores. */
  id: string
  /** x402 v1 network name, when v1 had one. */
  v1Name: string | null
  family: 'evm' | 'svm'
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

function evmEntry (id: string, v1Name: string | null, assets: Record<string, readonly Asset[]>): NetworkEntry {
  const usdc = assets[id]?.find((a) => a.symbol === 'USDC')
  const entry: NetworkEntry = { id, v1Name, family: 'evm', usdc: usdc?.asset ?? null }
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
    byId.set(id, { id, v1Name: name, family: 'svm', usdc: usdcOf(svmAssets, id) })
  }
  for (const id of Object.keys(svmAssets)) {
    if (!byId.has(id)) byId.set(id, { id, v1Name: null, family: 'svm', usdc: usdcOf(svmAssets, id) })
  }
  return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id))
}

export const NETWORK_TABLE_PATH = join(PROJECT_ROOT, 'src', 'domain', 'networks.generated.json')

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(NETWORK_TABLE_PATH, JSON.stringify(buildNetworkTable(), null, 2) + '\n')
  console.log(`wrote ${NETWORK_TABLE_PATH}`)
}
