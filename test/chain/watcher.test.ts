/**
 * The chain watcher in the API process against a real chain: anvil, Circle's USDC, x402
 * payments settled by a real facilitator. Figures are waited for with generous deadlines,
 * never fixed sleeps: the machine may be busy.
 */
import { test } from 'tap'
import { appOn, registerPaid, usageWhen } from '../support/chain-catalog.js'
import { NETWORK, anvilAccount, clients, mintUsdc, newAddress, newPayer, pay, payingFetch, plainTransfer, setupChain, startPaidServer, until } from '../support/chain.js'

const PRICE = 1000n // 0.001 USDC

test('N real x402 payments give exact figures; a plain transfer is not counted; a reorg takes a payment back', async (t) => {
  const chain = await setupChain(t)
  const payTo = newAddress()
  const payers = [newPayer(), newPayer(), newPayer()]
  await mintUsdc(chain.anvil.rpcUrl, chain.usdc, [...payers.map((p) => p.address), anvilAccount(2).address], 1_000_000n)
  const server = await startPaidServer({ rpcUrl: chain.anvil.rpcUrl, usdc: chain.usdc.address, payTo, amount: PRICE, facilitator: chain.facilitator })
  t.teardown(server.close)
  const app = await appOn(t, [chain.chainEntry()])
  const id = await registerPaid(app, server.url, payTo)

  // 5 payments from 3 payers, and a wallet's plain transfer to the same payTo.
  const fetches = payers.map((p) => payingFetch(p, chain.usdc.address))
  for (const i of [0, 0, 1, 2, 0]) await pay(server.url, fetches[i] as typeof fetch)
  await plainTransfer(chain.anvil.rpcUrl, chain.usdc, anvilAccount(2), payTo, 777n)
  const { publicClient } = clients(chain.anvil.rpcUrl)
  const head = Number(await publicClient.getBlockNumber({ cacheTime: 0 }))

  const usage = await usageWhen(app, id, (u) => u.txCount >= 5, 'five payments counted')
  t.match(usage, { txCount: 5, revenueAtomic: '5000', uniquePayers: 3, txCount30d: 5, revenue30dAtomic: '5000', uniquePayers30d: 3, scope: 'service' })
  const payments = await app.store.listPayments({ network: NETWORK, payTo: payTo.toLowerCase() }, { limit: 50, offset: 0 })
  t.equal(payments.total, 5, 'the plain transfer is not a payment')
  t.same(new Set(payments.items.map((p) => p.payer)), new Set(payers.map((p) => p.address.toLowerCase())))
  t.ok(payments.items.every((p) => p.serviceId === id && p.amount === '1000' && /^0x[0-9a-f]{64}$/.test(p.blockHash)), 'attributed, with block hashes')
  const health = await until('health shows the scan at the head', 60_000, async () => {
    const body = (await app.inject('/health')).json()
    return body.chains.networks[0]?.scannedBlock >= head ? body : undefined
  })
  t.match(health.chains, { watcher: 'embedded', networks: [{ network: NETWORK, lastError: null, backfilling: 0 }] })

  // The newest payment is in the newest block: a reorg of depth 1 drops it from the chain.
  const newest = payments.items[0]
  t.equal(newest?.blockNumber, head - 1, 'the last payment is one block below the plain transfer')
  // anvil_reorg(depth, transactions to include): the last two blocks are replaced by empty ones.
  const reorg = await fetch(chain.anvil.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_reorg', params: [2, []] }) })
  t.notOk((await reorg.json() as { error?: unknown }).error, 'anvil reorganised')
  const after = await usageWhen(app, id, (u) => u.txCount === 4, 'the reorged payment taken back')
  t.match(after, { txCount: 4, revenueAtomic: '4000' })
  const left = await app.store.listPayments({ network: NETWORK, payTo: payTo.toLowerCase() }, { limit: 50, offset: 0 })
  t.notOk(left.items.some((p) => p.txHash === newest?.txHash), 'the dropped transaction is gone')
})
