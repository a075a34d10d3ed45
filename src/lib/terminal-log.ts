/**
 * Logs for a person at a terminal: `npm start` with stdout on a TTY. pino's JSON lines become
 * short text lines, one per request instead of Fastify's two:
 *
 *   16:40:02 GET /api/services?limit=5 200 3 ms
 *   16:40:09 WARN warming the list index failed; the first list will build it: disk full
 *
 * Not a TTY (tests, containers, log shippers) the JSON is left as it is. Written here rather
 * than adding pino-pretty: the catalog needs two line shapes, not a configurable printer.
 */
import type { Writable } from 'node:stream'

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: '', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' }

/** The fields pino and Fastify add to every line: not worth a person's attention. */
const NOISE = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'err', 'req', 'res', 'responseTime'])

/** Fastify's response serializer on a terminal: the status and the request it answers, so one line says it all. */
export function terminalResponse (reply: { statusCode: number, request?: { method: string, url: string } }): { statusCode: number, method?: string, url?: string } {
  return { statusCode: reply.statusCode, method: reply.request?.method, url: reply.request?.url }
}

const clock = (time: number): string => new Date(time).toTimeString().slice(0, 8)

function value (v: unknown): string {
  const text = typeof v === 'string' ? v : JSON.stringify(v) ?? String(v)
  return text.length > 80 ? `${text.slice(0, 77)}…` : text
}

/** The start line on a terminal, in place of "Server listening at": where the catalog is, on what store, where to look. */
export function startLine (address: string, store: string, services: number): string {
  return `x402 catalog at ${address} (${store}, ${services} service${services === 1 ? '' : 's'}): search page ${address}/, API docs ${address}/docs`
}

/** One pino JSON line as a line of text (without the newline), or null for a line not worth printing; anything not JSON passes unchanged. */
export function formatLogLine (line: string): string | null {
  let entry: Record<string, unknown>
  try {
    entry = JSON.parse(line) as Record<string, unknown>
  } catch {
    return line
  }
  if (typeof entry !== 'object' || entry === null) return line
  const time = typeof entry.time === 'number' ? `${clock(entry.time)} ` : ''
  const level = LEVELS[entry.level as number] ?? String(entry.level)
  const msg = typeof entry.msg === 'string' ? entry.msg : ''
  // Fastify logs each request twice, as it comes and as it is answered: the answer says it all.
  if (msg === 'incoming request') return null
  const res = entry.res as { statusCode?: number, method?: string, url?: string } | undefined
  if (msg === 'request completed' && res?.method !== undefined) {
    return `${time}${res.method} ${res.url ?? ''} ${res.statusCode ?? ''} ${Math.round(entry.responseTime as number)} ms`
  }
  const err = entry.err as { message?: string, stack?: string } | undefined
  const extras = Object.entries(entry).filter(([key]) => !NOISE.has(key)).map(([key, v]) => `${key}=${value(v)}`)
  let text = `${time}${level === '' ? '' : `${level} `}${msg}`
  if (extras.length > 0) text += ` (${extras.join(', ')})`
  if (err?.message !== undefined) text += `: ${err.message}`
  // A failure's stack is what the person at the terminal needs to report or fix it.
  if ((entry.level as number) >= 50 && err?.stack !== undefined) text += `\n${err.stack.split('\n').slice(1).join('\n')}`
  return text
}

/** A pino destination writing formatted lines to `out` (pino writes whole lines, one per call). */
export function terminalDestination (out: Pick<Writable, 'write'> = process.stdout): { write: (chunk: string) => void } {
  return {
    write (chunk: string): void {
      for (const line of chunk.split('\n')) {
        const text = line === '' ? null : formatLogLine(line)
        if (text !== null) out.write(`${text}\n`)
      }
    }
  }
}
