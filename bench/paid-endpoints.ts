/**
 * Loopback x402 endpoints for the registrations a benchmark sends. The catalog probes every
 * registration once (its 402 answer is the listing's identity), so a fictional host would
 * time the machine's DNS resolver rather than the catalog: this machine's resolver answers
 * 50 lookups/s of unknown names in 13.5 s at the median (docs/benchmarks.md). Each listing gets
 * a path of its own on one server, answering 402 with the listing's terms, as a live
 * endpoint would; the API under test needs CATALOG_PROBE_ALLOW_PRIVATE=1 to reach it.
 */
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { encodePaymentRequiredHeader } from '@x402/core/http'
import { resolveNetwork } from '../src/domain/networks.js'
import { buildServiceRecord, type RegistrationBody } from '../src/domain/registration.js'
import { HOST } from './support.js'

/** A network without a known USDC contract: any non-empty asset parses, and the catalog checks none. */
const NO_KNOWN_USDC = '0x0000000000000000000000000000000000000000'

export interface PaidEndpoints {
  /** The body, its endpoint moved to a path of its own here (`key` makes the path unique). */
  list: (body: RegistrationBody, key: string) => RegistrationBody
  close: () => Promise<void>
}

export async function startPaidEndpoints (): Promise<PaidEndpoints> {
  const answers = new Map<string, string>()
  const server = createServer((req, res) => {
    const header = answers.get((req.url ?? '').split('?')[0] as string)
    if (header === undefined) res.writeHead(404).end()
    else res.writeHead(402, { 'payment-required': header, 'content-type': 'application/json' }).end('{}')
  })
  server.listen(0, HOST)
  await once(server, 'listening')
  // A benchmark that fails midway must still exit.
  server.unref()
  const origin = `http://${HOST}:${(server.address() as AddressInfo).port}`
  return {
    list (body, key) {
      const path = `/${encodeURIComponent(key)}${new URL(body.endpoint).pathname}`
      const listed = { ...body, endpoint: `${origin}${path}` }
      // The terms as the catalog reads them from the body (CAIP-2 network, atomic price).
      const record = buildServiceRecord({ ...listed, category: listed.category ?? 'other' }, { id: 'bench', ownerId: null, now: new Date().toISOString() })
      const required: Parameters<typeof encodePaymentRequiredHeader>[0] = {
        x402Version: 2,
        resource: { url: record.endpoint, description: record.description, mimeType: 'application/json' },
        accepts: [{ scheme: 'exact', network: record.network as `${string}:${string}`, amount: String(record.priceAtomic), asset: resolveNetwork(record.network)?.usdc ?? NO_KNOWN_USDC, payTo: record.paymentAddress, maxTimeoutSeconds: 60, extra: {} }]
      }
      answers.set(path, encodePaymentRequiredHeader(required))
      return listed
    },
    close: async () => { server.closeAllConnections(); server.close(); await once(server, 'close') }
  }
}
