/**
 * Demo catalog: fixtures/services.json goes through the same registration rules as the
 * API (so a broken fixture fails loudly). A seeded service starts as a fresh registration
 * does: `unverified`, never checked, no uptime and no usage. A seed file cannot say
 * otherwise (status, uptimeScore, lastChecked and usage are not fields of it): those come
 * only from what the prober measured and the payments the chain watcher found.
 *
 * A CATALOG_SEED file is checked whole before the store is opened, so a bad one stops the
 * start with one line naming the file and the item, and leaves no empty store behind.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import { ConfigError, ValidationError } from '../errors.js'
import { PROJECT_ROOT } from '../paths.js'
import { serviceIdForEndpoint } from './ids.js'
import { buildServiceRecord, INITIAL_MONITORING, normalizeEndpoint, RegistrationBodySchema, type MonitoringState, type RegistrationBody } from './registration.js'
import type { ServiceRecord } from './service.js'

export const DEMO_FIXTURES = join(PROJECT_ROOT, 'fixtures', 'services.json')

/** One service of a seed file: a registration and the date it was listed, nothing a probe measures. */
export type SeedFileEntry = RegistrationBody & { createdAt: string }

/**
 * A service of a catalog built in code, with the monitoring state probes would have reached:
 * benchmarks simulate a catalog the prober has been measuring. A seed file never carries one
 * (parseSeed refuses it).
 */
export type SeedEntry = SeedFileEntry & MonitoringState

/** A CATALOG_SEED file the catalog cannot load; the message names the file and, for an item, its index and field. */
export class SeedError extends ConfigError {}

/** What only monitoring sets: a seed file naming one is refused, not silently cleaned. */
const MEASURED_FIELDS = ['status', 'uptimeScore', 'lastChecked', 'trustScore', 'usage']

function describe (value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 57)}…` : text
}

function isDate (value: unknown): boolean {
  return typeof value === 'string' && !Number.isNaN(Date.parse(value))
}

/** The first problem of one item as `(field): problem`, or undefined when its shape is a service's. */
function problemOf (item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return `: must be an object (a service), got ${describe(item)}`
  const entry = item as Record<string, unknown>
  const measured = MEASURED_FIELDS.find((key) => key in entry)
  if (measured !== undefined) return ` (${measured}): is not a field of a seed (remove it): a seeded service starts unverified and never checked; only probes and payments change that`
  if (!isDate(entry.createdAt)) return ` (createdAt): must be an ISO date, got ${describe(entry.createdAt)}`
  const { createdAt: _createdAt, ...body } = entry
  const first = Value.Errors(RegistrationBodySchema, body).First()
  if (first !== undefined) {
    const field = first.path.slice(1).replaceAll('/', '.')
    if (first.message === 'Expected required property') return ` (${field}): is required`
    if (first.message === 'Unexpected property') return ` (${field}): is not a field of a service`
    return ` (${field}): ${first.message.replace(/^Expected/, 'must be')}`
  }
  return undefined
}

/** Records of seed entries: unverified and never checked unless an entry (built in code) says otherwise. */
export function seedRecords (entries: ReadonlyArray<SeedFileEntry & Partial<MonitoringState>>, now: string): ServiceRecord[] {
  return entries.map((entry) => {
    const { status, uptimeScore, lastChecked, createdAt, ...body } = entry
    const id = serviceIdForEndpoint(normalizeEndpoint(body.endpoint))
    const monitoring = { status: status ?? INITIAL_MONITORING.status, uptimeScore: uptimeScore ?? null, lastChecked: lastChecked ?? null }
    return buildServiceRecord(body, { id, ownerId: null, now }, monitoring, createdAt)
  })
}

/** The entries of a seed file as they are (tests and benchmarks build on the demo's). */
export function readSeedFile (seed: string): SeedFileEntry[] {
  return JSON.parse(readFileSync(seed === 'demo' ? DEMO_FIXTURES : seed, 'utf8')) as SeedFileEntry[]
}

/** Parses and checks a seed document (its text); throws a message naming the item (index and field). */
export function parseSeed (text: string, now: string): ServiceRecord[] {
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch (err) {
    throw new Error(`is not JSON: ${(err as Error).message}`)
  }
  if (!Array.isArray(document)) throw new Error(`must be a JSON array of services, got ${describe(document)}`)
  const seen = new Map<string, number>()
  return document.map((item: unknown, index) => {
    const problem = problemOf(item)
    if (problem !== undefined) throw new Error(`item ${index}${problem}`)
    try {
      const [record] = seedRecords([item as SeedFileEntry], now) as [ServiceRecord]
      const earlier = seen.get(record.id)
      if (earlier !== undefined) throw new ValidationError('endpoint', `is item ${earlier}'s endpoint too`)
      seen.set(record.id, index)
      return record
    } catch (err) {
      if (err instanceof ValidationError) throw new Error(`item ${index} (${err.field}): ${err.message.slice(err.field.length + 2)}`)
      throw err
    }
  })
}

/** The records of CATALOG_SEED (`demo` or a file's path); a SeedError names the file and the problem. */
export function loadSeed (seed: string, now: string): ServiceRecord[] {
  const path = seed === 'demo' ? DEMO_FIXTURES : seed
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory, not a file' : code === 'EACCES' ? 'not readable by this user' : (err as Error).message
    throw new SeedError(`CATALOG_SEED ${path}: cannot read it: ${why}`)
  }
  try {
    return parseSeed(text, now)
  } catch (err) {
    if (err instanceof ConfigError) throw err
    throw new SeedError(`CATALOG_SEED ${path}: ${(err as Error).message}`)
  }
}
