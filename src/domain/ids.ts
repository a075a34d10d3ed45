import { createHash, randomBytes } from 'node:crypto'

/**
 * Service ids: `svc_` + 24 lowercase base32 characters (120 bits). New registrations
 * draw them at random; seeded services derive them from their endpoint so demo ids
 * stay the same across fresh stores (handy in docs and curl examples).
 */
export const SERVICE_ID_PATTERN = '^svc_[a-z2-7]{24}$'
/** SERVICE_ID_PATTERN in words, for messages (people are never shown the regular expression). */
export const SERVICE_ID_WORDS = 'a service id: svc_ followed by 24 lowercase letters or digits 2-7'

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567'

function base32 (bytes: Uint8Array, length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += BASE32[(bytes[i] as number) & 31]
  return out
}

export function newServiceId (): string {
  return `svc_${base32(randomBytes(24), 24)}`
}

export function serviceIdForEndpoint (endpoint: string): string {
  return `svc_${base32(createHash('sha256').update(endpoint).digest(), 24)}`
}
