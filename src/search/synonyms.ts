/**
 * Bilingual synonyms, kept as data (synonyms.json) so the SQLite engine and
 * Meilisearch share one list. Every entry is already in normalizeText form.
 */
import { splitWords } from './analysis/normalize.js'
import data from './synonyms.json' with { type: 'json' }

export const SYNONYM_GROUPS: readonly (readonly string[])[] = data.groups

/**
 * Each single-word term → the other single-word terms of every group it is in.
 * Multi-word entries ("exchange rate") and entries spanning scripts ("qrコード")
 * are left out: catalog queries are split into words before synonyms are
 * looked up, so such entries could never be looked up or matched as one term.
 * Meilisearch, which handles multi-word synonyms itself, still gets them.
 */
export function loadSynonyms (): Map<string, string[]> {
  const isSingleWord = (entry: string): boolean => {
    const words = splitWords(entry)
    return words.length === 1 && words[0] === entry
  }
  return relatedTerms(SYNONYM_GROUPS.map((group) => group.filter(isSingleWord)))
}

/** The `synonyms` setting for Meilisearch: word → its synonyms, multi-word entries included. */
export function toMeilisearchSynonyms (): Record<string, string[]> {
  return Object.fromEntries(relatedTerms(SYNONYM_GROUPS))
}

// Groups are symmetric, so each term's synonyms are the union of its groups minus itself.
function relatedTerms (groups: readonly (readonly string[])[]): Map<string, string[]> {
  const related = new Map<string, Set<string>>()
  for (const group of groups) {
    for (const term of group) {
      const others = related.get(term) ?? new Set<string>()
      for (const other of group) if (other !== term) others.add(other)
      related.set(term, others)
    }
  }
  return new Map([...related].filter(([, others]) => others.size > 0).map(([term, others]) => [term, [...others]]))
}
