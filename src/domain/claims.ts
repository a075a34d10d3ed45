/**
 * Claims: how the owner of an origin proves control of it, so squatters cannot keep its
 * listings. The catalog gives an API key owner a token per origin; publishing it at
 * `{origin}/.well-known/x402-catalog` (`{ "claims": ["<token>"] }`) or in a 402 answer's
 * `extensions["x402-catalog"]` (same shape) proves control, and the prover's key then owns
 * every listing of that origin. Pure rules here; the routes fetch and the store moves.
 */
import { randomBytes } from 'node:crypto'
import { OriginClaimedError } from '../errors.js'
import type { ServiceRecord } from './service.js'

/** Where an origin publishes its claim tokens. */
export const CLAIM_WELL_KNOWN_PATH = '/.well-known/x402-catalog'
/** The key of a 402 answer's `extensions` that may carry the same document. */
export const CLAIM_EXTENSION_KEY = 'x402-catalog'
/** The well-known document is small: a few tokens. */
export const MAX_CLAIM_DOCUMENT_BYTES = 16 * 1024

export interface OriginClaim {
  /** Canonical origin: `https://api.example.com` (a port only when not the default). */
  origin: string
  ownerId: string
  token: string
  createdAt: string
  /** When control was proven; null until then (and again when another owner proved it later). */
  provenAt: string | null
}

/** A listing moved to an origin's proven owner: what its former owner is told. */
export interface ServiceTransfer {
  serviceId: string
  fromOwnerId: string | null
  toOwnerId: string
  origin: string
  reason: string
  at: string
}

/** A fresh claim token: 32 random bytes, base64url, prefixed so it is recognisable in a document. */
export function newClaimToken (): string {
  return `x402c_${randomBytes(32).toString('base64url')}`
}

/**
 * Who may write a listing of an origin, given the claim of the owner who proved control of it
 * (`proven`, null when nobody has): only that owner's key, and its listings are claimed. The
 * record as it is to be stored (`claimed` set by this rule), or OriginClaimedError for any
 * other key (or none: a seed or an import without an owner). Every write of a listing obeys
 * it: a registration checks it early (to answer before probing), and the stores apply it
 * again inside the write's own transaction, so a proof landing between that check and the
 * write cannot leave a listing its proven owner does not hold.
 */
export function applyOriginClaim (record: ServiceRecord, proven: OriginClaim | null): ServiceRecord {
  assertMayList(record.ownerId, proven)
  const claimed = proven !== null
  return record.claimed === claimed ? record : { ...record, claimed }
}

/** The check of applyOriginClaim before a record exists (a registration refused before it probes). */
export function assertMayList (ownerId: string | null, proven: OriginClaim | null): void {
  if (proven !== null && proven.ownerId !== ownerId) {
    throw new OriginClaimedError(`${proven.origin} is claimed by its owner, who proved control of it on ${proven.provenAt ?? 'an earlier date'}; only that key lists its endpoints`)
  }
}

/**
 * Whether a claim document (the well-known JSON or the extension's value) lists `token`.
 * Anything else (not an object, no `claims` array) lists nothing.
 */
export function documentClaims (document: unknown, token: string): boolean {
  if (typeof document !== 'object' || document === null) return false
  const claims = (document as { claims?: unknown }).claims
  return Array.isArray(claims) && claims.some((claim) => claim === token)
}

/** What the owner is told to do with a token. */
export function claimInstructions (origin: string, token: string): string {
  return `Prove control of ${origin}: serve ${origin}${CLAIM_WELL_KNOWN_PATH} as JSON {"claims":["${token}"]} ` +
    `(or add "${CLAIM_EXTENSION_KEY}": {"claims":["${token}"]} to the extensions of a listed endpoint's 402 answer), ` +
    'then POST /api/claims/verify with the same origin. Every listing of the origin then moves to this key.'
}
