/**
 * A local x402 resource server for trying the catalog's prober (npm run demo:x402): one paid
 * route behind the official @x402/express middleware. The middleware answers 500 instead of
 * 402 until a facilitator answers /supported, so an in-process facilitator that accepts no
 * payment stands in for one: nothing here can be paid, which is all a probe needs.
 *
 *   npm run demo:x402 -- --pay-to 0x1111111111111111111111111111111111111111 --price 0.001
 */
import { createServer } from 'node:http'
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

const USAGE = 'usage: npm run demo:x402 -- --pay-to <address> [--price 0.001] [--network base] [--method GET] [--path /paid] [--port 4021] [--description text] [--service-name Name] [--tags a,b]'

async function main (argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'pay-to': { type: 'string' },
      price: { type: 'string', default: '0.001' },
      network: { type: 'string', default: 'base' },
      method: { type: 'string', default: 'GET' },
      path: { type: 'string', default: '/paid' },
      port: { type: 'string', default: '4021' },
      // What the 402 answer says about the route: registration from the endpoint fills the listing from it.
      description: { type: 'string', default: 'demo paid route' },
      'service-name': { type: 'string' },
      tags: { type: 'string' },
      help: { type: 'boolean', short: 'h' }
    }
  })
  const network = resolveNetwork(values.network)
  const method = values.method.toUpperCase()
  if (values.help === true || values['pay-to'] === undefined || network === undefined || !['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method) || !/^\d+$/.test(values.port)) {
    console.error(USAGE)
    return values.help === true ? 0 : 2
  }
  const id = network.id as Network
  const resourceServer = new x402ResourceServer(noPaymentFacilitator(id)).register(id, network.family === 'evm' ? new ExactEvmScheme() : new ExactSvmScheme())
  const app = express()
  app.use(paymentMiddleware({
    [`${method} ${values.path}`]: {
      accepts: { scheme: 'exact', price: `$${values.price}`, network: id, payTo: values['pay-to'] },
      description: values.description,
      ...(values['service-name'] === undefined ? {} : { serviceName: values['service-name'] }),
      ...(values.tags === undefined ? {} : { tags: values.tags.split(',').map((tag) => tag.trim()).filter((tag) => tag !== '') })
    }
  }, resourceServer))
  app[method.toLowerCase() as 'get'](values.path, (_req, res) => { res.json({ paid: true }) })
  createServer(app).listen(Number(values.port), '127.0.0.1', () => {
    console.log(`x402 demo server: ${method} http://127.0.0.1:${values.port}${values.path} asks ${values.price} USDC on ${id}, paid to ${values['pay-to']}`)
  })
  return 0
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => { if (code !== 0) process.exitCode = code }, (err: unknown) => {
    console.error(`demo:x402: ${(err as Error).message}`)
    process.exitCode = 1
  })
}
