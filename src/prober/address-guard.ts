/**
 * SSRF guard: which addresses the prober may connect to. Only public unicast passes;
 * IPv6 forms that embed an IPv4 address (mapped, translated, NAT64, 6to4) are judged by
 * the embedded address, so ::ffff:127.0.0.1 is loopback. Teredo is refused outright: its
 * embedded client address is obfuscated and no paid API is served from one.
 */
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

export type AddressVerdict = { allowed: true } | { allowed: false, reason: string }

/** ipaddr.js range names, in words an operator reads in a probe reason. */
const RANGE_WORDS: Record<string, string> = {
  loopback: 'loopback',
  private: 'private',
  uniqueLocal: 'private (unique local)',
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT',
  multicast: 'multicast',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  reserved: 'reserved',
  teredo: 'Teredo tunnel'
}

/** Cloud metadata services named apart: the address an SSRF most wants to reach. */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254'])

function blocked (address: string, range: string): AddressVerdict {
  const words = METADATA.has(address) ? 'cloud metadata' : (RANGE_WORDS[range] ?? `special-purpose (${range})`)
  return { allowed: false, reason: `blocked: ${words} address ${address}` }
}

function embeddedIPv4 (address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const range = address.range()
  const parts = address.parts
  if (range === 'ipv4Mapped' || range === 'rfc6145') return new ipaddr.IPv4(toBytes(parts[6] as number, parts[7] as number))
  // NAT64 well-known prefix 64:ff9b::/96 only; the local-use 64:ff9b:1::/48 is not global.
  if (range === 'rfc6052' && parts[2] === 0 && parts[3] === 0 && parts[4] === 0 && parts[5] === 0) {
    return new ipaddr.IPv4(toBytes(parts[6] as number, parts[7] as number))
  }
  if (range === '6to4') return new ipaddr.IPv4(toBytes(parts[1] as number, parts[2] as number))
  return null
}

function toBytes (high: number, low: number): [number, number, number, number] {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff]
}

/** Whether the prober may connect to `address` (an IPv4 or IPv6 literal, no brackets). */
export function classifyAddress (address: string): AddressVerdict {
  // node:net's isIP is strict; ipaddr.js alone would also take shorthand like 127.1.
  if (isIP(address) === 0) return { allowed: false, reason: `blocked: not an IP address ${address}` }
  const parsed = ipaddr.parse(address)
  const shown = parsed.toString()
  if (parsed.kind() === 'ipv4') {
    const range = parsed.range()
    return range === 'unicast' ? { allowed: true } : blocked(shown, range)
  }
  const v6 = parsed as ipaddr.IPv6
  const range = v6.range()
  if (range === 'unicast') return { allowed: true }
  const inner = embeddedIPv4(v6)
  if (inner === null) return blocked(shown, range)
  const innerRange = inner.range()
  return innerRange === 'unicast' ? { allowed: true } : blocked(`${shown} (${inner.toString()})`, innerRange)
}

/** The host of a URL as an IP literal (brackets removed), or null when it is a name. */
export function ipLiteral (hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname
  return isIP(bare) === 0 ? null : bare
}

/** Thrown (at connect time) when a destination resolves to an address the guard refuses. */
export class BlockedAddressError extends Error {
  constructor (readonly reason: string) {
    super(reason)
    this.name = 'BlockedAddressError'
  }
}
