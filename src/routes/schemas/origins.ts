/** Request and answer schemas of an origin import (src/routes/origins.ts); past the answer bound it runs as a job (./jobs.ts). */
import { Type } from '@sinclair/typebox'
import { HttpMethodEnum } from '../../domain/http-method.js'
import { ORIGIN_DOCUMENT_PATH, removedFrom } from '../../domain/origin-document.js'
import { ServiceStatusEnum } from '../../domain/service.js'
import { StringEnum } from '../../domain/string-enum.js'
import { UrlText } from './common.js'

export const ImportBody = Type.Object({
  origin: UrlText('The origin whose /.well-known/x402 to import, e.g. https://api.example.com (any URL of it is read as its origin)')
}, { additionalProperties: false })

const ImportRowSchema = Type.Object({
  resource: Type.String({ description: 'The document\'s entry as written' }),
  result: StringEnum(['registered', 'updated', 'unchanged', 'refused'], { description: 'registered: a new listing of this key; updated/unchanged: this key\'s listing, re-read; refused: not listed (reason says why)' }),
  method: Type.Optional(HttpMethodEnum),
  endpoint: Type.Optional(Type.String()),
  serviceId: Type.Optional(Type.String()),
  status: Type.Optional(ServiceStatusEnum),
  reason: Type.String({ description: 'Why it was refused ("answered 200, not 402", "timeout after 8 s", …), or the probe\'s reason' })
}, { additionalProperties: false })

export const ImportAnswer = Type.Object({
  origin: Type.String(),
  document: Type.String({ description: 'The URL read' }),
  rows: Type.Array(ImportRowSchema, { description: 'One per entry of the document, in its order' }),
  inactive: Type.Array(Type.Object({
    serviceId: Type.String(),
    endpoint: Type.String(),
    method: HttpMethodEnum,
    reason: Type.String({ examples: [removedFrom('/openapi.json'), removedFrom(ORIGIN_DOCUMENT_PATH)] })
  }, { additionalProperties: false }), { description: 'This key\'s listings an earlier import of the document made that it no longer lists: now inactive' }),
  ownership: Type.Object({
    proofs: Type.Integer({ minimum: 0, description: 'Ownership proofs the document carries (x-discovery.ownershipProofs, or ownershipProofs in /.well-known/x402; at most 20 read)' }),
    proven: Type.Array(Type.String(), { description: 'The payTos of the listed resources a proof is a valid signature of the origin by: each listing of the origin paid to one shows it (ownershipProof). A proof never moves a listing to this key: only a claim does (POST /api/claims)' })
  }, { additionalProperties: false, description: 'The origin\'s ownership proofs, verified as x402scan does (docs/sources.md)' })
}, { additionalProperties: false })
