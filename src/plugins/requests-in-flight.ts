/**
 * Counts the requests this process is answering (src/lib/time-slices.ts): while any are in
 * flight, a source pass and the indexer on the same thread keep to their share of it.
 */
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { background } from '../lib/time-slices.js'

const counted = new WeakSet<FastifyReply>()

function done (reply: FastifyReply): void {
  if (counted.delete(reply)) background.inFlight--
}

export default fp(async function requestsInFlightPlugin (app: FastifyInstance) {
  // Callback hooks: on every request, a promise each would cost more than the count.
  app.addHook('onRequest', (_request, reply, next) => {
    counted.add(reply)
    background.inFlight++
    // An answer sent, or a connection closed before it was: whichever comes first.
    reply.raw.once('close', () => { done(reply) })
    next()
  })
  app.addHook('onResponse', (_request, reply, next) => {
    done(reply)
    next()
  })
}, { name: 'requests-in-flight' })
