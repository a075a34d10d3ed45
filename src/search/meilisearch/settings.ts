/** The index settings, applied at every start (Meilisearch skips a settings task that changes nothing). */
import type { Settings } from 'meilisearch'
import type { SearchAttribute } from '../search-engine.js'
import { toMeilisearchSynonyms } from '../synonyms.js'
import { TEXT_FIELDS } from './documents.js'
import { FACET_ATTRIBUTES } from './facets.js'
import { SORT_ATTRIBUTES } from './filter.js'

/**
 * Searchable fields in ranking order: name, description, then category, each raw, kuromoji
 * terms, readings, English stems. The category's names come last (after the description, unlike the
 * embedded engine's attribute rule) because Meilisearch cannot rank a category-only match
 * below every text match as the embedded engine's leading tier does (docs/search.md): its
 * `words`, `typo` and `proximity` rules come before `attribute`, so this only orders
 * category-only matches last among documents those rules tie.
 */
const MEILI_ATTRIBUTE_ORDER: readonly SearchAttribute[] = ['name', 'description', 'category']
export const SEARCHABLE_ATTRIBUTES: string[] = MEILI_ATTRIBUTE_ORDER.flatMap((attribute) => {
  const fields = TEXT_FIELDS[attribute]
  return [fields.raw, fields.ja, fields.kana, fields.stem]
})

/** Upper bound on what a search can page through (Meilisearch's default is 1000). */
export const MAX_TOTAL_HITS = 10_000

export function indexSettings (): Settings {
  return {
    searchableAttributes: SEARCHABLE_ATTRIBUTES,
    // `id` only to read back the indexed sequence of a batch (idsFilter).
    filterableAttributes: ['id', ...new Set([...Object.values(FACET_ATTRIBUTES), 'priceAtomic', 'payTo', 'extensions', 'testnet'])],
    sortableAttributes: [...Object.values(SORT_ATTRIBUTES), 'id'],
    // `sort` first: an explicit order orders the matches, as the embedded engine does;
    // without one the rule is inert and relevance decides, then trust.
    rankingRules: ['sort', 'words', 'typo', 'proximity', 'attribute', 'exactness', 'trustScore:desc'],
    // The embedded engine's budget: no typo up to 4 characters, one up to 8, two from 9.
    typoTolerance: { enabled: true, minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 } },
    synonyms: toMeilisearchSynonyms(),
    localizedAttributes: [{ attributePatterns: ['*_ja', '*_kana'], locales: ['jpn'] }],
    pagination: { maxTotalHits: MAX_TOTAL_HITS },
    faceting: { maxValuesPerFacet: 100 }
  }
}
