/**
 * x402 networks. The table is generated from the official x402 packages (see
 * scripts/networks.ts); the catalog stores CAIP-2 ids and accepts v1 names as aliases.
 */
import table from './networks.generated.json' with { type: 'json' }

export interface Network {
  id: string
  v1Name: string | null
  family: 'evm' | 'svm'
  /** A test network (base-sepolia, solana-devnet, …; scripts/networks.ts says where the flag comes from). */
  testnet: boolean
  usdc: string | null
  /** EVM: the USDC contract's EIP-712 domain (x402 `extra.name`/`extra.version`). */
  usdcEip712?: { name: string, version: string }
}

const known: Network[] = [...(table as Network[])]
/** The built-in table, plus the networks registerNetworks added at start. */
export const NETWORKS: readonly Network[] = known

const byAlias = new Map<string, Network>()
function index (network: Network): void {
  for (const alias of [network.id, network.v1Name]) {
    if (alias === null) continue
    byAlias.set(alias, network)
  }
}
for (const network of known) index(network)

/** Resolves a v1 name (`base`) or a CAIP-2 id (`eip155:8453`) to the network, if known. */
export function resolveNetwork (nameOrId: string): Network | undefined {
  return byAlias.get(nameOrId) ?? byAlias.get(nameOrId.toLowerCase())
}

/**
 * Whether the network (CAIP-2 id or v1 name) is a test network. One the catalog does not know
 * is not: a network CATALOG_CHAINS adds (a local chain such as anvil's) is treated as real.
 */
export function isTestNetwork (nameOrId: string): boolean {
  return resolveNetwork(nameOrId)?.testnet === true
}

/**
 * Whether a listing is a test-network listing (`testnet: true`): every network it accepts
 * payment on (its supportedChains) is a test network. One real network makes it a real paid API.
 */
export function isTestListing (chains: readonly string[]): boolean {
  return chains.length > 0 && chains.every(isTestNetwork)
}

/** CAIP-2 ids of the test networks, for stores that filter on them in their own query language. */
export const TEST_NETWORK_IDS: readonly string[] = known.filter((network) => network.testnet).map((network) => network.id)

/**
 * Adds networks the built-in table lacks (a private or local chain named in CATALOG_CHAINS),
 * so services can register on them. Called once at start by each process that validates
 * registrations; an id already known is left as the table has it. An added network is never
 * a test network: whether a listing is one is kept in stores and indexes (toServiceJson), so
 * it must not hang on one process's configuration.
 */
export function registerNetworks (networks: ReadonlyArray<Omit<Network, 'testnet'>>): void {
  for (const network of networks) {
    if (byAlias.has(network.id)) continue
    const added = { ...network, testnet: false }
    known.push(added)
    index(added)
  }
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/
const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'

/** Decoded byte length of a base58 string, or -1 when it is not base58. */
function base58ByteLength (value: string): number {
  let bytes: number[] = []
  for (const char of value) {
    let carry = BASE58_ALPHABET.indexOf(char)
    if (carry < 0) return -1
    for (let i = 0; i < bytes.length; i++) {
      carry += (bytes[i] as number) * 58
      bytes[i] = carry & 0xff
      carry >>= 8
    }
    while (carry > 0) {
      bytes.push(carry & 0xff)
      carry >>= 8
    }
  }
  const leadingZeros = /^1*/.exec(value)?.[0].length ?? 0
  bytes = bytes.concat(new Array<number>(leadingZeros).fill(0))
  return bytes.length
}

/** EVM: `0x` + 40 hex digits. Solana: base58 of a 32-byte public key. */
export function isValidPaymentAddress (family: Network['family'], address: string): boolean {
  if (family === 'evm') return EVM_ADDRESS.test(address)
  return address.length >= 32 && address.length <= 44 && base58ByteLength(address) === 32
}
