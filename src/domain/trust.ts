/**
 * Trust score (0–100): one formula, used on every write so list sorting, search ranking and
 * the status endpoint agree. Verification counts most, then measured uptime, then paid
 * traffic measured on-chain (src/domain/payment.ts), log-scaled, with distinct payers
 * weighing four times as much as calls, so a provider paying itself in a loop earns little:
 *   verified 40 / unverified 10 / inactive 0
 *   + 35 × uptime, for verified services only (uptimeScore is a percentage; unknown counts as 0)
 *   + min(25, 8 × log10(1 + uniquePayers) + 2 × log10(1 + txCount)), all-time figures
 * A new registration is unverified with no uptime or traffic: trust score 10. One payer
 * calling 10,000 times adds 10; 100 payers calling 10 times each add 22.
 */
export const SERVICE_STATUSES = ['verified', 'unverified', 'inactive'] as const
export type ServiceStatus = typeof SERVICE_STATUSES[number]

const STATUS_WEIGHT: Record<ServiceStatus, number> = { verified: 40, unverified: 10, inactive: 0 }

export interface TrustInput {
  status: ServiceStatus
  uptimeScore: number | null
  /** All-time measured figures; null when never measured (counts as none). */
  usage: { txCount: number, uniquePayers: number } | null
}

export function computeTrustScore (input: TrustInput): number {
  // Uptime earns trust only once the endpoint proved it pays this listing: a squatter's copy of
  // someone else's live endpoint is "up" but must not outrank an honest new listing.
  const uptime = input.uptimeScore === null || input.status !== 'verified' ? 0 : Math.min(100, Math.max(0, input.uptimeScore)) / 100
  const payers = Math.max(0, input.usage?.uniquePayers ?? 0)
  const calls = Math.max(0, input.usage?.txCount ?? 0)
  const traffic = Math.min(25, 8 * Math.log10(1 + payers) + 2 * Math.log10(1 + calls))
  return Math.round(STATUS_WEIGHT[input.status] + 35 * uptime + traffic)
}
