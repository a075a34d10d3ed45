/**
 * English word forms: analyze, analysis and analytics, or generate, generation and generator,
 * are one word to a reader. The stem is Porter2 (Snowball English, wink-porter2-stemmer):
 * it keeps apart what Porter's first algorithm joins (general and generate, new and news).
 * Porter2 leaves the Greek -ysis / -yze / -ytic family apart (analysi, analyz, analyt); one
 * rule on top joins it. The engines use the stem only to find a query word's other forms
 * among the index's own words, so a match always names a word the listing really has.
 */
import { createRequire } from 'node:module'

const porter2 = createRequire(import.meta.url)('wink-porter2-stemmer') as (word: string) => string

/** Latin letters only, and long enough that a suffix is a suffix (the words "use", "rate" stay as they are). */
const STEMMABLE = /^[a-z]{4,}$/u
/** analysi(s), analys(es), analyt(ics) and analyz(e) end a stem the same way. */
const GREEK_FAMILY = /y(?:si|s|t|z)$/u

/**
 * The stem shared by an English word's forms, or undefined for a word with none (not a
 * lowercase Latin word of 4+ letters). Input is a normalized index or query word.
 */
export function stemOf (word: string): string | undefined {
  if (!STEMMABLE.test(word)) return undefined
  return porter2(word).replace(GREEK_FAMILY, 'yz')
}
