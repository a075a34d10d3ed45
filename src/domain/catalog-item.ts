/**
 * A listing as another instance of this catalog publishes it (the `service` of an upsert in its
 * `GET /api/changes`, the public object of src/domain/service.ts), read as a listing of this one
 * by the rules a Bazaar item is read by (src/domain/bazaar-item.ts): text cleaned and cut, the
 * name, price, network and payTo taken, the category inferred here. Its status, trust score,
 * `claimed` and dates are the other catalog's measurements and words, never read.
 */
import { ValidationError } from '../errors.js'
import { cleanTags, cut, isObject, itemName, oversized, text, type ItemRead } from './bazaar-item.js'
import { HTTP_METHODS, type HttpMethod } from './http-method.js'
import { MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, type AnswerText } from './listing-text.js'
import { listingText } from './prefill.js'
import { normalizeEndpoint } from './registration.js'

/** Reads one published listing; `position` names it in a report when it has no endpoint. */
export function readCatalogItem (service: unknown, position: number): ItemRead {
  const name = isObject(service) && typeof service.endpoint === 'string' ? itemName(service.endpoint) : `change ${position}`
  const tooLarge = oversized(service, 'the listing')
  if (tooLarge !== null) return { ok: false, item: name, reason: tooLarge }
  if (!isObject(service)) return { ok: false, item: name, reason: 'not an object' }
  const endpointText = text(service.endpoint)
  if (endpointText === undefined) return { ok: false, item: name, reason: 'no endpoint' }
  const method = text(service.method)?.toUpperCase() ?? 'GET'
  if (!(HTTP_METHODS as readonly string[]).includes(method)) return { ok: false, item: name, reason: `method ${JSON.stringify(service.method)} is not one of ${HTTP_METHODS.join(', ')}` }
  const pricing = isObject(service.pricing) ? service.pricing : {}
  const x402 = isObject(service.x402Config) ? service.x402Config : {}
  const [currency, payTo, network] = [pricing.currency, x402.paymentAddress, x402.network].map(text)
  // null: the other catalog lists the price as dynamic.
  const price = pricing.pricePerRequest === null ? null : text(pricing.pricePerRequest)
  if (currency === undefined || price === undefined) return { ok: false, item: name, reason: 'no pricing.currency and pricing.pricePerRequest' }
  if (payTo === undefined || network === undefined) return { ok: false, item: name, reason: 'no x402Config.paymentAddress and x402Config.network' }
  try {
    const endpoint = normalizeEndpoint(endpointText)
    const answer: AnswerText = {}
    const serviceName = text(service.name)
    if (serviceName !== undefined) answer.serviceName = cut(serviceName, MAX_NAME_LENGTH, false)
    const description = text(service.description)
    if (description !== undefined) answer.description = cut(description, MAX_DESCRIPTION_LENGTH, true)
    const tags = cleanTags(service.tags)
    if (tags !== undefined) answer.tags = tags
    const listed = listingText(answer, endpoint, method as HttpMethod)
    return {
      ok: true,
      body: {
        endpoint,
        method: method as HttpMethod,
        name: listed.name,
        description: listed.description,
        tags: listed.tags,
        category: '',
        pricing: { currency, pricePerRequest: price },
        x402Config: { paymentAddress: payTo, network }
      }
    }
  } catch (err) {
    if (err instanceof ValidationError) return { ok: false, item: name, reason: err.message }
    throw err
  }
}
