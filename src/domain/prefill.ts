/**
 * Registration from the endpoint: what the catalog fills in from an endpoint's 402 answer
 * when a registration leaves it out, and which of those fields later probes keep current.
 * Rules (docs/api.md, "Registering a listing"):
 * - network: the one asked for, else the first `accepts` entry on a network the catalog knows;
 *   the entry must pay in that network's USDC (the catalog's only currency) when the catalog
 *   knows the token;
 * - paymentAddress = payTo, price = the atomic amount (USDC: 6 decimals), currency USDC;
 * - description = `resource.description` (v2) or the entry's description (v1), else
 *   "METHOD endpoint"; name = the Bazaar `serviceName`, else the description's first sentence
 *   (at most NAME_FROM_TEXT characters, cut at a word), else host and path; tags = Bazaar tags.
 * Explicit values always win. A later probe with a valid 402 replaces the prefilled name,
 * description and tags with what the answer says now; explicit ones stay. An inferred category
 * is inferred again from the text so changed (a given one stays).
 */
import { ValidationError } from '../errors.js'
import { checkText } from './registration.js'
import {
  MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, MAX_TAG_LENGTH, MAX_TAGS, NAME_FROM_TEXT, REFRESHED_FIELDS, reinferredCategory, type AnswerText, type CategoryInferrer, type PrefillInfo
} from './listing-text.js'
import { findCurrency, formatAtomic } from './money.js'
import { resolveNetwork } from './networks.js'
import type { PaymentRequirement } from './probe.js'

/** Text from an answer as a field takes it: checked, cut to `max` characters; undefined when unusable. */
function usable (value: string | undefined, max: number, multiline: boolean): string | undefined {
  if (value === undefined) return undefined
  try {
    const text = checkText('text', value, multiline)
    return [...text].slice(0, max).join('').trim() || undefined
  } catch {
    return undefined
  }
}

/** The first sentence of a description, at most NAME_FROM_TEXT characters cut at a word. */
export function nameFromDescription (description: string): string {
  const line = description.split('\n')[0] as string
  // Latin sentences end at . ! ? before a space; Japanese ones at 。！？ wherever they are.
  const sentence = /^(.+?(?:[.!?](?=\s|$)|[。！？]))/u.exec(line)?.[1] ?? line
  const trimmed = sentence.replace(/[.。]$/u, '').trim()
  const chars = [...trimmed]
  if (chars.length <= NAME_FROM_TEXT) return trimmed
  const cut = chars.slice(0, NAME_FROM_TEXT).join('')
  const space = cut.lastIndexOf(' ')
  return (space > NAME_FROM_TEXT / 2 ? cut.slice(0, space) : cut).trim()
}

/** "api.example.com/v1/weather" for https://api.example.com/v1/weather?x=1. */
export function nameFromEndpoint (endpoint: string): string {
  const url = new URL(endpoint)
  const path = url.pathname === '/' ? '' : decodeURIComponent(url.pathname).replace(/\/$/, '')
  return [...`${url.host}${path}`].slice(0, MAX_NAME_LENGTH).join('')
}

/**
 * Name, description and tags an answer offers, as a listing takes them. `given` holds what
 * the registrant sent: a given description is the one a name is derived from.
 */
export function listingText (
  text: AnswerText | undefined, endpoint: string, method: string, given: { description?: string | undefined } = {}
): { name: string, description: string, tags: string[] } {
  const description = given.description ?? usable(text?.description, MAX_DESCRIPTION_LENGTH, true)
  const name = usable(text?.serviceName, MAX_NAME_LENGTH, false) ??
    (description === undefined ? undefined : usable(nameFromDescription(description), MAX_NAME_LENGTH, false)) ??
    nameFromEndpoint(endpoint)
  const tags = (text?.tags ?? []).flatMap((tag) => usable(tag, MAX_TAG_LENGTH, false) ?? []).slice(0, MAX_TAGS)
  return { name, description: description ?? `${method} ${endpoint}`, tags: [...new Map(tags.map((tag) => [tag.toLowerCase(), tag])).values()] }
}

/**
 * The accepts entry a listing is made from: on `network` when one was asked for (any entry on
 * it), else the first on a network the catalog knows; in that network's USDC when the catalog
 * knows the token. A ValidationError naming what is missing otherwise (the 402 is valid, but
 * nothing in it can be listed). `networkField` is the request field the network came from, so
 * an error names the field the client sent.
 */
export function chooseRequirement (accepts: readonly PaymentRequirement[], network: string | undefined, networkField = 'network'): { requirement: PaymentRequirement, currency: string, price: string } {
  const { requirement, currency } = choosePayment(accepts, network, networkField)
  if (!/^\d{1,18}$/.test(requirement.amount) || /^0+$/.test(requirement.amount)) throw new ValidationError('pricing.pricePerRequest', `the endpoint's 402 answer asks for amount "${requirement.amount}", not a positive atomic amount`)
  return { requirement, currency: currency.code, price: formatAtomic(BigInt(requirement.amount), currency.decimals) }
}

/** chooseRequirement's network and USDC choice, whatever the entry's amount (a source's dynamic price). */
export function choosePayment (accepts: readonly PaymentRequirement[], network: string | undefined, networkField = 'network'): { requirement: PaymentRequirement, currency: { code: string, decimals: number } } {
  const wanted = network === undefined ? undefined : resolveNetwork(network)
  if (network !== undefined && wanted === undefined) throw new ValidationError(networkField, `unknown network "${network}"; use an x402 network name (base, solana, …) or a CAIP-2 id (eip155:8453, …)`)
  const candidates = accepts.filter((entry) => wanted === undefined ? resolveNetwork(entry.network) !== undefined : entry.network === wanted.id)
  if (candidates.length === 0) {
    const offered = [...new Set(accepts.map((entry) => entry.network))].join(', ')
    throw new ValidationError(networkField, wanted === undefined
      ? `the endpoint's 402 answer offers no network the catalog knows (it offers ${offered})`
      : `the endpoint's 402 answer offers no payment on ${wanted.id} (it offers ${offered})`)
  }
  const inUsdc = candidates.find((entry) => {
    const usdc = resolveNetwork(entry.network)?.usdc ?? null
    return usdc === null || (resolveNetwork(entry.network)?.family === 'evm' ? usdc.toLowerCase() === entry.asset.toLowerCase() : usdc === entry.asset)
  })
  if (inUsdc === undefined) throw new ValidationError('pricing.currency', `the endpoint's 402 answer asks for no USDC on ${candidates.map((e) => e.network).join(', ')}; the catalog lists USDC prices only`)
  return { requirement: inUsdc, currency: findCurrency('USDC') as { code: string, decimals: number } }
}

/** What a probe's answer changes in a listing's text, and the category that follows it. */
export type RefreshedText = Partial<{ name: string, description: string, tags: string[], category: string }>

/**
 * The text fields a probe's answer replaces: the prefilled ones whose value the answer now
 * gives differently; with `inferCategory`, an inferred category inferred again from the text
 * so changed when that gives another. Empty when nothing changes (or nothing was prefilled).
 */
export function refreshedText (
  service: { name: string, description: string, tags: string[], category: string, endpoint: string, method: string, prefill: PrefillInfo | null },
  text: AnswerText | undefined,
  inferCategory?: CategoryInferrer
): RefreshedText {
  const fields = service.prefill?.fields ?? []
  if (text === undefined || !REFRESHED_FIELDS.some((field) => fields.includes(field))) return {}
  const now = listingText(text, service.endpoint, service.method, fields.includes('description') ? {} : { description: service.description })
  const changes: RefreshedText = {}
  if (fields.includes('name') && now.name !== service.name) changes.name = now.name
  if (fields.includes('description') && now.description !== service.description) changes.description = now.description
  if (fields.includes('tags') && now.tags.join('\u0000') !== service.tags.join('\u0000')) changes.tags = now.tags
  if (Object.keys(changes).length === 0 || inferCategory === undefined) return changes
  const category = reinferredCategory({ ...service, ...changes }, inferCategory)
  return category === undefined ? changes : { ...changes, category }
}
