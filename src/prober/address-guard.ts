/**
 * SSRF guard: which addresses the prober may connect to. An allowlist, so a range nobody
 * thought of is refused rather than reached:
 * - IPv4: every address outside the special-purpose ranges ipaddr.js names (loopback,
 *   private, link-local and cloud metadata, CGNAT, multicast, broadcast, unspecified,
 *   reserved, documentation and benchmarking, AS112, AMT): `range()` is `unicast`.
 * - IPv6: global unicast 2000::/3 only, minus IETF_V6 below (2001::/23 with Teredo,
 *   benchmarking and ORCHID, the documentation prefixes 2001:db8::/32 and 3fff::/20, AS112).
 * - IPv6 forms that carry an IPv4 address a public host may be reached through are judged
 *   by that address: mapped ::ffff:0:0/96, translated ::ffff:0:0:0/96, NAT64 64:ff9b::/96
 *   and 6to4 2002::/16. So ::ffff:127.0.0.1 is loopback and 2002:c0a8:101:: private.
 * Everything else is refused, among it IPv4-compatible ::/96 (::7f00:1 reaches 127.0.0.1 on
 * some stacks), NAT64 local-use 64:ff9b:1::/48, discard 100::/64, unique local, link-local,
 * site-local, multicast and segment-routing prefixes.
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
  teredo: 'Teredo tunnel',
  benchmarking: 'benchmarking',
  discard: 'discard-only',
  deprecatedSiteLocal: 'site-local',
  rfc6052: 'NAT64 local-use'
}

/** Cloud metadata services named apart: the address an SSRF most wants to reach. */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254'])

const cidr = (text: string): [ipaddr.IPv6, number] => ipaddr.IPv6.parseCIDR(text)

const GLOBAL_V6 = cidr('2000::/3')
/** Inside 2000::/3 but not a place a paid API is served from. */
const IETF_V6: Array<[[ipaddr.IPv6, number], string]> = [
  [cidr('2001::/32'), 'Teredo tunnel'],
  [cidr('2001::/23'), 'IETF special-purpose'],
  [cidr('2001:db8::/32'), 'reserved (documentation)'],
  [cidr('3fff::/20'), 'reserved (documentation)'],
  [cidr('2620:4f:8000::/48'), 'AS112']
]
const SIX_TO_FOUR = cidr('2002::/16')
/** Forms outside 2000::/3 whose last 32 bits are the IPv4 address actually reached. */
const EMBEDDING_V6: Array<[ipaddr.IPv6, number]> = [cidr('::ffff:0:0/96'), cidr('::ffff:0:0:0/96'), cidr('64:ff9b::/96')]
const COMPATIBLE_V6 = cidr('::/96')

function blocked (address: string, words: string): AddressVerdict {
  return { allowed: false, reason: `blocked: ${METADATA.has(address) ? 'cloud metadata' : words} address ${address}` }
}

function toIPv4 (high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff])
}

function classifyIPv4 (address: ipaddr.IPv4, shown: string): AddressVerdict {
  const range = address.range()
  return range === 'unicast' ? { allowed: true } : blocked(shown, RANGE_WORDS[range] ?? `special-purpose (${range})`)
}

function classifyIPv6 (address: ipaddr.IPv6): AddressVerdict {
  const shown = address.toString()
  const parts = address.parts as [number, number, number, number, number, number, number, number]
  const embedded = (inner: ipaddr.IPv4): AddressVerdict => {
    const verdict = classifyIPv4(inner, inner.toString())
    return verdict.allowed ? verdict : { allowed: false, reason: `${verdict.reason.replace(/ address .*$/, ' address')} ${shown} (${inner.toString()})` }
  }
  if (address.match(GLOBAL_V6)) {
    for (const [range, words] of IETF_V6) if (address.match(range)) return blocked(shown, words)
    if (address.match(SIX_TO_FOUR)) return embedded(toIPv4(parts[1], parts[2]))
    return { allowed: true }
  }
  if (EMBEDDING_V6.some((range) => address.match(range))) return embedded(toIPv4(parts[6], parts[7]))
  const range = address.range()
  if (range === 'unicast' && address.match(COMPATIBLE_V6)) {
    return { allowed: false, reason: `blocked: IPv4-compatible address ${shown} (${toIPv4(parts[6], parts[7]).toString()})` }
  }
  return blocked(shown, RANGE_WORDS[range] ?? (range === 'unicast' ? 'non-global (outside 2000::/3)' : `special-purpose (${range})`))
}

/** Whether the prober may connect to `address` (an IPv4 or IPv6 literal, no brackets). */
export function classifyAddress (address: string): AddressVerdict {
  // node:net's isIP is strict; ipaddr.js alone would also take shorthand like 127.1.
  const family = isIP(address)
  if (family === 0) return { allowed: false, reason: `blocked: not an IP address ${address}` }
  const parsed = ipaddr.parse(address)
  return family === 4 ? classifyIPv4(parsed as ipaddr.IPv4, parsed.toString()) : classifyIPv6(parsed as ipaddr.IPv6)
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
