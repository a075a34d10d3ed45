/**
 * Long work on the API's event loop (a source pass, the indexer) shares it with requests by
 * time: a loop calls `slices.yieldIfDue()` between two steps, which returns at once until the
 * loop's slice has passed since it last resumed, and otherwise waits for the next turn
 * (setImmediate), where the requests and answers that came meanwhile are handled first.
 *
 * Why by time and not every n steps: steps differ from under 0.1 ms to several (a listing's
 * inference, a Japanese description's analysis), so a count either yields far too often when
 * steps are short or holds requests back for tens of ms when they are long.
 *
 * Why the slice follows the rest of the turn: searches are answered on this thread too, each
 * connection's next request a turn or two after the last, so a fixed slice per loop per turn
 * takes whatever share of the thread the requests leave, however many come (two loops of 10 ms
 * left 8 connections a seventh of their rate). A slice is SHARE of what the rest of the last turn
 * took, between MIN_SLICE_MS and MAX_SLICE_MS: requests keep well over half of a busy thread
 * (two loops: (1 - SHARE) / (1 + SHARE)), and an idle server turns every MIN_SLICE_MS or so.
 */
import { performance } from 'node:perf_hooks'
import { setImmediate as nextTurn } from 'node:timers/promises'

export const MIN_SLICE_MS = 1
export const MAX_SLICE_MS = 5
const SHARE = 0.25

export class TimeSlices {
  #since = performance.now()
  #slice = MIN_SLICE_MS

  /** Waits for the next turn of the event loop if this loop has held it for its slice. */
  async yieldIfDue (): Promise<void> {
    const now = performance.now()
    if (now - this.#since < this.#slice) return
    await nextTurn()
    this.#since = performance.now()
    this.#slice = Math.min(MAX_SLICE_MS, Math.max(MIN_SLICE_MS, (this.#since - now) * SHARE))
  }
}
