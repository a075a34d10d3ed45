/**
 * npm run demo:chain: usage figures moving on a local chain. Starts anvil, deploys Circle's
 * USDC on it, starts a paid x402 route, starts the catalog watching that chain (a CATALOG_CHAINS
 * file in a temporary directory), registers the route, pays it a few times from three wallets
 * and prints the figures as the watcher counts them. Ctrl-C stops everything and removes the
 * temporary directory.
 *
 *   npm run demo:chain -- --payments 5 --port 3000
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { NETWORK, anvilAccount, deployUsdc, mintUsdc, newAddress, newPayer, pay, payingFetch, startAnvil, startPaidServer, until } from './local-chain.js'

const KEY = 'demo-chain-key-0123456789'
const USAGE = 'usage: npm run demo:chain [-- --payments 5] [--port 3000]'

async function main (argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { payments: { type: 'string', default: '5' }, port: { type: 'string', default: '3000' }, help: { type: 'boolean', short: 'h' } } })
  const payments = Number(values.payments)
  if (values.help === true || !Number.isInteger(payments) || payments < 1 || payments > 1000 || !/^\d+$/.test(values.port)) {
    console.error(USAGE)
    return values.help === true ? 0 : 2
  }
  const dir = mkdtempSync(join(tmpdir(), 'x402-catalog-chain-demo-'))
  const cleanups: Array<() => Promise<void> | void> = [() => { rmSync(dir, { recursive: true, force: true }) }]
  const stop = async (): Promise<void> => { for (const cleanup of cleanups.reverse()) await cleanup() }
  process.once('SIGINT', () => { void stop().then(() => process.exit(0)) })
  process.once('SIGTERM', () => { void stop().then(() => process.exit(0)) })
  try {
    const anvil = await startAnvil()
    cleanups.push(anvil.stop)
    const usdc = await deployUsdc(anvil.rpcUrl)
    console.log(`anvil on ${anvil.rpcUrl} (chain ${NETWORK}); USDC (Circle's FiatTokenV2_2) at ${usdc.address}`)
    const payTo = newAddress()
    const payers = [newPayer(), newPayer(), newPayer()]
    await mintUsdc(anvil.rpcUrl, usdc, payers.map((p) => p.address), 10_000_000n)
    const server = await startPaidServer({ rpcUrl: anvil.rpcUrl, usdc: usdc.address, payTo, amount: 1000n, facilitator: anvilAccount(1) })
    cleanups.push(server.close)
    console.log(`paid route ${server.url}: 0.001 USDC to ${payTo}, settled by a facilitator sending from ${anvilAccount(1).address}`)

    const chainsFile = join(dir, 'chains.json')
    writeFileSync(chainsFile, JSON.stringify([{ network: NETWORK, rpcUrl: anvil.rpcUrl, usdc: usdc.address, confirmations: 0 }], null, 2))
    const config = loadConfig({
      DATA_DIR: dir,
      PORT: values.port,
      CATALOG_SEED: 'none',
      CATALOG_API_KEYS: KEY,
      LOG_LEVEL: 'warn',
      CATALOG_CHAINS: chainsFile,
      CATALOG_CHAIN_POLL_MS: '500',
      // The paid route is on loopback: let the prober verify it.
      CATALOG_PROBE_ALLOW_PRIVATE: '1'
    })
    const app = await buildApp(config)
    cleanups.push(async () => { await app.close() })
    const origin = await app.listen({ port: config.port, host: config.host })
    console.log(`catalog on ${origin}, watching ${NETWORK} (CATALOG_CHAINS=${chainsFile})`)

    const registered = await app.inject({
      method: 'POST',
      url: '/api/services',
      headers: { authorization: `Bearer ${KEY}` },
      payload: {
        name: 'Local paid demo API',
        description: 'A paid endpoint on a local chain',
        endpoint: server.url,
        category: 'weather',
        pricing: { currency: 'USDC', pricePerRequest: '0.001' },
        x402Config: { paymentAddress: payTo, network: NETWORK }
      }
    })
    if (registered.statusCode !== 201) throw new Error(`registration answered ${registered.statusCode}: ${registered.body}`)
    const id = registered.json().id as string
    console.log(`registered ${id}\n`)

    for (let i = 1; i <= payments; i++) {
      const payer = payers[(i - 1) % payers.length] as typeof payers[0]
      const tx = await pay(server.url, payingFetch(payer, usdc.address))
      const usage = await until(`payment ${i} counted`, 60_000, async () => {
        const u = (await app.store.getService(id))?.usage
        return u !== undefined && u !== null && u.txCount >= i ? u : undefined
      })
      console.log(`paid from ${payer.address.slice(0, 10)}…  tx ${tx}  →  txCount ${usage.txCount}, revenue ${Number(usage.revenueAtomic) / 1e6} USDC, unique payers ${usage.uniquePayers}`)
    }
    console.log(`
Look around (Ctrl-C stops anvil, the route and the catalog):
  curl -s ${origin}/health | jq .chains
  curl -s ${origin}/api/services/${id}/status | jq
  curl -s ${origin}/api/services/${id} | jq
  open ${origin}/`)
    return 0
  } catch (err) {
    await stop()
    throw err
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => { if (code !== 0) process.exitCode = code }, (err: unknown) => {
    console.error(`demo:chain: ${(err as Error).message}`)
    process.exitCode = 1
  })
}
