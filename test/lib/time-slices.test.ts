/**
 * The time slices a long loop on the API's thread works in (src/lib/time-slices.ts): no turn
 * given up before the slice has passed, one after, and the rest of the event loop runs then;
 * while requests are in flight, loops keep to their share of the thread.
 */
import { performance } from 'node:perf_hooks'
import { test } from 'tap'
import { background, BUSY_SHARE, MAX_SLICE_MS, MIN_SLICE_MS, TimeSlices } from '../../src/lib/time-slices.js'

function busy (ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until) { /* holds the thread, as a step of a pass does */ }
}

test('keeps the thread within its slice and gives a turn once it has passed', async (t) => {
  const slices = new TimeSlices()
  let turned = false
  setImmediate(() => { turned = true })
  await slices.yieldIfDue()
  t.notOk(turned, 'a fresh slice runs on without a turn')
  busy(MIN_SLICE_MS + 1)
  await slices.yieldIfDue()
  t.ok(turned, 'a spent slice lets what waits for the next turn run first')
})

test('a slice grows with what the rest of the turn took, up to its bound', async (t) => {
  const slices = new TimeSlices()
  busy(MIN_SLICE_MS + 1)
  // The rest of the turn holds the thread for 40 ms: the next slice is the longest.
  setImmediate(() => { busy(40) })
  await slices.yieldIfDue()
  let turned = false
  setImmediate(() => { turned = true })
  busy(MIN_SLICE_MS + 0.5)
  await slices.yieldIfDue()
  t.notOk(turned, 'after a long turn elsewhere, more than the shortest slice')
  busy(MAX_SLICE_MS)
  await slices.yieldIfDue()
  t.ok(turned, 'never more than the longest')
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
    // A slower machine only stretches the wall time: the bound below cannot fail from load.
    const wall = await loopFor(100, 2)
    t.ok(wall >= 0.8 * 100 / BUSY_SHARE, `100 ms of steps took ${wall.toFixed(0)} ms of wall time (share ${BUSY_SHARE})`)
  } finally {
    background.inFlight--
  }
})

test('with no request in flight, a long loop has the thread', async (t) => {
  const wall = await loopFor(100, 2)
  t.ok(wall < 100 / BUSY_SHARE, `100 ms of steps took ${wall.toFixed(0)} ms of wall time`)
})
