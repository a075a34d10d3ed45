/**
 * Facets as agreed for the SearchEngine port (port-changes.md, issue 9). The port will export
 * these; until it does they live here, and phase 2 imports them from search-engine.ts.
 */
export const FACET_FIELDS = ['category', 'status', 'network'] as const
export type FacetField = typeof FACET_FIELDS[number]
export type FacetDistribution = Partial<Record<FacetField, Record<string, number>>>

/** Meilisearch attribute counted for each facet field. */
export const FACET_ATTRIBUTES: Record<FacetField, string> = { category: 'category', status: 'status', network: 'networks' }

/** Meilisearch's facetDistribution in the port's shape: asked fields only, values with 0 left out. */
export function toFacetDistribution (asked: readonly FacetField[], distribution: Record<string, Record<string, number>> | undefined): FacetDistribution {
  const result: FacetDistribution = {}
  for (const field of asked) {
    const counts = distribution?.[FACET_ATTRIBUTES[field]] ?? {}
    result[field] = Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0))
  }
  return result
}
