/**
 * Requests that probe many endpoints (an origin import) answer within a bound: the work runs
 * as a job on this board, the request waits for it up to the bound, and past it answers 202
 * with the job's URL to follow. Jobs live in the process that runs them, bounded in number
 * and kept a while after they end; only the key that started a job can read it.
 */
import { randomBytes } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import { CatalogError, RateLimitedError } from '../errors.js'

export type JobState = 'running' | 'done' | 'failed'
/** What jobs do; a job's result is the answer of the request of that kind. */
export const JOB_KINDS = ['origin-import'] as const
export type JobKind = typeof JOB_KINDS[number]

/** What a job's reader sees; `result` once it is done, `error` once it failed. */
export interface JobView<T = unknown> {
  id: string
  kind: JobKind
  state: JobState
  startedAt: string
  finishedAt: string | null
  /** Units of work (an import's resources) done so far, of `total`. */
  progress: { done: number, total: number }
  result: T | null
  /** The error answer the request would have had. */
  error: { statusCode: number, code: string, error: string, message: string, field?: string } | null
}

/** What the work is given: a signal that aborts when the app closes, and a counter of units done. */
export interface JobContext { signal: AbortSignal, advance: () => void }

interface Job {
  ownerId: string | null
  view: JobView
  finished: Promise<void>
  endedAtMs: number | null
}

/** A job as it ended: its view, and the error it failed with (null when done). */
export interface JobEnd<T> { view: JobView<T>, error: unknown }

export interface JobBoardOptions {
  /** Jobs kept at once, running or ended; past it the oldest ended ones are forgotten. */
  maxJobs: number
  /** Jobs one key may have running at once. */
  maxRunningPerOwner: number
  /** How long an ended job stays readable. */
  keepMs: number
}

export const DEFAULT_JOB_BOARD: JobBoardOptions = { maxJobs: 200, maxRunningPerOwner: 4, keepMs: 15 * 60_000 }

/** Told of an error that is not the client's (a bug, a store down): the job's reader sees a 500 without its details. */
export type UnexpectedJobError = (err: unknown, view: JobView) => void

export class JobBoard {
  readonly #jobs = new Map<string, Job>()
  readonly #closing = new AbortController()

  constructor (readonly onUnexpected: UnexpectedJobError, readonly options: JobBoardOptions = DEFAULT_JOB_BOARD) {}

  /**
   * Starts `work` as a job of `ownerId`; a RateLimitedError when that key has too many running,
   * or the board is full of running jobs. An error of the work ends the job `failed` with it.
   */
  start<T> (ownerId: string | null, kind: JobKind, total: number, work: (context: JobContext) => Promise<T>): { id: string, view: JobView<T>, finished: Promise<JobEnd<T>> } {
    this.#forget()
    const running = [...this.#jobs.values()].filter((job) => job.view.state === 'running')
    if (running.filter((job) => job.ownerId === ownerId).length >= this.options.maxRunningPerOwner) {
      throw new RateLimitedError(`this key has ${this.options.maxRunningPerOwner} jobs running; follow them (GET /api/jobs/{id}) and start another when one ends`)
    }
    if (this.#jobs.size >= this.options.maxJobs) {
      throw new RateLimitedError(`${this.#jobs.size} jobs are running; try again when one ends`)
    }
    const view: JobView<T> = {
      id: `job_${randomBytes(12).toString('hex')}`,
      kind,
      state: 'running',
      startedAt: new Date().toISOString(),
      finishedAt: null,
      progress: { done: 0, total },
      result: null,
      error: null
    }
    const job: Job = { ownerId, view, finished: Promise.resolve(), endedAtMs: null }
    const end = (): void => {
      view.finishedAt = new Date().toISOString()
      job.endedAtMs = Date.now()
    }
    const context: JobContext = { signal: this.#closing.signal, advance: () => { view.progress.done++ } }
    // Never rejects: nobody may be waiting for it (the request answered 202).
    const finished = (async (): Promise<JobEnd<T>> => {
      try {
        view.result = await work(context)
        view.state = 'done'
        return { view, error: null }
      } catch (err) {
        view.state = 'failed'
        if (err instanceof CatalogError) {
          const { field } = err as CatalogError & { field?: string }
          view.error = { statusCode: err.statusCode, code: err.code, error: STATUS_CODES[err.statusCode] ?? 'Error', message: err.message, ...(field === undefined ? {} : { field }) }
        } else {
          view.error = { statusCode: 500, code: 'INTERNAL_ERROR', error: 'Internal Server Error', message: 'the job failed; the server log has the cause' }
          this.onUnexpected(err, view)
        }
        return { view, error: err }
      } finally {
        end()
      }
    })()
    job.finished = finished.then(() => {})
    this.#jobs.set(view.id, job)
    return { id: view.id, view, finished }
  }

  /** The job as `ownerId` may see it: null for an unknown id, an ended job forgotten, or another key's job. */
  get (id: string, ownerId: string | null): JobView | null {
    this.#forget()
    const job = this.#jobs.get(id)
    return job === undefined || job.ownerId !== ownerId ? null : job.view
  }

  /** Tells running jobs to stop taking new work and waits for them. */
  async close (): Promise<void> {
    this.#closing.abort(new Error('the catalog is shutting down'))
    await Promise.all([...this.#jobs.values()].map(async (job) => await job.finished))
  }

  /** Drops ended jobs past their keeping time, and the oldest ended ones past the board's size. */
  #forget (): void {
    const now = Date.now()
    const ended = [...this.#jobs.entries()].filter(([, job]) => job.endedAtMs !== null)
    for (const [id, job] of ended) if (now - (job.endedAtMs as number) >= this.options.keepMs) this.#jobs.delete(id)
    const over = this.#jobs.size - this.options.maxJobs + 1
    if (over <= 0) return
    const oldest = ended.filter(([id]) => this.#jobs.has(id)).sort(([, a], [, b]) => (a.endedAtMs as number) - (b.endedAtMs as number))
    for (const [id] of oldest.slice(0, over)) this.#jobs.delete(id)
  }
}
