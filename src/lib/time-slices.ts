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
 * A slice is SHARE of what the rest of the last turn took, between MIN_SLICE_MS and
 * MAX_SLICE_MS, so an idle server turns every MIN_SLICE_MS or so. That alone does not keep a
 * busy server's requests their share: a search waits on a search thread for most of its time,
 * so the turns between slices are short, and two loops each taking at least their shortest
 * slice (and the step that overran it) every turn held about 70 % of the thread while 8
 * connections searched (bench:sources). So while any request is in flight, all the loops of
 * the thread together run at most BUSY_SHARE of the time (a budget they share, refilled at that
 * rate, never banking more than MAX_SLICE_MS), and wait with a timer when it is spent.
 */
import { performance } from 'node:perf_hooks'
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises'

export const MIN_SLICE_MS = 1
/**
 * Every request in flight waits behind a slice: with 8 connections searching, slices of up to
 * 5 ms kept searches at 0.33–0.40 of their quiet rate during a pass, 2 ms at 0.55 (bench:sources).
 */
export const MAX_SLICE_MS = 2
const SHARE = 0.25
/**
 * The share of the thread's time long loops take together while requests are in flight: in
 * 2 ms slices, at 0.4, 0.2 and 0.15, 8 connections searched at 0.55, 0.51–0.56 and 0.50–0.74
 * of their quiet rate during a pass of 20,000 listings, which took 26, 30–36 and 37–50 s
 * (9 s with no requests; bench:sources).
 */
export const BUSY_SHARE = 0.15
/**
 * A loop's run counted at one yield at most: the time since it last resumed may include its
 * own waits (a page's read), which are not the thread's time.
 */
const MAX_COUNTED_RUN_MS = 25

/**
 * Requests this thread is answering (the API counts them: src/plugins/requests-in-flight.ts),
 * and the time budget the loops share while there are any.
 */
class BackgroundBudget {
  inFlight = 0
  /** Time loops have waited for the budget, in ms. */
  waitedMs = 0
  #credit = MAX_SLICE_MS
  #at = performance.now()

  #refill (now: number): void {
    this.#credit = this.inFlight === 0 ? MAX_SLICE_MS : Math.min(MAX_SLICE_MS, this.#credit + (now - this.#at) * BUSY_SHARE)
    this.#at = now
  }

  /** A loop ran `ms`; once the budget is spent, waits while requests are in flight until it is back. */
  async spend (ms: number): Promise<void> {
    this.#refill(performance.now())
    this.#credit -= Math.min(ms, MAX_COUNTED_RUN_MS)
    while (this.#credit < 0 && this.inFlight > 0) {
      const before = performance.now()
      await sleep(Math.max(1, Math.ceil(-this.#credit / BUSY_SHARE)))
      const after = performance.now()
      this.waitedMs += after - before
      this.#refill(after)
    }
  }
}

/** The thread's budget: one per thread, as the event loop is. */
export const background = new BackgroundBudget()

export class TimeSlices {
  #since = performance.now()
  #slice = MIN_SLICE_MS

  /** How long this loop may hold the thread before its next turn, in ms. */
  get sliceMs (): number { return this.#slice }

  /** Waits for the next turn of the event loop if this loop has held it for its slice (and, with requests in flight, for the shared budget). */
  async yieldIfDue (): Promise<void> {
    const now = performance.now()
    if (now - this.#since < this.#slice) return
    await nextTurn()
    const turned = performance.now()
    await background.spend(now - this.#since)
    this.#since = performance.now()
    this.#slice = Math.min(MAX_SLICE_MS, Math.max(MIN_SLICE_MS, (turned - now) * SHARE))
  }
}
