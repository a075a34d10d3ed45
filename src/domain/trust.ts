/**
 * Trust score (0–100): one formula, used on every write so list sorting and the
 * status endpoint agree. Verification counts most, then measured uptime, then paid
 * traffic (log-scaled, so a handful of transactions cannot buy a high score).
 *   verified 40 / unverified 10 / inactive 0
 *   + 40 × uptime, for verified services only (uptimeScore is a percentage; unknown counts as 0)
 *   + min(20, 5 × log10(1 + txCount))
 * A new registration is unverified with no uptime or traffic: trust score 10.
 */
export const SERVICE_STATUSES = ['verified', 'unverified', 'inactive'] as const
export type ServiceStatus = typeof SERVICE_STATUSES[number]

const STATUS_WEIGHT: Record<ServiceStatus, number> = { verified: 40, unverified: 10, inactive: 0 }

export function computeTrustScore (input: { status: ServiceStatus, uptimeScore: number | null, txCount: number }): number {
  // Uptime earns trust only once the endpoint proved it pays this listing: a squatter's copy of
  // someone else's live endpoint is "up" but must not outrank an honest new listing.
  const uptime = input.uptimeScore === null || input.status !== 'verified' ? 0 : Math.min(100, Math.max(0, input.uptimeScore)) / 100
  const traffic = Math.min(20, 5 * Math.log10(1 + Math.max(0, input.txCount)))
  return Math.round(STATUS_WEIGHT[input.status] + 40 * uptime + traffic)
}
