/**
 * The time slices a long loop on the API's thread works in (src/lib/time-slices.ts): a turn
 * given up once the slice has passed, a slice that follows the rest of the turn, and while
 * requests are in flight, loops keeping to their share of the thread.
 */
import { performance } from 'node:perf_hooks'
import { test } from 'tap'
import { background, BUSY_SHARE, MAX_SLICE_MS, MIN_SLICE_MS, TimeSlices } from '../../src/lib/time-slices.js'

function busy (ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until) { /* holds the thread, as a step of a pass does */ }
}

test('gives a turn once its slice has passed', async (t) => {
  // (That it runs on within its slice is not asserted: a loaded machine may pause the thread longer than a slice.)
  const slices = new TimeSlices()
  let turned = false
  setImmediate(() => { turned = true })
  busy(MIN_SLICE_MS + 1)
  await slices.yieldIfDue()
  t.ok(turned, 'a spent slice lets what waits for the next turn run first')
})

test('a slice grows with what the rest of the turn took, up to its bound', async (t) => {
  const slices = new TimeSlices()
  t.equal(slices.sliceMs, MIN_SLICE_MS, 'a fresh loop starts with the shortest slice')
  busy(MIN_SLICE_MS + 1)
  // The rest of the turn holds the thread for 40 ms (a loaded machine only makes it longer): the next slice is the longest.
  setImmediate(() => { busy(40) })
  await slices.yieldIfDue()
  t.equal(slices.sliceMs, MAX_SLICE_MS, 'after a long turn elsewhere, the longest slice, never more')
  let turned = false
  setImmediate(() => { turned = true })
  busy(MAX_SLICE_MS)
  await slices.yieldIfDue()
  t.ok(turned, 'once it has passed, a turn')
})

/** Runs steps of `stepMs` with yieldIfDue between them until they have held the thread for `workMs`; the wall time it took. */
async function loopFor (workMs: number, stepMs: number): Promise<number> {
  const slices = new TimeSlices()
  const started = performance.now()
  for (let done = 0; done < workMs; done += stepMs) {
    busy(stepMs)
    await slices.yieldIfDue()
  }
  return performance.now() - started
}

test('while a request is in flight, long loops keep to their share of the thread', async (t) => {
  background.inFlight++
  try {
    const waited = background.waitedMs
    // A slower machine only stretches the wall time: the bound below cannot fail from load.
    const wall = await loopFor(100, 2)
    t.ok(wall >= 0.8 * 100 / BUSY_SHARE, `100 ms of steps took ${wall.toFixed(0)} ms of wall time (share ${BUSY_SHARE})`)
    t.ok(background.waitedMs - waited > 0, 'they waited for the budget')
  } finally {
    background.inFlight--
  }
})

test('with no request in flight, a long loop has the thread', async (t) => {
  const waited = background.waitedMs
  await loopFor(100, 2)
  // Only what waiting for the budget took is counted: a loaded machine's pauses are not.
  t.equal(background.waitedMs, waited, 'it never waited for the budget')
})
