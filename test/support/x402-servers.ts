/**
 * Real x402 resource servers on 127.0.0.1 for tests: v2 with the official @x402/express
 * middleware (an in-process facilitator answers /supported, so the middleware answers 402
 * instead of 500), v1 with `x402-express` from the optional set in test/x402-v1 (skipped
 * loudly when that set is not installed), and plain HTTP servers for broken answers.
 */
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import express from 'express'
import { paymentMiddleware, x402ResourceServer } from '@x402/express'
import { bazaarResourceServerExtension } from '@x402/extensions/bazaar'
import type { Network } from '@x402/core/types'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { ExactSvmScheme } from '@x402/svm/exact/server'
import { noPaymentFacilitator } from '../../scripts/x402-demo-server.js'
import { PROJECT_ROOT } from '../../src/paths.js'
import { resolveNetwork } from '../../src/domain/networks.js'

export interface RunningServer {
  /** Origin, e.g. http://127.0.0.1:40123 */
  origin: string
  port: number
  close: () => Promise<void>
}

export interface X402Server extends RunningServer {
  /** Full URL of the paid route. */
  url: string
}

export interface X402ServerOptions {
  /** x402 protocol version of the middleware; default 2. */
  version?: 1 | 2
  payTo: string
  /** Money string as the middleware takes it ('$0.001'); default '$0.001' (1000 atomic USDC). */
  price?: string
  /** CAIP-2 id or v1 name; default eip155:8453 (base). */
  network?: string
  /** Method of the paid route; other methods on it answer 404. Default GET. */
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** Path of the paid route; default /paid. */
  path?: string
  /** Listen on this port (restart a server that went down at the same URL); default any. */
  port?: number
  /** Path of the resource URL the v2 402 answer declares (`resource.url`), on the server's origin; default the request's own URL (the middleware's default). */
  resource?: string
  /** Route pattern the middleware answers 402 on (its syntax: `/paid*`), when wider than `path`; default `path`. */
  pattern?: string
  /** Served as `{ "claims": [...] }` at /.well-known/x402-catalog, read per request (a test adds a token later). */
  claims?: string[]
  /** The route's `description` (resource.description of the 402 answer); default 'test paid route'. */
  description?: string
  /** Bazaar service metadata of the route's 402 answer (resource.serviceName, resource.tags), v2 only. */
  serviceName?: string
  tags?: string[]
  /** Body of /.well-known/x402 (an origin's resource list), read per request so a test can change it. */
  wellKnown?: () => string
  /** More JSON documents by path (/openapi.json, /.well-known/openapi.json), each read per request; undefined answers 404. */
  documents?: Record<string, () => string | undefined>
  /** Paths answering GET with 200 and no payment asked. */
  free?: string[]
  /** More paid methods on the same path, each with its own terms (v2 only). */
  also?: Array<{ method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', price?: string, payTo?: string }>
  /**
   * v2: the route's declared `extensions` (`declareDiscoveryExtension(...)` of @x402/extensions), with
   * `bazaarResourceServerExtension` registered as a provider does.
   */
  extensions?: Record<string, unknown>
  /** v1: the route's `config` (`inputSchema`, `outputSchema`, `discoverable`, …) as x402-express takes it. */
  v1Config?: Record<string, unknown>
}

async function listen (server: Server, port = 0): Promise<RunningServer> {
  server.listen(port, '127.0.0.1')
  await once(server, 'listening')
  const actual = (server.address() as AddressInfo).port
  return {
    origin: `http://127.0.0.1:${actual}`,
    port: actual,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

const V1_DIR = join(PROJECT_ROOT, 'test', 'x402-v1')

/** Whether the optional v1 server set (`npm ci --prefix test/x402-v1`) is installed. */
export function x402V1Available (): boolean {
  return existsSync(join(V1_DIR, 'node_modules', 'x402-express', 'package.json'))
}

export const X402_V1_SKIP = 'x402 v1 tests SKIPPED: run `npm ci --prefix test/x402-v1` to install x402-express (~540 packages)'

export async function startX402Server (options: X402ServerOptions): Promise<X402Server> {
  const method = options.method ?? 'GET'
  const path = options.path ?? '/paid'
  const price = options.price ?? '$0.001'
  const network = resolveNetwork(options.network ?? 'eip155:8453')
  if (network === undefined) throw new Error(`unknown network ${options.network}`)
  if (options.version === 1 && !x402V1Available()) throw new Error(X402_V1_SKIP)
  if (options.version === 1 && network.v1Name === null) throw new Error(`${network.id} has no x402 v1 name`)
  const app = express()
  // Listening first: a declared resource URL names the origin, known once the port is.
  const running = await listen(createServer(app), options.port)
  const claims = options.claims
  if (claims !== undefined) app.get('/.well-known/x402-catalog', (_req, res) => { res.json({ claims }) })
  const wellKnown = options.wellKnown
  if (wellKnown !== undefined) app.get('/.well-known/x402', (_req, res) => { res.type('application/json').send(wellKnown()) })
  for (const [path, body] of Object.entries(options.documents ?? {})) {
    app.get(path, (_req, res) => {
      const text = body()
      if (text === undefined) res.status(404).end()
      else res.type('application/json').send(text)
    })
  }
  for (const free of options.free ?? []) app.get(free, (_req, res) => { res.json({ free: true }) })
  if ((options.version ?? 2) === 2) {
    const id = network.id as Network
    const resourceServer = new x402ResourceServer(noPaymentFacilitator(id))
      .register(id, network.family === 'evm' ? new ExactEvmScheme() : new ExactSvmScheme())
    if (options.extensions !== undefined) resourceServer.registerExtension(bazaarResourceServerExtension)
    const extensions = options.extensions
    const resource = options.resource === undefined ? {} : { resource: running.origin + options.resource }
    const routes: Record<string, unknown> = {}
    for (const route of [{ method, price, payTo: options.payTo }, ...(options.also ?? [])]) {
      routes[`${route.method} ${options.pattern ?? path}`] = {
        accepts: { scheme: 'exact', price: route.price ?? price, network: id, payTo: route.payTo ?? options.payTo },
        description: options.description ?? 'test paid route',
        ...(options.serviceName === undefined ? {} : { serviceName: options.serviceName }),
        ...(options.tags === undefined ? {} : { tags: options.tags }),
        ...resource,
        ...(extensions === undefined ? {} : { extensions })
      }
    }
    app.use(paymentMiddleware(routes as Parameters<typeof paymentMiddleware>[0], resourceServer))
  } else {
    const v1 = createRequire(join(V1_DIR, 'package.json'))('x402-express') as {
      paymentMiddleware: (payTo: string, routes: Record<string, unknown>) => express.RequestHandler
    }
    app.use(v1.paymentMiddleware(options.payTo, { [`${method} ${path}`]: { price, network: network.v1Name as string, ...(options.v1Config === undefined ? {} : { config: options.v1Config }) } }))
  }
  app[method.toLowerCase() as 'get'](path, (_req, res) => { res.json({ paid: true }) })
  return { ...running, url: running.origin + path }
}

/** A plain HTTP server for answers no middleware gives (200, garbage, huge headers, redirects, silence). */
export async function startHttpServer (
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  options: { port?: number, maxHeaderSize?: number } = {}
): Promise<RunningServer> {
  return await listen(createServer({ maxHeaderSize: options.maxHeaderSize }, handler), options.port)
}
