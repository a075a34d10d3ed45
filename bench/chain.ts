/**
 * npm run bench:chain: the chain watcher's cost on a real chain (anvil, Circle's USDC).
 * 1. Catch-up: N x402 settlements (transferWithAuthorization sent by a facilitator, signed by
 *    200 payers) to the payTos of S services, all made before the watcher first runs, so it
 *    scans them all from startBlock: wall time, HTTP requests to the RPC, peak RSS.
 * 2. Steady state: once caught up, one poll (a step with nothing new), median of 20.
 *
 *   npm run bench:chain [-- --payments 10000 --services 1000]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir, cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { pino } from 'pino'
import { encodeFunctionData, parseAbi, type Hex } from 'viem'
import { chainNetworks, parseChains } from '../src/chain/config.js'
import { EvmNetworkWatcher } from '../src/chain/evm-watcher.js'
import { ChainWatcher } from '../src/chain/watcher.js'
import { ViemChainRpc } from '../src/chain/rpc.js'
import { registerNetworks } from '../src/domain/networks.js'
import { seedRecords } from '../src/domain/seed.js'
import { SqliteCatalogStore } from '../src/store/sqlite/store.js'
import { CHAIN_ID, NETWORK, USDC_EIP712, anvilAccount, clients, deployUsdc, mintUsdc, newAddress, newPayer, startAnvil } from '../scripts/local-chain.js'
import { generateServices } from './generate.js'
import { intOption, median } from './support.js'

const TRANSFER_WITH_AUTHORIZATION = parseAbi(['function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)'])
const TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' }
  ]
} as const
const PER_BLOCK = 250

async function rpc (url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const body = await response.json() as { result?: unknown, error?: { message: string } }
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}

async function main (): Promise<void> {
  const { values } = parseArgs({ options: { payments: { type: 'string' }, services: { type: 'string' } } })
  const payments = intOption('--payments', values.payments ?? '10000', 1, 1_000_000)
  const services = intOption('--services', values.services ?? '1000', 1, 100_000)
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`)

  const anvil = await startAnvil({ extraArgs: ['--gas-limit', '100000000'] })
  const dir = mkdtempSync(join(tmpdir(), 'x402-bench-chain-'))
  try {
    const usdc = await deployUsdc(anvil.rpcUrl)
    const payers = Array.from({ length: 200 }, () => newPayer())
    await mintUsdc(anvil.rpcUrl, usdc, payers.map((p) => p.address), 10n ** 12n)
    const payTos = Array.from({ length: services }, () => newAddress())

    // The settlements, as a facilitator sends them, many per block.
    const facilitator = anvilAccount(1)
    const { publicClient } = clients(anvil.rpcUrl)
    await rpc(anvil.rpcUrl, 'evm_setAutomine', [false])
    let nonce = await publicClient.getTransactionCount({ address: facilitator.address })
    const made = Date.now()
    for (let i = 0; i < payments; i++) {
      const payer = payers[i % payers.length] as typeof payers[0]
      const message = { from: payer.address, to: payTos[i % services] as Hex, value: 1000n, validAfter: 0n, validBefore: 2n ** 48n, nonce: `0x${(i + 1).toString(16).padStart(64, '0')}` as Hex }
      const signature = await payer.signTypedData({ domain: { ...USDC_EIP712, chainId: CHAIN_ID, verifyingContract: usdc.address }, types: TYPES, primaryType: 'TransferWithAuthorization', message })
      const data = encodeFunctionData({ abi: TRANSFER_WITH_AUTHORIZATION, functionName: 'transferWithAuthorization', args: [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, signature] })
      const raw = await (facilitator as unknown as { signTransaction: (tx: unknown) => Promise<Hex> }).signTransaction({ chainId: CHAIN_ID, to: usdc.address, data, nonce: nonce++, gas: 150_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, type: 'eip1559' })
      await rpc(anvil.rpcUrl, 'eth_sendRawTransaction', [raw])
      if ((i + 1) % PER_BLOCK === 0 || i === payments - 1) await rpc(anvil.rpcUrl, 'evm_mine', [])
    }
    await rpc(anvil.rpcUrl, 'evm_setAutomine', [true])
    const head = Number(await publicClient.getBlockNumber({ cacheTime: 0 }))
    console.log(`${payments} settlements to ${services} payTos from ${payers.length} payers in ${Math.round((Date.now() - made) / 1000)} s; head ${head}`)

    const chains = parseChains(JSON.stringify([{ network: NETWORK, rpcUrl: anvil.rpcUrl, usdc: usdc.address, confirmations: 0 }]))
    registerNetworks(chainNetworks(chains))
    const store = new SqliteCatalogStore(dir)
    const entries = generateServices(services).map((entry, i) => ({ ...entry, pricing: { ...entry.pricing, currency: 'USDC', pricePerRequest: '0.001' }, x402Config: { paymentAddress: payTos[i] as string, network: NETWORK }, supportedChains: undefined }))
    await store.insertServices(seedRecords(entries, new Date().toISOString()))

    // Catch-up.
    const logger = pino({ level: 'warn' })
    let peak = process.memoryUsage().rss
    const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 50)
    const rssBefore = process.memoryUsage().rss
    const started = Date.now()
    const watcher = new ChainWatcher({ store, chains, logger, pollMs: 200 })
    watcher.start()
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      const [status] = watcher.statuses()
      if (status?.scannedBlock === head && status.backfilling === 0) {
        const counted = await Promise.all(payTos.map(async (payTo) => (await store.getService(seedRecords([entries[payTos.indexOf(payTo)] as typeof entries[0]], '')[0]?.id ?? ''))?.usage?.txCount ?? 0))
        if (counted.reduce((a, b) => a + b, 0) >= payments) break
      }
    }
    const elapsed = Date.now() - started
    clearInterval(sampler)
    const requests = watcher.rpcRequests()[NETWORK] ?? 0
    await watcher.stop()
    console.log(`catch-up: ${payments} payments over ${services} services in ${(elapsed / 1000).toFixed(1)} s, ${requests} RPC requests, peak RSS ${Math.round(peak / 2 ** 20)} MB (${Math.round(rssBefore / 2 ** 20)} MB before)`)

    // Steady state: one poll with nothing new.
    const steadyRpc = new ViemChainRpc(anvil.rpcUrl)
    const steady = new EvmNetworkWatcher(chains[0] as typeof chains[0], steadyRpc, store, logger)
    const times: number[] = []
    const calls: number[] = []
    for (let i = 0; i < 21; i++) {
      const before = steadyRpc.requests
      const t0 = performance.now()
      await steady.step()
      if (i > 0) { times.push(performance.now() - t0); calls.push(steadyRpc.requests - before) }
    }
    console.log(`steady poll (nothing new, ${services} payTos): median ${median(times).toFixed(1)} ms, ${median(calls)} RPC requests`)
    await store.close()
  } finally {
    await anvil.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((err: unknown) => { console.error(err); process.exitCode = 1 })
