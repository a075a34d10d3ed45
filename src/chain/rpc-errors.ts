/**
 * What an RPC failure means to the watcher: retry the call after a pause (timeouts, 429, 5xx,
 * resets), scan a smaller block range (a provider's "range too large" / "too many results"),
 * or give up on this tick. Read from viem's error chain (HTTP status, JSON-RPC code, errno,
 * messages), pure so the rules are tested without a chain.
 */

export type RpcFailure = 'transient' | 'range' | 'fatal'

interface ErrorFacts {
  statuses: number[]
  codes: Array<number | string>
  names: string[]
  text: string
}

function facts (err: unknown): ErrorFacts {
  const found: ErrorFacts = { statuses: [], codes: [], names: [], text: '' }
  const texts: string[] = []
  let current: unknown = err
  for (let depth = 0; current !== undefined && current !== null && depth < 10; depth++) {
    if (typeof current !== 'object') { texts.push(String(current)); break }
    const e = current as { status?: unknown, code?: unknown, name?: unknown, details?: unknown, shortMessage?: unknown, message?: unknown, cause?: unknown }
    if (typeof e.status === 'number') found.statuses.push(e.status)
    if (typeof e.code === 'number' || typeof e.code === 'string') found.codes.push(e.code)
    if (typeof e.name === 'string') found.names.push(e.name)
    for (const t of [e.details, e.shortMessage, e.message]) if (typeof t === 'string') texts.push(t)
    current = e.cause
  }
  found.text = texts.join(' | ')
  return found
}

/** Messages providers give when a getLogs asks for too much (Alchemy, Infura, QuickNode, geth, Erigon, Base…). */
const RANGE_TEXT = /block range|range (is )?too (large|wide|big)|too many (results|logs|blocks)|more than \d+ (results|logs)|exceed(s|ed)? (the )?(max(imum)?|limit)|response size|query timeout|limit exceeded|range limit|returned more than/i
const TRANSIENT_CODES = new Set<number | string>([
  'ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH',
  'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CLOSED',
  // JSON-RPC: rate limited (some providers answer 200 with it), internal error, resource unavailable.
  429, -32603, -32002
])

export function classifyRpcError (err: unknown): RpcFailure {
  const f = facts(err)
  // A provider's range refusal may arrive as a 413, a -32005 or a -32602 with words about the range.
  if (f.statuses.includes(413) || f.codes.includes(-32005) || RANGE_TEXT.test(f.text)) return 'range'
  if (f.statuses.some((s) => s === 408 || s === 429 || s >= 500)) return 'transient'
  if (f.names.includes('TimeoutError') || f.names.includes('AbortError')) return 'transient'
  if (f.codes.some((c) => TRANSIENT_CODES.has(c))) return 'transient'
  if (/fetch failed|socket hang up|other side closed|network|ECONNRESET|timed? ?out/i.test(f.text)) return 'transient'
  return 'fatal'
}

/** A one-line description without the URL (it may hold the provider's key): `HTTP 429`, `timeout`, `ECONNRESET`, the RPC's message. */
export function describeRpcError (err: unknown, secrets: readonly string[] = []): string {
  const f = facts(err)
  const status = f.statuses[0]
  let text: string
  if (f.names.includes('TimeoutError')) text = 'timeout'
  else if (status !== undefined) text = `HTTP ${status}`
  else {
    const errno = f.codes.find((c) => typeof c === 'string')
    const rpc = f.codes.find((c) => typeof c === 'number')
    // The node's own words (viem's `details`) rather than viem's generic wrappers.
    const first = (f.text.split(' | ').find((t) => t !== '' && !/^(HTTP request failed|An unknown RPC error|RPC Request failed)/i.test(t)) ?? 'unknown error').split('\n')[0] as string
    text = errno !== undefined ? `${errno}` : rpc !== undefined ? `RPC error ${rpc}: ${first}` : first
  }
  for (const secret of secrets) if (secret !== '') text = text.split(secret).join('<rpcUrl>')
  return text.replace(/https?:\/\/\S+/g, '<url>').slice(0, 300)
}
