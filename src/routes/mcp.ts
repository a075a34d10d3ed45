/**
 * /mcp: the catalog's MCP server over the Streamable HTTP transport, stateless. Every POST
 * gets its own server and transport, so any process behind a load balancer can answer any
 * request and nothing is kept between requests; the tools are read-only, so no session
 * state is needed. Answers are plain JSON (no SSE stream): every tool answers at once.
 */
import type { FastifyPluginAsync } from 'fastify'

const VERSION = '0.1.0'

// The MCP SDK (and zod with it) is ~25 MB of RSS: loaded on the first /mcp request, not
// in every API process at start.
let mcpModules: Promise<[typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'), typeof import('../mcp/catalog-server.js')]> | undefined
const loadMcp = async (): Promise<NonNullable<typeof mcpModules>> => {
  mcpModules ??= Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('../mcp/catalog-server.js')])
  return await mcpModules
}

const mcpRoutes: FastifyPluginAsync = async (app) => {
  const deps = { store: app.store, engine: app.searchIndex.engine, tokenizer: app.searchIndex.tokenizer, chainNetworks: app.chainNetworks }

  // Read-only tools: limited as reads per client IP (a POST would count as a write).
  app.post('/mcp', { schema: { hide: true }, config: { limitAs: 'read' } }, async (request, reply) => {
    const [{ StreamableHTTPServerTransport }, { createCatalogServer }] = await loadMcp()
    const server = createCatalogServer(deps, VERSION)
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
