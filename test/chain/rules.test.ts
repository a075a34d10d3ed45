/** The watcher's pure rules: what a step scans, range sizing, which Transfers are payments, RPC failure classes. */
import { test } from 'tap'
import { RangeSize, planScan } from '../../src/chain/plan.js'
import { attribute, authorizedKeys, sendersToRead, toPaymentRecord, x402Transfers } from '../../src/chain/payments.js'
import { classifyRpcError, describeRpcError } from '../../src/chain/rpc-errors.js'
import type { TransferLog } from '../../src/chain/rpc.js'

test('planScan: forward from the tip for caught-up payTos, backfill for the others', async (t) => {
  const base = { startBlock: 10, span: 100 }
  t.same(planScan({ ...base, tip: 9, target: 500, watched: ['a', 'b'], scanned: {} }), {
    forward: { from: 10, to: 109, payTos: ['a', 'b'] }, backfill: null
  }, 'first run: every payTo scans forward from startBlock')
  t.same(planScan({ ...base, tip: 300, target: 300, watched: ['a', 'b', 'c'], scanned: { a: 300, b: 120 } }), {
    forward: null, backfill: { from: 10, to: 109, payTos: ['c'] }
  }, 'the payTo furthest behind (never scanned: from startBlock) first')
  t.same(planScan({ ...base, tip: 300, target: 310, watched: ['a', 'b'], scanned: { a: 300, b: 250 } }), {
    forward: { from: 301, to: 310, payTos: ['a'] }, backfill: { from: 251, to: 300, payTos: ['b'] }
  }, 'backfill stops at the tip')
  t.same(planScan({ ...base, tip: 300, target: 5000, watched: [], scanned: {} }).forward, { from: 301, to: 5000, payTos: [] }, 'nothing watched: the tip moves at once')
  t.same(planScan({ ...base, tip: 300, target: 290, watched: ['a'], scanned: { a: 300 } }), { forward: null, backfill: null }, 'nothing to do above the target')
})

test('RangeSize halves on refusal down to one block and grows back after successes', async (t) => {
  const range = new RangeSize(8, 16)
  t.ok(range.shrink()); t.equal(range.size, 4)
  range.grow(); range.grow(); t.equal(range.size, 4, 'not after two')
  range.grow(); t.equal(range.size, 8)
  for (let i = 0; i < 9; i++) range.grow()
  t.equal(range.size, 16, 'capped')
  while (range.size > 1) range.shrink()
  t.notOk(range.shrink(), 'a refused single block is an error')
})

const transfer = (over: Partial<TransferLog>): TransferLog => ({
  txHash: '0xt1', logIndex: 0, blockNumber: 5, blockHash: '0xb5', blockTimestamp: 1_700_000_000, from: '0xpayer', to: '0xpayto', value: 1000n, ...over
})

test('a Transfer is a payment with its payer\'s AuthorizationUsed in the same transaction, or sent by a facilitator', async (t) => {
  const eip3009 = transfer({ txHash: '0xa' })
  const otherAuthorizer = transfer({ txHash: '0xb' })
  const permit2 = transfer({ txHash: '0xc' })
  const plain = transfer({ txHash: '0xd' })
  const authorized = authorizedKeys([{ txHash: '0xa', authorizer: '0xpayer' }, { txHash: '0xb', authorizer: '0xsomeone' }])
  const transfers = [eip3009, otherAuthorizer, permit2, plain]
  t.same(sendersToRead(transfers, authorized, []), [], 'no facilitators: no sender is read')
  t.same(sendersToRead(transfers, authorized, ['0xfac']), ['0xb', '0xc', '0xd'])
  const senders = new Map([['0xb', '0xwallet'], ['0xc', '0xfac'], ['0xd', null]])
  t.same(x402Transfers(transfers, authorized, senders, ['0xfac']), [eip3009, permit2])
  t.same(x402Transfers(transfers, authorized, new Map(), []), [eip3009], 'a plain transfer is never counted')
})

test('attribution of a shared payTo by price', async (t) => {
  t.equal(attribute([{ id: 'a', priceAtomic: 5 }], 1000n), 'a', 'the only service gets every payment')
  t.equal(attribute([{ id: 'a', priceAtomic: 1000 }, { id: 'b', priceAtomic: 2000 }], 2000n), 'b', 'the one whose price is the amount')
  t.equal(attribute([{ id: 'a', priceAtomic: 1000 }, { id: 'b', priceAtomic: 1000 }], 1000n), null, 'two at that price: shared')
  t.equal(attribute([{ id: 'a', priceAtomic: 1000 }, { id: 'b', priceAtomic: 2000 }], 3000n), null, 'none at that price: shared')
  t.equal(attribute([{ id: 'a', priceAtomic: null }], 3000n), 'a', 'a dynamic price alone: every payment is its')
  t.equal(attribute([{ id: 'a', priceAtomic: 1000 }, { id: 'b', priceAtomic: null }], 1000n), null, 'beside a dynamic price (any amount) no amount is one sharer\'s')
  t.same(toPaymentRecord('eip155:1', transfer({}), 1_700_000_000, 'a'), {
    network: 'eip155:1', txHash: '0xt1', logIndex: 0, blockNumber: 5, blockHash: '0xb5', at: '2023-11-14T22:13:20.000Z', payer: '0xpayer', payTo: '0xpayto', amount: '1000', serviceId: 'a'
  })
})

test('RPC failures: transient, range refusal, or fatal; described without the URL', async (t) => {
  const http = (status: number, details = '') => Object.assign(new Error('HTTP request failed.'), { name: 'HttpRequestError', status, details, shortMessage: 'HTTP request failed.' })
  const rpc = (code: number, message: string) => Object.assign(new Error('RPC Request failed.'), { name: 'RpcRequestError', cause: Object.assign(new Error(message), { code, details: message }) })
  t.equal(classifyRpcError(http(429)), 'transient')
  t.equal(classifyRpcError(http(503)), 'transient')
  t.equal(classifyRpcError(Object.assign(new Error('The request took too long to respond.'), { name: 'TimeoutError' })), 'transient')
  t.equal(classifyRpcError(new Error('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) })), 'transient')
  t.equal(classifyRpcError(rpc(-32005, 'query returned more than 10000 results')), 'range')
  t.equal(classifyRpcError(rpc(-32602, 'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range')), 'range')
  t.equal(classifyRpcError(rpc(-32000, 'exceed maximum block range: 50000')), 'range')
  t.equal(classifyRpcError(http(413)), 'range')
  t.equal(classifyRpcError(rpc(-32601, 'method not found')), 'fatal')
  t.equal(classifyRpcError(http(401)), 'fatal')
  t.equal(describeRpcError(http(429)), 'HTTP 429')
  t.equal(describeRpcError(Object.assign(new Error('x'), { name: 'TimeoutError' })), 'timeout')
  t.equal(describeRpcError(new Error('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) })), 'ECONNRESET')
  t.equal(describeRpcError(rpc(-32601, 'method not found')), 'RPC error -32601: method not found')
  t.equal(describeRpcError(new Error('bad answer from https://rpc.example.com/v2/KEY: boom'), ['https://rpc.example.com/v2/KEY']), 'bad answer from <rpcUrl>: boom')
})
