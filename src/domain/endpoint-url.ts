/**
 * Canonical endpoint URLs. Two registrations name the same paid endpoint when their
 * canonical forms are equal, so the rules here decide what a duplicate is (documented in
 * docs/decisions.md, "Endpoints"). Pure: no DNS, no network.
 */
import { ValidationError } from '../errors.js'

export const MAX_ENDPOINT_LENGTH = 2048

// RFC 3986 unreserved characters: encoding them changes nothing, so they are decoded.
const UNRESERVED = /^[A-Za-z0-9\-._~]$/

/** Decodes percent-escapes of unreserved characters and upper-cases the hex of the others. */
export function normalizePercentEncoding (text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_escape, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16))
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`
  })
}

/**
 * The canonical form of an endpoint URL, or a ValidationError naming `endpoint`:
 * - WHATWG URL parsing (what browsers and fetch do): scheme and host lower-cased,
 *   internationalised hosts in punycode, IPv4 in dotted decimal, dot segments resolved,
 *   the default port (80 for http, 443 for https) dropped, an empty path is `/`;
 * - the host's trailing dot(s) removed (`example.com.` is `example.com`);
 * - an IPv4-mapped IPv6 host (`[::ffff:127.0.0.1]`, which WHATWG writes `[::ffff:7f00:1]`)
 *   written as its IPv4 address: both reach the same socket;
 * - percent-encoding normalised in path and query: unreserved characters decoded,
 *   hex digits upper case;
 * - an empty query (`?`) and an empty fragment (`#`) dropped; any other fragment refused;
 * - a trailing slash is significant: `/x/` and `/x` are different endpoints (servers route
 *   them differently), but `https://a.com` and `https://a.com/` are the same;
 * - query parameter order kept (it can matter to the server);
 * - at most 2048 characters, counted on the canonical form.
 */
export function canonicalEndpoint (value: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ValidationError('endpoint', 'must be an absolute http(s) URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ValidationError('endpoint', 'must use http or https')
  if (url.username !== '' || url.password !== '') throw new ValidationError('endpoint', 'must not contain credentials')
  if (url.hash !== '') throw new ValidationError('endpoint', 'must not contain a fragment')
  const hostname = url.hostname.replace(/\.+$/, '')
  if (hostname === '') throw new ValidationError('endpoint', 'must name a host')
  url.hostname = ipv4OfMapped(hostname) ?? hostname
  url.hash = ''
  url.pathname = normalizePercentEncoding(url.pathname)
  // `search` is '' for both "no query" and "empty query": assigning it drops a bare '?'.
  url.search = normalizePercentEncoding(url.search)
  const canonical = url.href
  if (canonical.length > MAX_ENDPOINT_LENGTH) {
    throw new ValidationError('endpoint', `must be at most ${MAX_ENDPOINT_LENGTH} characters in canonical form (this one has ${canonical.length})`)
  }
  return canonical
}

// WHATWG URL writes every IPv4-mapped address in this compressed hex form.
const MAPPED_IPV4 = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/

/** `a.b.c.d` for an IPv4-mapped IPv6 host as WHATWG URL writes it, else undefined. */
function ipv4OfMapped (hostname: string): string | undefined {
  const match = MAPPED_IPV4.exec(hostname)
  if (match === null) return undefined
  const high = parseInt(match[1] as string, 16)
  const low = parseInt(match[2] as string, 16)
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.')
}

/**
 * The identity of a listing (with its method): the resource URL its 402 answer declares,
 * canonicalised, when there is one; else the canonical endpoint. Only the declared URL's
 * path and query count, put on the endpoint's own origin: a server may say which of its own
 * resources a spelling is (`/paid/`, `/PAID`, `?ref=1` answering as `/paid`), never claim
 * a resource of another origin (nor mislabel its own scheme behind a TLS proxy).
 * `endpoint` is canonical; a declared URL that cannot be read leaves the endpoint.
 */
export function listingResource (endpoint: string, declared: string | null | undefined): string {
  if (declared === null || declared === undefined) return endpoint
  let path: URL
  try {
    path = new URL(declared, endpoint)
  } catch {
    return endpoint
  }
  if (path.protocol !== 'http:' && path.protocol !== 'https:') return endpoint
  try {
    return canonicalEndpoint(new URL(endpoint).origin + path.pathname + path.search)
  } catch {
    return endpoint
  }
}
