/**
 * The watcher against a misbehaving RPC and late registrations, on a real chain with real
 * x402 payments: a proxy failing a third of the calls (500, 429, connection reset) still
 * converges; a payTo registered after its payments is backfilled; a payTo shared by two
 * services attributes each payment by price.
 */
import { test } from 'tap'
import { appOn, registerPaid, usageWhen } from '../support/chain-catalog.js'
import { NETWORK, mintUsdc, newAddress, newPayer, pay, payingFetch, setupChain, startPaidServer, startRpcProxy, until } from '../support/chain.js'

test('an RPC failing a third of its calls (500, 429, reset) still converges on the exact figures', async (t) => {
  const chain = await setupChain(t)
  const proxy = await startRpcProxy(chain.anvil.rpcUrl, {
    fail: (n) => {
      if (n % 3 !== 0) return undefined
      const kind = (n / 3) % 3
      if (kind === 0) return 'reset'
      return kind === 1 ? { status: 500, body: { error: 'upstream down' } } : { status: 429, body: { error: 'rate limited' } }
    }
  })
  t.teardown(proxy.close)
  const payTo = newAddress()
  const payers = [newPayer(), newPayer()]
  await mintUsdc(chain.anvil.rpcUrl, chain.usdc, payers.map((p) => p.address), 1_000_000n)
  const server = await startPaidServer({ rpcUrl: chain.anvil.rpcUrl, usdc: chain.usdc.address, payTo, amount: 1000n, facilitator: chain.facilitator })
  t.teardown(server.close)
  const app = await appOn(t, [chain.chainEntry({ rpcUrl: proxy.url })])
  const id = await registerPaid(app, server.url, payTo)
  for (const payer of [0, 1, 0, 1]) await pay(server.url, payingFetch(payers[payer] as typeof payers[0], chain.usdc.address))

  const usage = await usageWhen(app, id, (u) => u.txCount >= 4, 'four payments counted through the failing proxy')
  t.match(usage, { txCount: 4, revenueAtomic: '4000', uniquePayers: 2 })
  t.ok(proxy.counts.failed >= 3, `the proxy failed ${proxy.counts.failed} of ${proxy.counts.requests} calls`)
  const health = (await app.inject('/health')).json()
  t.equal(health.status, 'ok', 'the API stays healthy')
  t.equal((await app.store.listPayments({ network: NETWORK, payTo: payTo.toLowerCase() }, { limit: 10, offset: 0 })).total, 4, 'nothing counted twice')
})

test('an RPC that is away: /health names the error, the API answers, figures stay', async (t) => {
  const chain = await setupChain(t)
  let down = false
  const proxy = await startRpcProxy(chain.anvil.rpcUrl, { fail: () => down ? { status: 503, body: { error: 'maintenance' } } : undefined })
  t.teardown(proxy.close)
  const payTo = newAddress()
  const payer = newPayer()
  await mintUsdc(chain.anvil.rpcUrl, chain.usdc, [payer.address], 1_000_000n)
  const server = await startPaidServer({ rpcUrl: chain.anvil.rpcUrl, usdc: chain.usdc.address, payTo, amount: 1000n, facilitator: chain.facilitator })
  t.teardown(server.close)
  const app = await appOn(t, [chain.chainEntry({ rpcUrl: proxy.url })])
  const id = await registerPaid(app, server.url, payTo)
  await pay(server.url, payingFetch(payer, chain.usdc.address))
  await usageWhen(app, id, (u) => u.txCount === 1, 'the payment counted')

  down = true
  const health = await until('/health reports the RPC error', 90_000, async () => {
    const body = (await app.inject('/health')).json()
    return body.chains.networks[0]?.lastError !== null ? body : undefined
  })
  t.equal(health.status, 'ok', 'still 200: an RPC away is reported, not judged')
  t.match(health.chains.networks[0], { network: NETWORK, lastError: 'HTTP 503', lastErrorAt: /^\d{4}-/ })
  t.notMatch(JSON.stringify(health), proxy.url, 'the RPC URL is not shown')
  t.match((await app.store.getService(id))?.usage, { txCount: 1 }, 'figures stay as they were')
  t.equal((await app.inject(`/api/services/${id}`)).statusCode, 200, 'the API answers')

  down = false
  await pay(server.url, payingFetch(payer, chain.usdc.address))
  await usageWhen(app, id, (u) => u.txCount === 2, 'counting resumes when the RPC is back')
  await until('the error clears', 90_000, async () => (await app.inject('/health')).json().chains.networks[0]?.lastError === null ? true : undefined)
  t.pass('the error cleared')
})

test('a payTo registered after its payments is backfilled from startBlock', async (t) => {
  const chain = await setupChain(t)
  const early = newAddress()
  const late = newAddress()
  const payer = newPayer()
  await mintUsdc(chain.anvil.rpcUrl, chain.usdc, [payer.address], 1_000_000n)
  const earlyServer = await startPaidServer({ rpcUrl: chain.anvil.rpcUrl, usdc: chain.usdc.address, payTo: early, amount: 1000n, facilitator: chain.facilitator })
  const lateServer = await startPaidServer({ rpcUrl: chain.anvil.rpcUrl, usdc: chain.usdc.address, payTo: late, amount: 2000n, facilitator: chain.facilitator, path: '/late' })
  t.teardown(earlyServer.close)
  t.teardown(lateServer.close)
  const payFetch = payingFetch(payer, chain.usdc.address)
  for (let i = 0; i < 3; i++) await pay(lateServer.url, payFetch)

  const app = await appOn(t, [chain.chainEntry()])
  const earlyId = await registerPaid(app, earlyServer.url, early)
  await pay(earlyServer.url, payFetch)
  await usageWhen(app, earlyId, (u) => u.txCount === 1, 'the watched payTo counted: the tip is past the late payments')

  const lateId = await registerPaid(app, lateServer.url, late, '0.002')
  const usage = await usageWhen(app, lateId, (u) => u.txCount === 3, 'the late payTo backfilled')
  t.match(usage, { txCount: 3, revenueAtomic: '6000', uniquePayers: 1 })
  await pay(lateServer.url, payFetch)
  await usageWhen(app, lateId, (u) => u.txCount === 4, 'then followed like the others')
  const health = (await app.inject('/health')).json()
  t.equal(health.chains.networks[0].backfilling, 0, 'nothing left to backfill')
  t.match((await app.store.getService(earlyId))?.usage, { txCount: 1 }, 'the other payTo is untouched')
})

test('a payTo shared by two services: each counts the payments of its price, until one matches neither and both report the payTo\'s figures', async (t) => {
  const chain = await setupChain(t)
  const payTo = newAddress()
  const payer = newPayer()
  await mintUsdc(chain.anvil.rpcUrl, chain.usdc, [payer.address], 1_000_000n)
  const cheap = await startPaidServer({ rpcUrl: chain.anvil.rpcUrl, usdc: chain.usdc.address, payTo, amount: 1000n, facilitator: chain.facilitator, path: '/cheap' })
  const dear = await startPaidServer({ rpcUrl: chain.anvil.rpcUrl, usdc: chain.usdc.address, payTo, amount: 2000n, facilitator: chain.facilitator, path: '/dear' })
  // Paid to the same payTo at a price no listed service asks: an ambiguous payment.
  const unlisted = await startPaidServer({ rpcUrl: chain.anvil.rpcUrl, usdc: chain.usdc.address, payTo, amount: 3000n, facilitator: chain.facilitator, path: '/unlisted' })
  t.teardown(cheap.close)
  t.teardown(dear.close)
  t.teardown(unlisted.close)
  const app = await appOn(t, [chain.chainEntry()])
  const cheapId = await registerPaid(app, cheap.url, payTo, '0.001')
  const dearId = await registerPaid(app, dear.url, payTo, '0.002')
  const payFetch = payingFetch(payer, chain.usdc.address)
  for (const url of [cheap.url, cheap.url, dear.url]) await pay(url, payFetch)

  t.match(await usageWhen(app, cheapId, (u) => u.txCount === 2, 'the cheap service\'s payments counted'), { txCount: 2, revenueAtomic: '2000', uniquePayers: 1, scope: 'service' })
  t.match(await usageWhen(app, dearId, (u) => u.txCount === 1, 'the dear service\'s payment counted'), { txCount: 1, revenueAtomic: '2000', scope: 'service' })
  const payments = await app.store.listPayments({ network: NETWORK, payTo: payTo.toLowerCase() }, { limit: 10, offset: 0 })
  t.same(payments.items.map((p) => [p.amount, p.serviceId]).sort(), [['1000', cheapId], ['1000', cheapId], ['2000', dearId]], 'each payment goes to the service of its price')

  await pay(unlisted.url, payFetch)
  t.match(await usageWhen(app, cheapId, (u) => u.scope === 'shared', 'the ambiguous payment seen'), { txCount: 4, revenueAtomic: '7000', scope: 'shared' })
  t.match(await usageWhen(app, dearId, (u) => u.scope === 'shared', 'the ambiguous payment seen by the other sharer'), { txCount: 4, revenueAtomic: '7000', scope: 'shared' })
})
