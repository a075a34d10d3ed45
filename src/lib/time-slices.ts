/**
 * Long work on the API's event loop (a source pass, the indexer) shares it with requests by
 * time: a loop calls `slices.yieldIfDue()` between two steps, which returns at once until
 * SLICE_MS have passed since the loop last resumed, and otherwise waits for the next turn
 * (setImmediate), where the requests and answers that came meanwhile are handled first.
 *
 * Why by time and not every n steps: steps differ from under 0.1 ms to several (a listing's
 * inference, a Japanese description's analysis), so a count either yields far too often when
 * steps are short or holds requests back for tens of ms when they are long. Each loop keeps its
 * own clock, so each gets a slice per turn; while searches come, every turn also answers each
 * connection's request, and a turn is then about one slice per loop longer than the requests'
 * own work. Off the API's thread (a CLI, `npm run sources`) the cost is a turn every SLICE_MS.
 */
import { performance } from 'node:perf_hooks'
import { setImmediate as nextTurn } from 'node:timers/promises'

/** How long a loop keeps the event loop before letting requests in. */
export const SLICE_MS = 3

export class TimeSlices {
  #since = performance.now()

  constructor (readonly sliceMs = SLICE_MS) {}

  /** Waits for the next turn of the event loop if this loop has held it for its slice. */
  async yieldIfDue (): Promise<void> {
    if (performance.now() - this.#since < this.sliceMs) return
    await nextTurn()
    this.#since = performance.now()
  }
}
