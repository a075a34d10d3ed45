/** The port's facets as Meilisearch facetDistribution: attribute names and shape. */
import type { FacetDistribution, FacetField } from '../search-engine.js'

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
