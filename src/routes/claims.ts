/**
 * /api/claims: proving control of an origin against squatting (src/domain/claims.ts). An
 * owner gets a token, publishes it at `{origin}/.well-known/x402-catalog` or in a listed
 * endpoint's 402 `extensions["x402-catalog"]`, and asks for verification; a proven owner's
 * key then holds every listing of the origin.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  CLAIM_EXTENSION_KEY, CLAIM_WELL_KNOWN_PATH, MAX_CLAIM_DOCUMENT_BYTES, claimInstructions, documentClaims, newClaimToken
} from '../domain/claims.js'
import { canonicalEndpoint, canonicalOrigin, originOf } from '../domain/endpoint-url.js'
import { ClaimNotProvenError, ValidationError } from '../errors.js'
import { ErrorSchema } from '../plugins/errors.js'
import { ClaimBody, ClaimSchema, VerifiedSchema, VerifyBody } from './schemas/claims.js'

const claimsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/api/claims', {
    onRequest: app.authenticate,
    schema: {
      tags: ['claims'],
      summary: 'Get this key\'s claim token for an origin (Bearer API key)',
      description: 'Asking again returns the same token. Publish it, then POST /api/claims/verify.',
      security: [{ bearerAuth: [] }],
      body: ClaimBody,
      response: { 200: ClaimSchema, 400: ErrorSchema, 401: ErrorSchema }
    }
  }, async (request) => {
    const origin = canonicalOrigin('origin', request.body.origin)
    const claim = await app.store.issueClaim({ origin, ownerId: request.ownerId as string, token: newClaimToken(), createdAt: new Date().toISOString(), provenAt: null })
    return {
      origin,
      token: claim.token,
      instructions: claimInstructions(origin, claim.token),
      wellKnownUrl: origin + CLAIM_WELL_KNOWN_PATH,
      extensionKey: CLAIM_EXTENSION_KEY,
      provenAt: claim.provenAt
    }
  })

  app.post('/api/claims/verify', {
    onRequest: app.authenticate,
    config: { writesCatalog: true },
    schema: {
      tags: ['claims'],
      summary: 'Check the origin publishes this key\'s token; if so, every listing of the origin moves to this key (Bearer API key)',
      description: `Reads ${CLAIM_WELL_KNOWN_PATH} on the origin (JSON, at most ${MAX_CLAIM_DOCUMENT_BYTES / 1024} KiB, through the prober's SSRF guard and time budget), else the 402 answer of \`endpoint\` (extensions["${CLAIM_EXTENSION_KEY}"]). Only the origin's own answer counts: a redirect to another origin (scheme, host or port) proves nothing. 422 CLAIM_NOT_PROVEN says what was found instead.`,
      security: [{ bearerAuth: [] }],
      body: VerifyBody,
      response: { 200: VerifiedSchema, 400: ErrorSchema, 401: ErrorSchema, 422: ErrorSchema }
    }
  }, async (request) => {
    const origin = canonicalOrigin('origin', request.body.origin)
    const ownerId = request.ownerId as string
    let endpoint: string | undefined
    if (request.body.endpoint !== undefined) {
      endpoint = canonicalEndpoint(request.body.endpoint)
      if (originOf(endpoint) !== origin) throw new ValidationError('endpoint', `must be on ${origin}`)
    }
    const claim = await app.store.getClaim(origin, ownerId)
    if (claim === null) throw new ValidationError('origin', `this key has no claim token for ${origin}: POST /api/claims first`)

    const wellKnown = origin + CLAIM_WELL_KNOWN_PATH
    const found: string[] = []
    let proof: string | null = null
    const document = await app.prober.fetchOriginDocument(wellKnown, MAX_CLAIM_DOCUMENT_BYTES)
    if (document.ok && documentClaims(document.document, claim.token)) proof = document.url
    else found.push(`${wellKnown}: ${document.ok ? 'does not list the token' : document.reason}`)
    if (proof === null && endpoint !== undefined) {
      const read = await app.prober.read(endpoint, request.body.method ?? 'GET', { sameOrigin: true })
      if (read.ok && documentClaims(read.payment.extensions?.[CLAIM_EXTENSION_KEY], claim.token)) proof = `${read.url} (402 extensions["${CLAIM_EXTENSION_KEY}"])`
      else found.push(`${endpoint}: ${read.ok ? `its 402 answer's extensions["${CLAIM_EXTENSION_KEY}"] do not list the token` : read.outcome.reason}`)
    }
    if (proof === null) throw new ClaimNotProvenError(`control of ${origin} is not proven: ${found.join('; ')}`)

    const at = new Date().toISOString()
    const moved = await app.store.proveClaim(origin, ownerId, at, `the owner of ${origin} proved control of it at ${proof} on ${at}`)
    if (moved === null) throw new ValidationError('origin', `this key has no claim token for ${origin}: POST /api/claims first`)
    app.searchIndex.indexer.notify()
    app.log.info({ origin, moved: moved.map((record) => record.id) }, 'origin claimed')
    return { origin, provenAt: at, proof, moved: moved.map((record) => record.id) }
  })
}

export default claimsRoutes
