/** Query and answer schemas of the discovery routes (src/routes/discovery.ts); the Bazaar envelopes are src/domain/bazaar.ts's. */
import { Type } from '@sinclair/typebox'
import { TestnetSchema } from '../../domain/service-query.js'
import { PageProperties, QueryText } from './common.js'

/** The Bazaar client's filters (ListDiscoveryResourcesParams / SearchDiscoveryResourcesParams). */
const BazaarFilterProperties = {
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'Resource type; the catalog lists "http" resources' })),
  payTo: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Payment address (EVM case-insensitive)' })),
  scheme: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'Payment scheme; the catalog describes "exact" payments' })),
  network: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'x402 name or CAIP-2 id' })),
  extensions: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Extension key. `bazaar`: only resources whose endpoint declares the Bazaar discovery extension (each item carries its extensions.bazaar as declared); any other key (compared exactly) answers an empty list' })),
  testnet: Type.Optional(TestnetSchema),
  limit: PageProperties.limit
}

export const ResourcesQuerySchema = Type.Object({
  ...BazaarFilterProperties,
  offset: PageProperties.offset
}, { additionalProperties: false })

export const DiscoverySearchQuerySchema = Type.Object({
  query: QueryText,
  ...BazaarFilterProperties,
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 16, description: 'pagination.cursor of the previous page' }))
}, { additionalProperties: false })

export const WellKnownSchema = Type.Object({
  version: Type.Literal(1),
  resources: Type.Array(Type.String(), { description: 'Endpoints of verified services' })
})
