/** When a new listing is first probed: a source's at a spread offset within one interval, a key's at once. */
import { test } from 'tap'
import { newServiceId, serviceIdForEndpoint } from '../../src/domain/ids.js'
import { firstProbeAt, probeOffset } from '../../src/domain/probe-schedule.js'

const ADDED = '2026-11-01T00:00:00.000Z'
const HOUR = 3_600_000

test('an unowned listing is first probed within one interval of being added, at the same time for the same id', async (t) => {
  const id = newServiceId()
  const at = firstProbeAt({ id, ownerId: null, createdAt: ADDED }, HOUR)
  t.type(at, 'string')
  const offset = Date.parse(at as string) - Date.parse(ADDED)
  t.ok(offset >= 0 && offset < HOUR, `offset ${offset} ms`)
  t.equal(firstProbeAt({ id, ownerId: null, createdAt: ADDED }, HOUR), at, 'deterministic from the id')
  t.equal(offset, Math.floor(probeOffset(id) * HOUR))
})

test('a pass\'s listings spread over the whole interval, none later than it', async (t) => {
  const tenths = new Array<number>(10).fill(0)
  let latest = 0
  for (let i = 0; i < 5_000; i++) {
    const offset = Date.parse(firstProbeAt({ id: serviceIdForEndpoint(`https://api.example.com/${i}`), ownerId: null, createdAt: ADDED }, HOUR) as string) - Date.parse(ADDED)
    latest = Math.max(latest, offset)
    tenths[Math.floor(offset / (HOUR / 10))]! += 1
  }
  t.ok(latest < HOUR, 'none later than one interval')
  // 500 expected per tenth (ids fixed, so the counts are too); a uniform spread is within 400–600.
  t.ok(tenths.every((count) => count > 400 && count < 600), `about a tenth in each tenth of the interval (${tenths.join(', ')})`)
})

test('an owned listing, or any with scheduled probing off, is due at once', async (t) => {
  t.equal(firstProbeAt({ id: newServiceId(), ownerId: 'key_owner', createdAt: ADDED }, HOUR), null)
  t.equal(firstProbeAt({ id: newServiceId(), ownerId: null, createdAt: ADDED }, 0), null)
})
