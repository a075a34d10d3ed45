/**
 * API keys: random secrets shown once, stored as sha256 hashes. Keys carry 192 bits of
 * entropy, so a fast hash is enough; comparison is constant-time all the same.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

export const API_KEY_PREFIX = 'x402c_'

export function hashApiKey (key: string): string {
  return createHash('sha256').update(key).digest('hex')
}

export function generateApiKey (): { key: string, id: string } {
  return {
    key: API_KEY_PREFIX + randomBytes(24).toString('base64url'),
    id: 'key_' + randomBytes(8).toString('hex')
  }
}

/** Owner id recorded for services registered with a bootstrap key from CATALOG_API_KEYS. */
export function bootstrapOwnerId (hash: string): string {
  return `env_${hash.slice(0, 12)}`
}

/** Compares two hex digests of equal length without an early exit. */
export function sameHash (a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}
