/**
 * Bearer API keys. Bootstrap keys come from CATALOG_API_KEYS, operator keys from the
 * store (npm run keys). Only hashes are compared, in constant time; keys are never logged.
 */
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { bootstrapOwnerId, hashApiKey, sameHash } from '../domain/api-keys.js'
import { UnauthorizedError } from '../errors.js'

declare module 'fastify' {
  interface FastifyInstance {
    authenticate: (request: FastifyRequest) => Promise<void>
  }
  interface FastifyRequest {
    /** Owner id of the API key that authenticated this request. */
    ownerId: string | null
  }
}

export default fp(async function authPlugin (app: FastifyInstance, opts: { apiKeys: readonly string[] }) {
  const bootstrapHashes = opts.apiKeys.map(hashApiKey)
  app.decorateRequest('ownerId', null)

  app.decorate('authenticate', async function authenticate (request: FastifyRequest) {
    const header = request.headers.authorization
    const match = header === undefined ? null : /^Bearer +(\S+) *$/i.exec(header)
    if (match === null) throw new UnauthorizedError('Authorization: Bearer <api key> is required')
    const hash = hashApiKey(match[1] as string)
    // Visit every bootstrap hash so timing does not reveal which one matched.
    let bootstrapMatch: string | null = null
    for (const candidate of bootstrapHashes) {
      if (sameHash(candidate, hash)) bootstrapMatch = candidate
    }
    if (bootstrapMatch !== null) {
      request.ownerId = bootstrapOwnerId(bootstrapMatch)
      return
    }
    const stored = await app.store.findActiveApiKeyByHash(hash)
    if (stored === null || !sameHash(stored.hash, hash)) throw new UnauthorizedError('invalid or revoked API key')
    request.ownerId = stored.id
  })
}, { name: 'auth', dependencies: ['store'] })
