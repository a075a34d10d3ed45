/**
 * The prober's HTTP client (undici 7): every connection is checked by the address
 * guard at connect time (a lookup hook for names, a check of literal hosts), so a name
 * that re-resolves to a private address between checks (DNS rebinding) still fails.
 * Redirects are followed by hand, at most `maxRedirects`, each hop through the same
 * guarded connector. Timeouts cover connect, headers and body; bodies and headers are
 * capped in bytes.
 *
 * Probes are capped per address, not per host name: each hop resolves its host first, waits
 * for one of `perAddress` slots of the address it resolved to (IPv4-mapped IPv6 counted as
 * the IPv4 address), and connects to exactly that address. Every probe path (scheduler,
 * ownership decisions, on-demand probes) goes through this one client, so four aliases of one
 * server (`localhost`, `127.0.0.1`, `[::ffff:127.0.0.1]`, a second DNS name) share its slots.
 * Each request closes its connection (probes of one host are an hour apart), so a slot is
 * never held by an idle socket.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns'
import ipaddr from 'ipaddr.js'
import { Agent, buildConnector, request, type Dispatcher } from 'undici'
import { originOfUrl } from '../domain/endpoint-url.js'
import { BlockedAddressError, classifyAddress, ipLiteral, type AddressVerdict } from './address-guard.js'

export type LookupFunction = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void

export interface HttpClientOptions {
  /** Whole-request budget and the connect, headers and body timeouts. */
  timeoutMs: number
  /** Lets private, loopback and other non-public addresses through (tests, private deployments). */
  allowPrivate: boolean
  userAgent: string
  maxRedirects?: number
  /** Largest response head accepted; PAYMENT-REQUIRED headers can be large. */
  maxHeaderBytes?: number
  /** Largest body read (v1 answers carry their requirements in the body). */
  maxBodyBytes?: number
  /** DNS resolution (all addresses); tests inject one to simulate rebinding. */
  lookup?: LookupFunction
  /** The address policy; tests widen it to let a loopback redirector through. Default: classifyAddress. */
  classify?: (address: string) => AddressVerdict
  /** Probes in flight at once per resolved address, across every caller of this client (default 2). */
  perAddress?: number
  /** Name lookups in flight at once (default DEFAULT_LOOKUPS_IN_FLIGHT). */
  lookupsInFlight?: number
}

export type HttpAnswer =
  | { ok: true, status: number, headers: Record<string, string | string[] | undefined>, body: string | null, url: string, latencyMs: number }
  | { ok: false, reason: string, latencyMs: number | null }

/** How one request is made, beyond the client's options. */
export interface RequestOptions {
  signal?: AbortSignal
  /** Read the body of any answer (a document), up to this many bytes; else only a v1 402's body is read. */
  readBodyUpTo?: number
  /**
   * Follow a redirect only within the first URL's origin (scheme, host, port, canonical):
   * what proves something about an origin counts only when the origin itself serves it.
   */
  sameOrigin?: boolean
}

export const DEFAULT_MAX_REDIRECTS = 3
export const DEFAULT_MAX_HEADER_BYTES = 256 * 1024
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024
export const DEFAULT_PER_ADDRESS = 2
/**
 * Name lookups in flight at once. getaddrinfo runs on libuv's threadpool (four threads, shared
 * with file reads and zlib): a slow resolver must not hold every thread the API's file sends
 * need, so probes get two of them.
 */
export const DEFAULT_LOOKUPS_IN_FLIGHT = 2

/** A counting semaphore per key (an address): at most `limit` holders each, waiters served in order. */
export class AddressSlots {
  readonly #held = new Map<string, number>()
  readonly #waiting = new Map<string, Array<() => void>>()

  constructor (readonly limit: number) {}

  /** Resolves with the release function once a slot of `key` is this caller's; rejects when `signal` aborts first. */
  async acquire (key: string, signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted()
    let released = false
    const release = (): void => {
      if (released) return
      released = true
      this.#release(key)
    }
    const held = this.#held.get(key) ?? 0
    if (held < this.limit) {
      this.#held.set(key, held + 1)
      return release
    }
    await new Promise<void>((resolve, reject) => {
      const queue = this.#waiting.get(key) ?? []
      this.#waiting.set(key, queue)
      const onAbort = (): void => {
        const at = queue.indexOf(grant)
        if (at !== -1) queue.splice(at, 1)
        if (queue.length === 0 && this.#waiting.get(key) === queue) this.#waiting.delete(key)
        reject(signal.reason)
      }
      // The releasing holder hands its slot over: the count stays as it is.
      const grant = (): void => {
        signal.removeEventListener('abort', onAbort)
        resolve()
      }
      queue.push(grant)
      signal.addEventListener('abort', onAbort, { once: true })
    })
    return release
  }

  /** Slots of `key` held now (tests, diagnostics). */
  held (key: string): number {
    return this.#held.get(key) ?? 0
  }

  #release (key: string): void {
    const queue = this.#waiting.get(key)
    const next = queue?.shift()
    if (queue !== undefined && queue.length === 0) this.#waiting.delete(key)
    if (next !== undefined) { next(); return }
    const left = (this.#held.get(key) ?? 1) - 1
    if (left <= 0) this.#held.delete(key)
    else this.#held.set(key, left)
  }
}

/** The key an address is counted under: IPv4-mapped IPv6 is the IPv4 address it maps. */
export function addressKey (address: string): string {
  return ipaddr.isValid(address) ? ipaddr.process(address).toString() : address
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])

function defaultLookup (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void): void {
  dnsLookup(hostname, options, callback)
}

/** A net.connect `lookup` over a resolver of all addresses, answering in the shape net.connect asked for. */
function pinnedLookup (resolveAll: LookupFunction) {
  return function lookup (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: (...args: unknown[]) => void): void {
    resolveAll(hostname, { ...options, all: true }, (err, addresses) => {
      if (err !== null) { callback(err); return }
      const first = addresses[0]
      if (first === undefined) { callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' })); return }
      if (options.all === true) callback(null, addresses)
      else callback(null, first.address, first.family)
    })
  }
}

/** A net.connect `lookup` that resolves every address and refuses the lot if any is not allowed. */
export function guardedLookup (resolveAll: LookupFunction, classify: (address: string) => AddressVerdict = classifyAddress) {
  return function lookup (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: (...args: unknown[]) => void): void {
    resolveAll(hostname, { ...options, all: true }, (err, addresses) => {
      if (err !== null) { callback(err); return }
      for (const { address } of addresses) {
        const verdict = classify(address)
        if (!verdict.allowed) { callback(new BlockedAddressError(`${verdict.reason} (${hostname})`)); return }
      }
      if (addresses.length === 0) { callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' })); return }
      if (options.all === true) callback(null, addresses)
      else callback(null, (addresses[0] as LookupAddress).address, (addresses[0] as LookupAddress).family)
    })
  }
}

function kib (bytes: number): string {
  return `${Math.round(bytes / 1024)} KiB`
}

/** Walks an error and its causes for the first one matching. */
function findCause<T> (err: unknown, pick: (e: Error & { code?: string }) => T | undefined): T | undefined {
  let current: unknown = err
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const picked = pick(current as Error & { code?: string })
    if (picked !== undefined) return picked
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

export class ProbeHttpClient {
  readonly #options: Required<Omit<HttpClientOptions, 'lookup' | 'classify'>>
  readonly #agent: Agent
  readonly #slots: AddressSlots
  readonly #lookups: AddressSlots
  /** Names resolved by a hop in flight, and the address it holds a slot of: the connector connects there. */
  readonly #pinned = new Map<string, { address: LookupAddress, users: number }>()
  readonly #lookupAll: LookupFunction
  readonly #classify: (address: string) => AddressVerdict

  constructor (options: HttpClientOptions) {
    const { lookup: _lookup, classify: _classify, ...rest } = options
    this.#options = {
      maxRedirects: DEFAULT_MAX_REDIRECTS,
      maxHeaderBytes: DEFAULT_MAX_HEADER_BYTES,
      maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
      perAddress: DEFAULT_PER_ADDRESS,
      lookupsInFlight: DEFAULT_LOOKUPS_IN_FLIGHT,
      ...rest
    }
    this.#slots = new AddressSlots(this.#options.perAddress)
    this.#lookups = new AddressSlots(this.#options.lookupsInFlight)
    const classify = options.classify ?? classifyAddress
    this.#classify = classify
    const resolveAll = options.lookup ?? defaultLookup
    this.#lookupAll = options.allowPrivate ? resolveAll : guardedLookup(resolveAll, classify) as LookupFunction
    // The address the hop resolved (and holds a slot of), checked again by the guard.
    const pinned: LookupFunction = (hostname, lookupOptions, callback) => {
      const pin = this.#pinned.get(hostname)
      if (pin !== undefined) callback(null, [pin.address])
      else resolveAll(hostname, lookupOptions, callback)
    }
    const base = buildConnector({
      timeout: options.timeoutMs,
      lookup: options.allowPrivate ? pinnedLookup(pinned) : guardedLookup(pinned, classify)
    } as buildConnector.BuildOptions)
    const allowPrivate = options.allowPrivate
    const connect: buildConnector.connector = (opts, callback) => {
      // net.connect skips `lookup` for IP literals: check those here.
      const literal = ipLiteral(opts.hostname)
      if (!allowPrivate && literal !== null) {
        const verdict = classify(literal)
        if (!verdict.allowed) { callback(new BlockedAddressError(verdict.reason), null); return }
      }
      base(opts, callback)
    }
    this.#agent = new Agent({
      connect,
      maxHeaderSize: this.#options.maxHeaderBytes,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      // Probes of one host are an hour apart: do not hold idle sockets.
      keepAliveTimeout: 1_000,
      connections: 4
    })
  }

  /**
   * Requests `url` like a paying client (before paying), following redirects; never throws.
   * The body is read for v1 402 answers, or for any answer when `readBodyUpTo` bytes are
   * asked for (a claim document), within that bound. `url` of the answer is the one that served it.
   */
  async request (url: string, method: string, options: RequestOptions = {}): Promise<HttpAnswer> {
    const { signal, readBodyUpTo, sameOrigin = false } = options
    // Only proof reads compare origins; a probe follows redirects anywhere.
    const origin = sameOrigin ? originOfUrl(url) : null
    let started = performance.now()
    const elapsed = (): number => Math.round(performance.now() - started)
    const deadline = AbortSignal.timeout(this.#options.timeoutMs)
    const combined = signal === undefined ? deadline : AbortSignal.any([deadline, signal])
    let current = url
    let currentMethod = method
    let waitingFor: string | null = null
    let resolving: string | null = null
    let release = (): void => {}
    let unpin = (): void => {}
    try {
      for (let hop = 0; ; hop++) {
        release()
        unpin()
        const parsed = new URL(current)
        if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { ok: false, reason: `blocked: ${parsed.protocol.slice(0, -1)} URL (only http and https)`, latencyMs: null }
        resolving = parsed.hostname
        const address = await this.#resolve(parsed.hostname, combined)
        resolving = null
        waitingFor = addressKey(address.address)
        release = await this.#slots.acquire(waitingFor, combined)
        waitingFor = null
        // Latency is the endpoint's: time spent waiting for a slot is the catalog's own.
        if (hop === 0) started = performance.now()
        unpin = this.#pin(parsed.hostname, address)
        const response = await request(parsed, {
          dispatcher: this.#agent,
          method: currentMethod as Dispatcher.HttpMethod,
          headers: { accept: 'application/json', 'user-agent': this.#options.userAgent },
          // One request per connection: no idle socket keeps a slot's address busy.
          reset: true,
          signal: combined
        })
        const location = response.headers.location
        if (REDIRECTS.has(response.statusCode) && typeof location === 'string') {
          await response.body.dump()
          if (hop >= this.#options.maxRedirects) return { ok: false, reason: `more than ${this.#options.maxRedirects} redirects`, latencyMs: elapsed() }
          const next = new URL(location, parsed).href
          const nextOrigin = sameOrigin ? originOfUrl(next) : null
          if (sameOrigin && nextOrigin !== origin) {
            return { ok: false, reason: `redirected to ${nextOrigin ?? next} (${next.slice(0, 300)}): only ${origin ?? url}'s own answer counts`, latencyMs: elapsed() }
          }
          current = next
          // What fetch does: 303, and 301/302 after a POST, continue as GET.
          if (response.statusCode === 303 || ((response.statusCode === 301 || response.statusCode === 302) && currentMethod === 'POST')) currentMethod = 'GET'
          continue
        }
        const latencyMs = elapsed()
        let body: string | null = null
        if (readBodyUpTo !== undefined || (response.statusCode === 402 && response.headers['payment-required'] === undefined)) {
          const limit = readBodyUpTo ?? this.#options.maxBodyBytes
          const read = await this.#readBody(response.body, limit)
          if (read === null) return { ok: false, reason: `response body too large (over ${kib(limit)})`, latencyMs }
          body = read
        } else {
          await response.body.dump()
        }
        return { ok: true, status: response.statusCode, headers: response.headers, body, url: current, latencyMs }
      }
    } catch (err) {
      if (waitingFor !== null && deadline.aborted) return { ok: false, reason: `timeout after ${this.#seconds()} waiting for other probes of ${waitingFor} to finish`, latencyMs: null }
      if (resolving !== null && deadline.aborted) return { ok: false, reason: `timeout after ${this.#seconds()} looking up ${resolving} (DNS)`, latencyMs: null }
      return { ok: false, reason: this.#describe(err, deadline), latencyMs: null }
    } finally {
      release()
      unpin()
    }
  }

  /**
   * The address a hop connects to: an IP literal as it is, a name's first address (all of them
   * guarded). Bounded by `signal`; a lookup given up on keeps its slot until getaddrinfo returns,
   * since it still holds a thread.
   */
  async #resolve (hostname: string, signal: AbortSignal): Promise<LookupAddress> {
    const literal = ipLiteral(hostname)
    if (literal !== null) {
      const verdict = this.#options.allowPrivate ? { allowed: true as const } : this.#classify(literal)
      if (!verdict.allowed) throw new BlockedAddressError(verdict.reason)
      return { address: literal, family: literal.includes(':') ? 6 : 4 }
    }
    const release = await this.#lookups.acquire('lookup', signal)
    return await new Promise((resolve, reject) => {
      const onAbort = (): void => { reject(signal.reason) }
      const done = (): void => {
        release()
        signal.removeEventListener('abort', onAbort)
      }
      // Aborted while the slot was being handed over: 'abort' has fired already.
      if (signal.aborted) { release(); reject(signal.reason); return }
      signal.addEventListener('abort', onAbort, { once: true })
      try {
        this.#lookupAll(hostname, { all: true }, (err, addresses) => {
          done()
          if (err !== null) reject(err)
          else if (addresses[0] === undefined) reject(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }))
          else resolve(addresses[0])
        })
      } catch (err) {
        done()
        reject(err)
      }
    })
  }

  #pin (hostname: string, address: LookupAddress): () => void {
    if (ipLiteral(hostname) !== null) return () => {}
    const pin = this.#pinned.get(hostname) ?? { address, users: 0 }
    pin.address = address
    pin.users++
    this.#pinned.set(hostname, pin)
    let done = false
    return () => {
      if (done) return
      done = true
      if (--pin.users === 0 && this.#pinned.get(hostname) === pin) this.#pinned.delete(hostname)
    }
  }

  #seconds (): string {
    return `${+(this.#options.timeoutMs / 1000).toFixed(1)} s`
  }

  async #readBody (body: Dispatcher.ResponseData['body'], limit: number): Promise<string | null> {
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of body) {
      size += (chunk as Buffer).length
      if (size > limit) {
        body.destroy()
        return null
      }
      chunks.push(chunk as Buffer)
    }
    return Buffer.concat(chunks).toString('utf8')
  }

  #describe (err: unknown, deadline: AbortSignal): string {
    const blocked = findCause(err, (e) => e instanceof BlockedAddressError ? e.reason : undefined)
    if (blocked !== undefined) return blocked
    const seconds = this.#seconds()
    const code = findCause(err, (e) => e.code)
    if (deadline.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return `timeout after ${seconds}`
    if (code === 'UND_ERR_HEADERS_OVERFLOW') return `response headers too large (over ${kib(this.#options.maxHeaderBytes)})`
    if (code === 'ECONNREFUSED') return 'connection refused'
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found (DNS)'
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection closed before an answer'
    if (code === 'UND_ERR_ABORTED' || (err as Error).name === 'AbortError') return 'probe cancelled'
    const message = (err as Error).message ?? String(err)
    return `request failed: ${code === undefined ? message : `${code} ${message}`}`.slice(0, 300)
  }

  async close (): Promise<void> {
    await this.#agent.close()
  }
}
