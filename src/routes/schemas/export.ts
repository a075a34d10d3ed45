/** Query and answer schemas of /api/export (src/routes/export.ts); the items are src/domain/bazaar.ts's. */
import { Type } from '@sinclair/typebox'
import { ServiceStatusEnum } from '../../domain/service.js'
import { TestnetSchema } from '../../domain/service-query.js'

export const ExportQuerySchema = Type.Object({
  status: Type.Optional(ServiceStatusEnum),
  network: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'x402 name (base) or CAIP-2 id (eip155:8453): services accepting payment there' })),
  category: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Category id' })),
  testnet: Type.Optional(TestnetSchema)
}, { additionalProperties: false })

export const NotModified = Type.Null({ description: 'Unchanged since the ETag in If-None-Match' })
