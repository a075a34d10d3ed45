/**
 * How a document's analyzed terms are stored in SQLite (the durable form) and read back
 * into the in-memory postings: per attribute, a flat list of terms and position codes.
 */
import type { DocumentTerm } from '../../search-engine.js'

/**
 * The first few forms of a word (surface, base form, reading, …) carry its position, for
 * proximity; further forms and bigrams match without one (the FTS5 layout's loose column).
 */
export const ALIGNED_FORMS = 4
/** Position code of a word form that matches but has no position. */
export const LOOSE = -1
/** Position code of a character bigram (matches without a position, not a vocabulary word). */
export const BIGRAM = -2

/** Flat [term, code, term, code, …]: code is the word position, LOOSE or BIGRAM. */
export type EncodedTerms = Array<string | number>

export function encodeTerms (terms: readonly DocumentTerm[]): EncodedTerms {
  const out: EncodedTerms = []
  const formsAt = new Map<number, number>()
  for (const { term, position, fragment } of terms) {
    if (fragment === true) { out.push(term, BIGRAM); continue }
    const k = formsAt.get(position) ?? 0
    formsAt.set(position, k + 1)
    out.push(term, k < ALIGNED_FORMS ? position : LOOSE)
  }
  return out
}

/** Category text: [term, position, 1 when a bigram else 0, …]; every term keeps its position. */
export function encodeCategoryTerms (terms: readonly DocumentTerm[]): EncodedTerms {
  return terms.flatMap(({ term, position, fragment }) => [term, position, fragment === true ? 1 : 0])
}
