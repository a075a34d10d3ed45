/** Request and answer schemas of /api/services (src/routes/services.ts); the service views they carry are src/domain/'s. */
import { Type } from '@sinclair/typebox'
import { SERVICE_ID_PATTERN } from '../../domain/ids.js'
import { PrefilledFieldEnum } from '../../domain/listing-text.js'
import { PaymentSchema } from '../../domain/payment-view.js'
import { ProbeSchema } from '../../domain/probe-view.js'
import { ServiceSchema } from '../../domain/service.js'
import { StringEnum } from '../../domain/string-enum.js'

// No pattern: an id of any shape that no service has is a 404, not a 400.
export const ServiceIdParams = Type.Object({ id: Type.String({ description: `Service id (${SERVICE_ID_PATTERN})` }) })

export const ServiceListAnswer = Type.Array(ServiceSchema, { description: 'A page of services; X-Total-Count holds the number of matches (an offset at or past it answers an empty page): exact for a listing; with query, X-Total-Exact says whether it is exact or the search engine\'s estimate' })

export const PaymentsAnswer = Type.Array(PaymentSchema, { description: 'A page of payments; X-Total-Count holds how many there are' })

export const ProbesAnswer = Type.Array(ProbeSchema, { description: 'A page of probes; X-Total-Count holds how many are kept' })

/** The 201 answer: the service, and which of its fields the catalog filled in. */
export const RegisteredServiceSchema = Type.Composite([ServiceSchema, Type.Object({
  categorySource: StringEnum(['given', 'inferred'], { description: 'inferred: no category was sent, and the catalog chose one from the name, description and tags' }),
  prefilled: Type.Array(PrefilledFieldEnum, { description: 'Fields taken from the endpoint\'s 402 answer (and category when inferred); probes keep name, description and tags among them current, and an inferred category follows the text they change' })
})], { additionalProperties: false })
