/**
 * When a new listing is first probed. A key's registration is probed at once: its owner waits for
 * the verdict. A listing a source adds has nobody waiting, and a pass can add 20,000 at once: each
 * is first probed at an offset spread over the probe interval, so the prober works through a pass
 * at the pace of its schedule instead of in one burst. The offset comes from the id (random at
 * registration), so the same listing always gets the same time and a batch spreads evenly.
 */
import { createHash } from 'node:crypto'
import type { ServiceRecord } from './service.js'

/** Where in [0, 1) of the interval this id's first probe falls: the first 32 bits of its sha256. */
export function probeOffset (id: string): number {
  return createHash('sha256').update(id).digest().readUInt32BE(0) / 2 ** 32
}

/**
 * The first probe time (ISO) of a listing added without an owner: its `createdAt` plus its
 * offset of `intervalMs`, so never later than one interval after it was added. Null (due at
 * once) for an owned listing, and when scheduled probing is off (`intervalMs` 0).
 */
export function firstProbeAt (record: Pick<ServiceRecord, 'id' | 'ownerId' | 'createdAt'>, intervalMs: number): string | null {
  if (record.ownerId !== null || intervalMs <= 0) return null
  return new Date(Date.parse(record.createdAt) + Math.floor(probeOffset(record.id) * intervalMs)).toISOString()
}

/** What an insert is told of each new listing's first probe: its time (ISO), null for at once. */
export type FirstProbeTime = (record: ServiceRecord) => string | null
