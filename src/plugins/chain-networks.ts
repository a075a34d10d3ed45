/**
 * Which networks' settlements the catalog measures (the chain watcher's configured networks,
 * CAIP-2). Routes read it to say where usage figures come from (`revenueSource`); it is
 * empty unless the app is built with networks to watch.
 */
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

declare module 'fastify' {
  interface FastifyInstance {
    chainNetworks: ReadonlySet<string>
  }
}

export default fp(async function chainNetworksPlugin (app: FastifyInstance, opts: { networks: Iterable<string> }) {
  app.decorate('chainNetworks', new Set(opts.networks) as ReadonlySet<string>)
}, { name: 'chain-networks' })
