/**
 * A local x402 origin for trying the catalog's prober, registration and origin import
 * (npm run demo:x402): paid routes behind the official @x402/express middleware, listed at
 * `/.well-known/x402` (the document POST /api/origins/import reads) and described by
 * `/openapi.json` (OpenAPI 3.1, `x-payment-info` on each paid operation). Both list exactly the
 * routes served. The middleware answers 500 instead of 402 until a facilitator answers
 * /supported, so an in-process facilitator that accepts no payment stands in for one: nothing
 * here can be paid, which is all a probe needs.
 *
 *   npm run demo:x402 -- --pay-to 0x1111111111111111111111111111111111111111 --price 0.001
 *   DEMO_X402_PORT=4100 npm run demo:x402 -- --pay-to 0x1111… --route 'POST /translate 0.002 Translate text'
 */
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import express from 'express'
import { paymentMiddleware, x402ResourceServer } from '@x402/express'
import type { FacilitatorClient } from '@x402/core/server'
import type { Network } from '@x402/core/types'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { ExactSvmScheme } from '@x402/svm/exact/server'
import { resolveNetwork } from '../src/domain/networks.js'

/** A facilitator that supports exact payments on `network` and accepts none. */
export function noPaymentFacilitator (network: Network): FacilitatorClient {
  return {
    getSupported: async () => ({ kinds: [{ x402Version: 2, scheme: 'exact', network }], extensions: [], signers: {} }),
    verify: async () => ({ isValid: false, invalidReason: 'demo facilitator: payments are not accepted' }),
    settle: async () => ({ success: false, errorReason: 'demo facilitator: payments are not settled', transaction: '', network })
  }
}

export const DEMO_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
export type DemoMethod = typeof DEMO_METHODS[number]

/** One paid route: what its 402 answer asks and says about it. */
export interface DemoRoute {
  method: DemoMethod
  /** Starts with /. */
  path: string
  /** Decimal USDC, e.g. '0.001'. */
  price: string
  /** resource.description of the 402 answer (registration from the endpoint fills the listing from it). */
  description: string
  /** Bazaar resource.serviceName and resource.tags of the 402 answer. */
  serviceName?: string
  tags?: string[]
}

export interface DemoServerOptions {
  payTo: string
  /** x402 v1 name or CAIP-2 id; default base. */
  network?: string
  routes: DemoRoute[]
  /** Default 0: any free port. */
  port?: number
  /** Default 127.0.0.1. */
  host?: string
}

export interface DemoServer {
  /** e.g. http://127.0.0.1:4021 */
  origin: string
  port: number
  network: string
  routes: DemoRoute[]
  close: () => Promise<void>
}

/** `{ version: 1, resources: ["METHOD /path", …] }`: the x402scan document the catalog's origin import reads. */
export function wellKnownDocument (routes: readonly DemoRoute[]): { version: 1, resources: string[], instructions: string } {
  return {
    version: 1,
    resources: routes.map((route) => `${route.method} ${route.path}`),
    instructions: 'A demo origin (scripts/x402-demo-server.ts): each resource answers 402 with its x402 terms; its facilitator accepts no payment, so nothing here can be paid.'
  }
}

/** An OpenAPI 3.1 description of the paid routes, each with x402scan's `x-payment-info` and its 402 answer. */
export function openApiDocument (origin: string, routes: readonly DemoRoute[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    paths[route.path] ??= {}
    ;(paths[route.path] as Record<string, unknown>)[route.method.toLowerCase()] = {
      summary: route.serviceName ?? route.description,
      description: route.description,
      operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      ...(route.tags === undefined ? {} : { tags: route.tags }),
      // x402scan's discovery form; the live 402 answer (network, payTo, asset) is authoritative.
      'x-payment-info': { protocols: ['x402'], price: { mode: 'fixed', currency: 'USD', amount: route.price } },
      responses: {
        200: { description: 'Paid', content: { 'application/json': { schema: { type: 'object', properties: { paid: { type: 'boolean' } }, required: ['paid'] } } } },
        402: { description: 'Payment required: the x402 payment requirements, base64 JSON in the PAYMENT-REQUIRED header' }
      }
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'x402 demo server', version: '1.0.0', description: 'Paid routes for trying the x402 catalog on one machine. Its facilitator accepts no payment: every paid route answers 402.' },
    servers: [{ url: origin }],
    paths
  }
}

/** Starts the demo origin: the paid routes, /.well-known/x402 and /openapi.json. */
export async function startDemoServer (options: DemoServerOptions): Promise<DemoServer> {
  const network = resolveNetwork(options.network ?? 'base')
  if (network === undefined) throw new Error(`unknown network ${options.network ?? ''}`)
  if (options.routes.length === 0) throw new Error('no route to serve')
  const seen = new Set<string>()
  for (const route of options.routes) {
    const key = `${route.method} ${route.path}`
    if (!route.path.startsWith('/') || /\s/.test(route.path)) throw new Error(`${key}: a path starts with / and has no spaces`)
    if (seen.has(key) || route.path === '/.well-known/x402' || route.path === '/openapi.json') throw new Error(`${key} is served twice`)
    seen.add(key)
  }
  const id = network.id as Network
  const resourceServer = new x402ResourceServer(noPaymentFacilitator(id)).register(id, network.family === 'evm' ? new ExactEvmScheme() : new ExactSvmScheme())
  const app = express()
  const server = createServer(app)
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1')
  await once(server, 'listening')
  const address = server.address() as AddressInfo
  const port = address.port
  const origin = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${port}`

  app.get('/.well-known/x402', (_req, res) => { res.json(wellKnownDocument(options.routes)) })
  app.get('/openapi.json', (_req, res) => { res.json(openApiDocument(origin, options.routes)) })
  const config: Record<string, unknown> = {}
  for (const route of options.routes) {
    config[`${route.method} ${route.path}`] = {
      accepts: { scheme: 'exact', price: `$${route.price}`, network: id, payTo: options.payTo },
      description: route.description,
      ...(route.serviceName === undefined ? {} : { serviceName: route.serviceName }),
      ...(route.tags === undefined ? {} : { tags: route.tags })
    }
  }
  app.use(paymentMiddleware(config as Parameters<typeof paymentMiddleware>[0], resourceServer))
  for (const route of options.routes) app[route.method.toLowerCase() as 'get'](route.path, (_req, res) => { res.json({ paid: true }) })

  return {
    origin,
    port,
    network: id,
    routes: options.routes,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

const USAGE = `usage: npm run demo:x402 -- --pay-to <address> [--price 0.001] [--network base] [--method GET] [--path /paid] [--port 4021] [--description text] [--service-name Name] [--tags a,b] [--route 'METHOD /path [price] [description]' …]

The port is --port, else DEMO_X402_PORT, else 4021 (0: any free port). The first route is --method --path --price
--description --service-name --tags; each --route adds another with the same payTo and network. /.well-known/x402
and /openapi.json list them all.`

const PRICE = /^\d+(\.\d+)?$/

/** `METHOD /path [price] [description…]`; price and description default to the first route's. */
function parseRoute (spec: string, price: string, description: string): DemoRoute | string {
  const [method = '', path = '', ...rest] = spec.trim().split(/\s+/)
  if (!(DEMO_METHODS as readonly string[]).includes(method.toUpperCase()) || !path.startsWith('/')) return `--route ${JSON.stringify(spec)}: must be 'METHOD /path [price] [description]' with METHOD one of ${DEMO_METHODS.join(', ')}`
  const ownPrice = rest[0] !== undefined && PRICE.test(rest[0]) ? rest.shift() as string : price
  return { method: method.toUpperCase() as DemoMethod, path, price: ownPrice, description: rest.length > 0 ? rest.join(' ') : description }
}

async function main (argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'pay-to': { type: 'string' },
      price: { type: 'string', default: '0.001' },
      network: { type: 'string', default: 'base' },
      method: { type: 'string', default: 'GET' },
      path: { type: 'string', default: '/paid' },
      port: { type: 'string', default: env.DEMO_X402_PORT ?? '4021' },
      // What the 402 answer says about the route: registration from the endpoint fills the listing from it.
      description: { type: 'string', default: 'demo paid route' },
      'service-name': { type: 'string' },
      tags: { type: 'string' },
      route: { type: 'string', multiple: true, default: [] },
      help: { type: 'boolean', short: 'h' }
    }
  })
  if (values.help === true) {
    console.log(USAGE)
    return 0
  }
  const method = values.method.toUpperCase()
  const problems: string[] = []
  if (values['pay-to'] === undefined) problems.push('--pay-to is required')
  if (resolveNetwork(values.network) === undefined) problems.push(`--network ${values.network} is not a known network`)
  if (!(DEMO_METHODS as readonly string[]).includes(method)) problems.push(`--method ${values.method} is not one of ${DEMO_METHODS.join(', ')}`)
  if (!/^\d+$/.test(values.port) || Number(values.port) > 65535) problems.push(`port ${values.port} is not a port number (--port or DEMO_X402_PORT)`)
  if (!PRICE.test(values.price)) problems.push(`--price ${values.price} is not a decimal amount of USDC`)
  const first: DemoRoute = {
    method: method as DemoMethod,
    path: values.path,
    price: values.price,
    description: values.description,
    ...(values['service-name'] === undefined ? {} : { serviceName: values['service-name'] }),
    ...(values.tags === undefined ? {} : { tags: values.tags.split(',').map((tag) => tag.trim()).filter((tag) => tag !== '') })
  }
  const routes: DemoRoute[] = [first]
  for (const spec of values.route) {
    const route = parseRoute(spec, values.price, values.description)
    if (typeof route === 'string') problems.push(route)
    else routes.push(route)
  }
  if (problems.length > 0) {
    console.error(`demo:x402: ${problems.join('; ')}\n${USAGE}`)
    return 2
  }
  let server: DemoServer
  try {
    server = await startDemoServer({ payTo: values['pay-to'] as string, network: values.network, routes, port: Number(values.port) })
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    console.error(`demo:x402: ${code === 'EADDRINUSE' ? `port ${values.port} is already in use (another demo server? stop it, or choose another with --port or DEMO_X402_PORT)` : (err as Error).message}`)
    return 1
  }
  for (const route of routes) {
    console.log(`x402 demo server: ${route.method} ${server.origin}${route.path} asks ${route.price} USDC on ${server.network}, paid to ${values['pay-to'] as string}`)
  }
  console.log(`x402 demo server: origin ${server.origin} lists them at ${server.origin}/.well-known/x402 and ${server.origin}/openapi.json`)
  return 0
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2), process.env).then((code) => { if (code !== 0) process.exitCode = code }, (err: unknown) => {
    console.error(`demo:x402: ${(err as Error).message}`)
    process.exitCode = 1
  })
}
