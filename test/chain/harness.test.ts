/** The chain harness itself: a paid request settles on anvil as Transfer + AuthorizationUsed in one transaction. */
import { test } from 'tap'
import { decodeEventLog, type Hex } from 'viem'
import { ERC20_ABI, anvilAccount, clients, deployUsdc, mintUsdc, newAddress, newPayer, pay, payingFetch, startAnvil, startPaidServer } from '../support/chain.js'

test('a real x402 payment settles on anvil with Transfer and AuthorizationUsed in one transaction', async (t) => {
  const anvil = await startAnvil()
  t.teardown(anvil.stop)
  const usdc = await deployUsdc(anvil.rpcUrl)
  const payer = newPayer()
  const payTo = newAddress()
  await mintUsdc(anvil.rpcUrl, usdc, [payer.address], 1_000_000n)
  const server = await startPaidServer({ rpcUrl: anvil.rpcUrl, usdc: usdc.address, payTo, amount: 1234n, facilitator: anvilAccount(1) })
  t.teardown(server.close)

  const unpaid = await fetch(server.url)
  t.equal(unpaid.status, 402, 'unpaid: 402')
  const hash = await pay(server.url, payingFetch(payer, usdc.address))
  const { publicClient } = clients(anvil.rpcUrl)
  const receipt = await publicClient.getTransactionReceipt({ hash })
  t.equal(receipt.status, 'success')
  t.equal(receipt.from.toLowerCase(), anvilAccount(1).address.toLowerCase(), 'sent by the facilitator')
  const events = receipt.logs.filter((log) => log.address.toLowerCase() === usdc.address.toLowerCase())
    .map((log) => decodeEventLog({ abi: ERC20_ABI, data: log.data, topics: log.topics as [Hex, ...Hex[]] }))
  const transfer = events.find((e) => e.eventName === 'Transfer')
  const used = events.find((e) => e.eventName === 'AuthorizationUsed')
  t.match(transfer?.args, { from: payer.address, to: payTo, value: 1234n }, 'Transfer to the payTo')
  t.match(used?.args, { authorizer: payer.address }, 'AuthorizationUsed by the payer')
  t.equal(await publicClient.readContract({ address: usdc.address, abi: ERC20_ABI, functionName: 'balanceOf', args: [payTo] }), 1234n)
})
