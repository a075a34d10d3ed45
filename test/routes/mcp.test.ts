/** /mcp driven by the official SDK's own client over real HTTP, as an agent would. */
import { test } from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { RateLimitConfig } from '../../src/config.js'
import { MAX_TOOL_RESULTS } from '../../src/mcp/catalog-server.js'
import { MAX_MCP_ANSWER_BYTES, MAX_MCP_BATCH } from '../../src/routes/mcp.js'
import { resolveNetwork } from '../../src/domain/networks.js'
import { payToKey } from '../../src/domain/pay-to.js'
import { newSourceId } from '../../src/domain/sources.js'
import { build, probeDemo, register, validBody } from '../helper.js'

interface AgentService {
  id: string
  name: string
  endpoint: string
  method: string
  category: string
  status: string
  trustScore: number
  uptimeScore: number | null
  payment: { network: string, networkName: string | null, payTo: string, asset: string | null, currency: string, price: string, amount: string, supportedChains: Array<{ network: string, asset: string | null }> }
  score?: number
}

test('MCP: an agent lists the tools, searches, and gets what it needs to pay and call', async (t) => {
  const app = await build(t)
  await probeDemo(app)
  const created = await register(app, validBody({
    name: 'Quokka Tide Tables',
    description: 'Tide predictions for harbours.',
    pricing: { currency: 'USDC', pricePerRequest: '0.0025' },
    x402Config: { paymentAddress: '0x2222222222222222222222222222222222222222', network: 'base' },
    supportedChains: ['polygon']
  }))
  t.equal(created.statusCode, 201)
  await app.searchReady()
  const address = await app.listen({ port: 0, host: '127.0.0.1' })

  const client = new Client({ name: 'catalog-test-agent', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${address}/mcp`)))
  t.teardown(async () => { await client.close() })
  t.match(client.getInstructions(), /x402/)

  const { tools } = await client.listTools()
  t.same(tools.map((tool) => tool.name).sort(), ['get_service', 'get_service_status', 'list_categories', 'search_services'])
  const search = tools.find((tool) => tool.name === 'search_services')
  t.ok(search?.inputSchema.properties?.query !== undefined && search.inputSchema.properties.maxPricePerRequest !== undefined, 'input schema lists the filters')
  t.ok(tools.every((tool) => tool.annotations?.readOnlyHint === true), 'every tool is read-only')

  const call = async (name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> => await client.callTool({ name, arguments: args }) as CallToolResult
  const payload = <T>(res: CallToolResult): T => {
    t.notOk(res.isError, JSON.stringify(res.content))
    const first = res.content[0]
    t.same(JSON.parse(first?.type === 'text' ? first.text : 'null'), res.structuredContent, 'text and structured content agree')
    return res.structuredContent as T
  }

  const typo = payload<{ total: number, results: AgentService[] }>(await call('search_services', { query: 'quokka tyde tables' }))
  const top = typo.results[0] as AgentService
  t.equal(top.name, 'Quokka Tide Tables', 'typo-tolerant search')
  const http = (await app.inject('/api/catalog/search?q=quokka%20tyde%20tables')).json() as { results: Array<{ matchedTokens: string[] }> }
  t.same((top as unknown as { matchedTokens: string[] }).matchedTokens, http.results[0]?.matchedTokens, 'matchedTokens: the HTTP answer\'s name and words')
  t.notOk('matchedWords' in top, 'one name for one thing')
  t.equal(top.endpoint, (created.json() as { endpoint: string }).endpoint)
  t.equal(top.method, 'GET')
  t.match(top.payment, {
    network: 'eip155:8453',
    networkName: 'base',
    payTo: '0x2222222222222222222222222222222222222222',
    asset: resolveNetwork('base')?.usdc,
    currency: 'USDC',
    price: '0.0025',
    amount: '2500'
  })
  t.match(top.payment.asset, /^0x[0-9a-fA-F]{40}$/, 'the USDC contract on Base')
  t.same(top.payment.supportedChains.map((c) => c.network), ['eip155:8453', 'eip155:137'])
  t.equal(top.payment.supportedChains[1]?.asset, resolveNetwork('polygon')?.usdc)

  const sentence = payload<{ results: AgentService[] }>(await call('search_services', { query: '東京の天気を知りたい', limit: 3 }))
  t.ok(sentence.results.length > 0 && sentence.results.length <= 3)
  t.equal(sentence.results[0]?.category, 'weather', 'a Japanese sentence finds weather services')

  const solana = payload<{ total: number, results: AgentService[] }>(await call('search_services', { network: 'solana', maxPricePerRequest: '0.01', limit: 50 }))
  t.ok(solana.total > 0, 'lists by filters without a query')
  t.ok(solana.results.every((s) => s.payment.supportedChains.some((c) => c.network.startsWith('solana:')) && Number(s.payment.price) <= 0.01))
  const solanaService = solana.results.find((s) => s.payment.network.startsWith('solana:'))
  t.equal(solanaService?.payment.asset, resolveNetwork(solanaService?.payment.network ?? '')?.usdc, 'a Solana service pays in the USDC mint')
  const trust = solana.results.map((s) => s.trustScore)
  t.ok(new Set(trust).size > 1, 'the probes gave these services different trust scores')
  t.same(trust, [...trust].sort((a, b) => b - a), 'most trusted first')

  // Constraints in the query become filters; explicit arguments win.
  const asked = payload<{ total: number, filters: Record<string, string>, removed: string[], results: AgentService[] }>(await call('search_services', { query: 'cheap weather on solana', limit: 50 }))
  t.same(asked.filters, { sortBy: 'price', chain: resolveNetwork('solana')?.id })
  t.same(asked.removed, ['cheap', 'on solana'])
  t.ok(asked.results.every((s) => s.payment.supportedChains.some((c) => c.network.startsWith('solana:'))), 'only services paid on Solana')
  const prices = asked.results.map((s) => Number(s.payment.price))
  t.same(prices, [...prices].sort((a, b) => a - b), 'cheapest first')
  const overridden = payload<{ filters: Record<string, string> }>(await call('search_services', { query: 'weather on solana', network: 'base' }))
  t.same(overridden.filters, {}, 'the explicit network wins')

  const detail = payload<AgentService & { monitoring: { uptimeScore: number | null, txCount: number }, sources: unknown[], ownershipProof: unknown }>(await call('get_service', { id: top.id }))
  t.equal(detail.id, top.id)
  t.equal(detail.monitoring.txCount, 0)
  t.match(detail, { claimed: false, textBy: /registrant/ }, 'an agent is told the text is the registrant\'s until the owner proves control')
  t.same([detail.sources, detail.ownershipProof], [[], null], 'a registration: mirrored from nowhere, no proof')
  // Mirrored from a source, and its origin published a valid proof by its payTo: the agent sees both, as the detail shows them.
  const source = { id: newSourceId(), kind: 'bazaar' as const, url: 'https://facilitator.example.com', createdAt: new Date().toISOString(), lastSync: null, lastCompleteAt: null }
  await app.store.insertSource(source)
  await app.store.addProvenance(source.id, [top.id], '2026-11-01T00:00:00.000Z')
  await app.store.recordOriginProofs(new URL(top.endpoint).origin, [{ address: top.payment.payTo, document: `${new URL(top.endpoint).origin}/openapi.json`, checkedAt: '2026-11-02T00:00:00.000Z' }])
  const sourced = payload<{ sources: unknown[], ownershipProof: unknown }>(await call('get_service', { id: top.id }))
  const rest = (await app.inject(`/api/services/${top.id}`)).json()
  t.match(sourced.sources, [{ id: source.id, url: source.url, firstSeenAt: '2026-11-01T00:00:00.000Z' }])
  t.same([sourced.sources, sourced.ownershipProof], [rest.sources, rest.ownershipProof], 'as the detail says')
  t.match(sourced.ownershipProof, { address: top.payment.payTo })
  // Payments to the service's payTo, stored as the chain watcher stores them.
  const paid = Array.from({ length: 7 }, (_, i) => ({
    network: top.payment.network,
    txHash: `0x${String(i + 1).padStart(64, '0')}`,
    logIndex: 0,
    blockNumber: 100 + i,
    blockHash: `0x${String(i + 1).padStart(64, 'a')}`,
    at: new Date(Date.now() - (7 - i) * 60_000).toISOString(),
    payer: `0x${String(i % 3).repeat(40)}`,
    payTo: payToKey(top.payment.payTo),
    amount: top.payment.amount,
    serviceId: top.id
  }))
  await app.store.commitChainScan(top.payment.network, { payments: paid })
  const { latestPayments, ...status } = payload<{ id: string, txCount: number, latestPayments: Array<{ txHash: string }> }>(await call('get_service_status', { id: top.id }))
  t.same(status, (await app.inject(`/api/services/${top.id}/status`)).json(), 'the same status as the HTTP API')
  t.match(status, { txCount: 7, uniquePayers: 3 }, 'with the figures of the stored payments')
  t.same(latestPayments, (await app.inject(`/api/services/${top.id}/payments?limit=5`)).json(), 'and the newest five payments, as /payments lists them')
  t.same(latestPayments.map((p) => p.txHash), paid.slice(2).reverse().map((p) => p.txHash))
  const categories = payload<{ categories: Array<{ id: string, count: number, nameJa: string }> }>(await call('list_categories'))
  t.same(categories.categories.map((c) => [c.id, c.count]), ((await app.inject('/api/categories')).json() as Array<{ id: string, count: number }>).map((c) => [c.id, c.count]))

  const missing = await call('get_service', { id: 'svc_' + 'a'.repeat(24) })
  t.ok(missing.isError)
  t.match(JSON.stringify(missing.content), /not found/)
  const malformed = await call('get_service_status', { id: 'nope' })
  t.ok(malformed.isError, 'a malformed id is a tool error')
  t.notMatch(JSON.stringify(malformed.content), /\^|\[a-z/, 'in words, not a regular expression')
  t.match(JSON.stringify(malformed.content), /svc_ followed by 24/)
  const badPrice = await call('search_services', { query: 'weather', maxPricePerRequest: 'cheap' })
  t.ok(badPrice.isError)
  t.notMatch(JSON.stringify(badPrice.content), /\\d|\^/, 'a price pattern in words too')
  t.match(JSON.stringify(badPrice.content), /a decimal number/)
  const badFilter = await call('search_services', { query: 'weather', category: 'nope' })
  t.ok(badFilter.isError)
  t.match(JSON.stringify(badFilter.content), /category/, 'the error names the field')
  const badNetwork = await call('search_services', { query: 'weather', network: 'toString' })
  t.ok(badNetwork.isError)
  t.match(JSON.stringify(badNetwork.content), /network: unknown network/, 'named as this tool\'s argument, network')
  const tooMany = await call('search_services', { query: 'weather', limit: 500 })
  t.ok(tooMany.isError, 'limit is bounded')

  // Plain HTTP: no session state to open or close in stateless mode.
  const get = await fetch(`${address}/mcp`)
  t.equal(get.status, 405)
  t.equal(get.headers.get('allow'), 'POST')
})

test('MCP: search_services leaves test-network listings out unless asked, and says which ones are', async (t) => {
  const app = await build(t, { seed: 'none' })
  const listed = async (name: string, network: string): Promise<string> => {
    const res = await register(app, validBody({ name, description: 'Surf reports for every beach.', x402Config: { paymentAddress: '0x2222222222222222222222222222222222222222', network } }))
    t.equal(res.statusCode, 201)
    return (res.json() as { id: string }).id
  }
  const real = await listed('Quokka Surf Report', 'base')
  const test = await listed('Quokka Surf Sandbox', 'base-sepolia')
  await app.searchReady()
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const client = new Client({ name: 'catalog-test-agent', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${address}/mcp`)))
  t.teardown(async () => { await client.close() })
  const found = async (args: Record<string, unknown>): Promise<Array<[string, boolean]>> => {
    const res = await client.callTool({ name: 'search_services', arguments: { sortBy: 'name', ...args } }) as CallToolResult
    t.notOk(res.isError, JSON.stringify(res.content))
    return (res.structuredContent as { results: Array<{ id: string, testnet: boolean }> }).results.map((s) => [s.id, s.testnet])
  }
  t.same(await found({ query: 'surf' }), [[real, false]], 'a search leaves the test one out')
  t.same(await found({}), [[real, false]], 'so does a list by filters')
  t.same(await found({ query: 'surf', testnet: 'include' }), [[real, false], [test, true]], 'include: both, each flagged')
  t.same(await found({ testnet: 'only' }), [[test, true]])
  t.same(await found({ network: 'base-sepolia' }), [[test, true]], 'a test network named as the argument')
  t.same(await found({ query: 'surf on base sepolia' }), [[test, true]], 'or in the query')
  const bad = await client.callTool({ name: 'search_services', arguments: { testnet: 'maybe' } }) as CallToolResult
  t.ok(bad.isError)
  t.match(JSON.stringify(bad.content), /testnet/, 'the error names the argument')
})

/** JSON-RPC tools/call messages of search_services, numbered from `from`. */
function searches (count: number, args: Record<string, unknown>, from = 1): JSONRPCMessage[] {
  return Array.from({ length: count }, (_, i) => ({ jsonrpc: '2.0' as const, id: from + i, method: 'tools/call', params: { name: 'search_services', arguments: args } }))
}

/** Sends one batch through the official client transport and collects the answers it delivers. */
async function sendBatch (url: URL, batch: JSONRPCMessage[]): Promise<JSONRPCMessage[]> {
  const transport = new StreamableHTTPClientTransport(url)
  const answers: JSONRPCMessage[] = []
  transport.onmessage = (message) => { answers.push(message) }
  await transport.start()
  try {
    await transport.send(batch)
  } finally {
    await transport.close()
  }
  return answers
}

test('MCP: every tool call spends the budget of the route it stands for; batches and answers are bounded', async (t) => {
  const limits: RateLimitConfig = { enabled: true, windowMs: 60_000, reads: 40, intentSearches: 3, writes: 10, authFailures: 10, searches: 100 }
  const app = await build(t, { rateLimit: limits })
  await app.searchReady()
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const url = new URL(`${address}/mcp`)

  const tooLong = sendBatch(url, searches(MAX_MCP_BATCH + 1, { query: 'weather' }))
  await t.rejects(tooLong, { code: 400, message: /a batch of 17 messages; at most 16 per request/ }, 'a batch over the stated maximum is refused whole')

  const answers = await sendBatch(url, searches(3, { query: 'weather' }))
  t.equal(answers.length, 3, 'three searches, three answers')
  t.ok(answers.every((answer) => 'result' in answer && (answer.result as CallToolResult).isError !== true), 'each answered')
  await t.rejects(sendBatch(url, searches(1, { query: 'weather' }, 10)), { code: 429, message: /at most 3 intent searches per 60 s/ }, 'the fourth search of this address is refused, in a batch or not')
  const http = await app.inject({ url: '/api/services/search/intent?q=weather', remoteAddress: '127.0.0.1' })
  t.equal(http.statusCode, 429, 'the MCP searches spent the HTTP intent-search budget of the same address')
  const listing = await sendBatch(url, searches(2, { category: 'weather', limit: 1 }, 20))
  t.equal(listing.length, 2, 'a search without words lists, and spends reads instead')

  const client = new Client({ name: 'budget-test-agent', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(url))
  t.teardown(async () => { await client.close() })
  await t.rejects(client.callTool({ name: 'search_services', arguments: { query: 'tide' } }), { code: 429 }, 'the official client is told 429')
  const retryAfter = (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(searches(1, { query: 'x' })) })).headers.get('retry-after')
  t.ok(Number(retryAfter) > 0 && Number(retryAfter) <= 60, `Retry-After ${String(retryAfter)} within the window`)
})

test('MCP: the tool answers of one request are bounded in bytes, with an error naming the bound', async (t) => {
  const app = await build(t)
  await app.searchReady()
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const batch = searches(MAX_MCP_BATCH, { limit: MAX_TOOL_RESULTS })
  const response = await fetch(`${address}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(batch) })
  t.equal(response.status, 200)
  const body = await response.text()
  const answers = JSON.parse(body) as Array<{ result: CallToolResult }>
  t.equal(answers.length, MAX_MCP_BATCH)
  const refused = answers.filter((answer) => answer.result.isError === true)
  t.ok(refused.length > 0 && refused.length < MAX_MCP_BATCH, `the first pages are answered, the rest refused (${refused.length} of ${MAX_MCP_BATCH})`)
  t.match(JSON.stringify(refused[0]?.result.content), /answer too large.*1024 KiB in all.*fewer results/)
  t.ok(Buffer.byteLength(body) <= MAX_MCP_ANSWER_BYTES + 64 * 1024, `the whole answer (${Buffer.byteLength(body)} bytes) stays near the bound`)
})
