/**
 * /mcp: the catalog's MCP server over the Streamable HTTP transport, stateless. Every POST
 * gets its own server and transport, so any process behind a load balancer can answer any
 * request and nothing is kept between requests; the tools are read-only, so no session
 * state is needed. Answers are plain JSON (no SSE stream): every tool answers at once.
 */
import type { FastifyPluginAsync } from 'fastify'
import { ValidationError } from '../errors.js'
import type { Budget } from '../plugins/rate-limit.js'

const VERSION = '0.1.0'

/** JSON-RPC messages in one POST: agents send one at a time; a batch is a convenience, not a way around the budgets. */
export const MAX_MCP_BATCH = 16
/** The tool answers of one POST, in all: 16 pages of 50 search results of the demo catalog took 584 KiB. */
export const MAX_MCP_ANSWER_BYTES = 1024 * 1024

/**
 * The budget one JSON-RPC message spends, as the HTTP route it stands for would: a search
 * with words is an intent search (the same analysis as /api/services/search/intent); every
 * other call and message is a read.
 */
export function budgetOf (message: unknown): Budget {
  if (typeof message !== 'object' || message === null) return 'read'
  const { method, params } = message as { method?: unknown, params?: { name?: unknown, arguments?: { query?: unknown } } }
  if (method !== 'tools/call' || params?.name !== 'search_services') return 'read'
  const query = params.arguments?.query
  return typeof query === 'string' && query.trim() !== '' ? 'costly' : 'read'
}

// The MCP SDK (and zod with it) is ~25 MB of RSS: loaded on the first /mcp request, not
// in every API process at start.
let mcpModules: Promise<[typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'), typeof import('../mcp/catalog-server.js')]> | undefined
const loadMcp = async (): Promise<NonNullable<typeof mcpModules>> => {
  mcpModules ??= Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('../mcp/catalog-server.js')])
  return await mcpModules
}

const mcpRoutes: FastifyPluginAsync = async (app) => {
  const deps = { store: app.store, engine: app.searchIndex.engine, tokenizer: app.searchIndex.tokenizer, chainNetworks: app.chainNetworks }

  // One POST carries several calls: each message spends the budget of the route it stands for,
  // instead of the POST counting once.
  app.post('/mcp', { schema: { hide: true }, config: { rateLimit: false } }, async (request, reply) => {
    const messages = Array.isArray(request.body) ? request.body as unknown[] : [request.body]
    if (messages.length > MAX_MCP_BATCH) throw new ValidationError('body', `a batch of ${messages.length} messages; at most ${MAX_MCP_BATCH} per request`)
    // Before anything runs: a batch over a budget runs none of its calls.
    for (const message of messages) {
      const spent = await app.budgets.spend(request, budgetOf(message))
      reply.headers(spent.headers)
      if (spent.error !== null) throw spent.error
    }
    const [{ StreamableHTTPServerTransport }, { createCatalogServer }] = await loadMcp()
    const server = createCatalogServer(deps, VERSION, { answerBytes: MAX_MCP_ANSWER_BYTES })
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    // The transport writes the response itself; headers set by hooks so far (rate limits) go with it.
    reply.hijack()
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) reply.raw.setHeader(name, value)
    }
    // The onSend hook that sets it on every other answer does not run for a hijacked reply.
    reply.raw.setHeader('x-content-type-options', 'nosniff')
    reply.raw.on('close', () => {
      void transport.close()
      void server.close()
    })
    try {
      await server.connect(transport)
      await transport.handleRequest(request.raw, reply.raw, request.body)
    } catch (err) {
      request.log.error({ err }, 'mcp request failed')
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' })
        reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }))
      }
    }
  })

  // Stateless: no server-initiated stream to open (GET) and no session to end (DELETE).
  const notAllowed = async (): Promise<unknown> => ({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST JSON-RPC messages to /mcp' }, id: null })
  app.get('/mcp', { schema: { hide: true } }, async (_request, reply) => await reply.code(405).header('allow', 'POST').send(await notAllowed()))
  app.delete('/mcp', { schema: { hide: true } }, async (_request, reply) => await reply.code(405).header('allow', 'POST').send(await notAllowed()))
}

export default mcpRoutes
