/**
 * Demo catalog: fixtures/services.json goes through the same registration rules as the
 * API (so a broken fixture fails loudly), keeping its status and uptime. Usage figures are
 * never seeded: they come from payments the chain watcher found.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../paths.js'
import { serviceIdForEndpoint } from './ids.js'
import { buildServiceRecord, normalizeEndpoint, type MonitoringState, type RegistrationBody } from './registration.js'
import type { ServiceRecord } from './service.js'

export const DEMO_FIXTURES = join(PROJECT_ROOT, 'fixtures', 'services.json')

export type SeedEntry = RegistrationBody & MonitoringState & { createdAt: string }

export function seedRecords (entries: readonly SeedEntry[], now: string): ServiceRecord[] {
  return entries.map((entry) => {
    const { status, uptimeScore, lastChecked, createdAt, ...body } = entry
    const id = serviceIdForEndpoint(normalizeEndpoint(body.endpoint))
    return buildServiceRecord(body, { id, ownerId: null, now }, { status, uptimeScore, lastChecked }, createdAt)
  })
}

export function readSeedFile (seed: string): SeedEntry[] {
  const path = seed === 'demo' ? DEMO_FIXTURES : seed
  return JSON.parse(readFileSync(path, 'utf8')) as SeedEntry[]
}
