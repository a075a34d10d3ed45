/** The catalog side of the chain tests: an app watching given chains, a paid route registered, figures awaited. */
import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { parseChains } from '../../src/chain/config.js'
import type { ServiceUsage } from '../../src/domain/payment.js'
import { build, register, validBody } from '../helper.js'
import { NETWORK, until } from './chain.js'

/** An app whose watcher follows `chains` (entries of a CATALOG_CHAINS file), polling every 100 ms. */
export async function appOn (t: Test, chains: Array<Record<string, unknown>>): Promise<FastifyInstance> {
  const app = await build(t, { seed: 'none', chains: parseChains(JSON.stringify(chains)), chainPollMs: 100 })
  await app.ready()
  return app
}

/** Registers a paid route on the test chain; its service id. */
export async function registerPaid (app: FastifyInstance, url: string, payTo: string, price = '0.001'): Promise<string> {
  const res = await register(app, validBody({ endpoint: url, pricing: { currency: 'USDC', pricePerRequest: price }, x402Config: { paymentAddress: payTo, network: NETWORK } }))
  if (res.statusCode !== 201) throw new Error(`registration answered ${res.statusCode}: ${res.body}`)
  return res.json().id as string
}

export async function usageOf (app: FastifyInstance, id: string): Promise<ServiceUsage | null> {
  return (await app.store.getService(id))?.usage ?? null
}

/** Waits until the service's stored usage satisfies `ok`; the deadline allows for a loaded machine. */
export async function usageWhen (app: FastifyInstance, id: string, ok: (usage: ServiceUsage) => boolean, what: string): Promise<ServiceUsage> {
  return await until(what, 90_000, async () => {
    const usage = await usageOf(app, id)
    return usage !== null && ok(usage) ? usage : undefined
  })
}
