/**
 * Demo catalog: fixtures/services.json goes through the same registration rules as the
 * API (so a broken fixture fails loudly), keeping its status and uptime. Usage figures are
 * never seeded: they come from payments the chain watcher found.
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
import { buildServiceRecord, normalizeEndpoint, RegistrationBodySchema, type MonitoringState, type RegistrationBody } from './registration.js'
import type { ServiceRecord } from './service.js'
import { SERVICE_STATUSES } from './trust.js'

export const DEMO_FIXTURES = join(PROJECT_ROOT, 'fixtures', 'services.json')

export type SeedEntry = RegistrationBody & MonitoringState & { createdAt: string }

/** A CATALOG_SEED file the catalog cannot load; the message names the file and, for an item, its index and field. */
export class SeedError extends ConfigError {}

const MONITORING_FIELDS = new Set(['status', 'uptimeScore', 'lastChecked', 'createdAt'])

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
  if (!(SERVICE_STATUSES as readonly unknown[]).includes(entry.status)) return ` (status): must be one of ${SERVICE_STATUSES.join(', ')}, got ${describe(entry.status)}`
  if (entry.uptimeScore !== null && (typeof entry.uptimeScore !== 'number' || entry.uptimeScore < 0 || entry.uptimeScore > 100)) return ` (uptimeScore): must be null or a percentage from 0 to 100, got ${describe(entry.uptimeScore)}`
  if (entry.lastChecked !== null && !isDate(entry.lastChecked)) return ` (lastChecked): must be null or an ISO date, got ${describe(entry.lastChecked)}`
  if (!isDate(entry.createdAt)) return ` (createdAt): must be an ISO date, got ${describe(entry.createdAt)}`
  const body = Object.fromEntries(Object.entries(entry).filter(([key]) => !MONITORING_FIELDS.has(key)))
  const first = Value.Errors(RegistrationBodySchema, body).First()
  if (first !== undefined) {
    const field = first.path.slice(1).replaceAll('/', '.')
    if (first.message === 'Expected required property') return ` (${field}): is required`
    if (first.message === 'Unexpected property') return ` (${field}): is not a field of a service`
    return ` (${field}): ${first.message.replace(/^Expected/, 'must be')}`
  }
  return undefined
}

export function seedRecords (entries: readonly SeedEntry[], now: string): ServiceRecord[] {
  return entries.map((entry) => {
    const { status, uptimeScore, lastChecked, createdAt, ...body } = entry
    const id = serviceIdForEndpoint(normalizeEndpoint(body.endpoint))
    return buildServiceRecord(body, { id, ownerId: null, now }, { status, uptimeScore, lastChecked }, createdAt)
  })
}

/** The entries of a seed file as they are (tests and benchmarks build on the demo's). */
export function readSeedFile (seed: string): SeedEntry[] {
  return JSON.parse(readFileSync(seed === 'demo' ? DEMO_FIXTURES : seed, 'utf8')) as SeedEntry[]
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
      const [record] = seedRecords([item as SeedEntry], now) as [ServiceRecord]
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
