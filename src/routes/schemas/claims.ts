/** Request and answer schemas of /api/claims (src/routes/claims.ts). */
import { Type } from '@sinclair/typebox'
import { CLAIM_EXTENSION_KEY, CLAIM_WELL_KNOWN_PATH } from '../../domain/claims.js'
import { HttpMethodEnum } from '../../domain/http-method.js'
import { UrlText } from './common.js'

export const ClaimBody = Type.Object({
  origin: UrlText('The origin to claim, e.g. https://api.example.com (any URL of it is read as its origin)')
}, { additionalProperties: false })

export const VerifyBody = Type.Object({
  origin: ClaimBody.properties.origin,
  endpoint: Type.Optional(UrlText(`A paid endpoint of the origin whose 402 answer carries extensions["${CLAIM_EXTENSION_KEY}"], when the token is published there rather than at ${CLAIM_WELL_KNOWN_PATH}`)),
  method: Type.Optional(HttpMethodEnum)
}, { additionalProperties: false })

export const ClaimSchema = Type.Object({
  origin: Type.String(),
  token: Type.String(),
  instructions: Type.String(),
  wellKnownUrl: Type.String({ description: 'Where to publish {"claims":["<token>"]}' }),
  extensionKey: Type.String({ description: 'Or: the 402 answer\'s extensions key carrying the same document' }),
  provenAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()])
}, { additionalProperties: false })

export const VerifiedSchema = Type.Object({
  origin: Type.String(),
  provenAt: Type.String({ format: 'date-time' }),
  proof: Type.String({ description: 'The URL that served the token (a redirect within the origin is followed; one off it proves nothing)' }),
  moved: Type.Array(Type.String(), { description: 'Ids of the listings of the origin that moved to this key' })
}, { additionalProperties: false })
