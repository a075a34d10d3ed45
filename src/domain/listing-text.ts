/**
 * Where a listing's text and terms came from (given, or prefilled from its endpoint's 402
 * answer; src/domain/prefill.ts has the rules), and the limits of that text. A leaf module:
 * the record, the registration schema and the prefill rules all read it.
 */
import { Type } from '@sinclair/typebox'
import { StringEnum } from './string-enum.js'

export const PREFILLABLE_FIELDS = ['name', 'description', 'tags', 'category', 'network', 'paymentAddress', 'price'] as const
export type PrefilledField = typeof PREFILLABLE_FIELDS[number]
/** Fields a later probe may replace (the listing's text). */
export const REFRESHED_FIELDS: readonly PrefilledField[] = ['name', 'description', 'tags']

/** Where a listing's fields came from, when some were not given; null on a full registration. */
export interface PrefillInfo {
  /** Fields taken from the endpoint's 402 answer (or, for `category`, inferred from the text). */
  fields: PrefilledField[]
  /** The /.well-known/x402 document the listing was imported from (origin import). */
  importedFrom?: string
  /** Set when a re-import no longer lists the resource: the listing stays `inactive` until listed again. */
  removed?: { reason: string, at: string }
}

/** What a 402 answer says about its resource, sanitized (Bazaar rules for serviceName and tags). */
export interface AnswerText {
  description?: string
  serviceName?: string
  tags?: string[]
}

/** Bazaar limits (sanitizeTags of @x402/extensions): five tags of at most 32 characters. */
export const MAX_TAGS = 5
export const MAX_TAG_LENGTH = 32
export const TagsSchema = Type.Array(Type.String({ minLength: 1, maxLength: MAX_TAG_LENGTH }), { maxItems: MAX_TAGS, description: `Keywords, at most ${MAX_TAGS} of at most ${MAX_TAG_LENGTH} characters (the Bazaar's limits); prefilled from the 402 answer's resource.tags` })

export const MAX_NAME_LENGTH = 255
export const MAX_DESCRIPTION_LENGTH = 2000
/** Longest name derived from a description. */
export const NAME_FROM_TEXT = 80

export const PrefilledFieldEnum = StringEnum(PREFILLABLE_FIELDS)

/** Category inference (app.inferCategory, src/search/category-inference.ts): a category id for a listing's text. */
export type CategoryInferrer = (text: string) => string

/** The text a category is inferred from: name, description and tags. */
export function inferenceText (listing: { name: string, description: string, tags?: readonly string[] | undefined }): string {
  return [listing.name, listing.description, ...(listing.tags ?? [])].join('\n')
}

/**
 * A listing's category once its text changed: inferred again when it was inferred (`prefill`
 * lists `category`: none was given, and no owner has set one since); undefined when it was
 * given or the text still infers the same one.
 */
export function reinferredCategory (
  listing: { name: string, description: string, tags: readonly string[], category: string, prefill: PrefillInfo | null },
  inferCategory: CategoryInferrer
): string | undefined {
  if (listing.prefill?.fields.includes('category') !== true) return undefined
  const category = inferCategory(inferenceText(listing))
  return category === listing.category ? undefined : category
}
