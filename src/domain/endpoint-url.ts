/**
 * Canonical endpoint URLs. Two registrations name the same paid endpoint when their
 * canonical forms are equal, so the rules here decide what a duplicate is (documented in
 * docs/api.md, "Canonical endpoints"). Pure: no DNS, no network.
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
  const url = parseHttpUrl('endpoint', value, 'must be an absolute http(s) URL')
  if (url.hash !== '') throw new ValidationError('endpoint', 'must not contain a fragment')
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

/**
 * `value` parsed as an absolute http(s) URL without credentials, its host in canonical form
 * (trailing dots removed, an IPv4-mapped IPv6 host written as its IPv4 address), or a
 * ValidationError naming `field`. Endpoints and origins share it, so one server has one origin.
 */
function parseHttpUrl (field: string, value: string, unparsable: string): URL {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ValidationError(field, unparsable)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ValidationError(field, 'must use http or https')
  if (url.username !== '' || url.password !== '') throw new ValidationError(field, 'must not contain credentials')
  const hostname = url.hostname.replace(/\.+$/, '')
  if (hostname === '') throw new ValidationError(field, 'must name a host')
  url.hostname = ipv4OfMapped(hostname) ?? hostname
  return url
}

/**
 * The canonical origin of `value` (an origin or any URL of it), or a ValidationError naming
 * `field`: `https://api.example.com`, a port only when not the default, the host as
 * canonicalEndpoint writes it. Claims, imports and sources name origins with it, so an
 * origin and the endpoints on it always agree.
 */
export function canonicalOrigin (field: string, value: string): string {
  return parseHttpUrl(field, value, 'must be an absolute http(s) URL such as https://api.example.com').origin
}

/** The origin of a canonical endpoint (its listings are claimed with it). */
export function originOf (endpoint: string): string {
  return new URL(endpoint).origin
}

/** The canonical origin of any URL, or null for one that is not http(s) (a redirect's target compared with an origin). */
export function originOfUrl (value: string): string | null {
  try {
    return canonicalOrigin('url', value)
  } catch {
    return null
  }
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
