/**
 * Requests to a worker thread (node:worker_threads) and their answers, matched by id. The
 * SQLite store's list thread and the SQLite search threads both use it.
 *
 * What it guarantees: every request settles. It is answered, or rejected when its thread
 * reports an error, exits, is closed or cannot take the message. A thread that failed
 * never receives another request: the next request starts a new one. Each thread keeps its
 * own pending requests, so a dying thread fails exactly the requests it held. A thread is
 * referenced (keeps the process alive) only while it has requests pending: a CLI awaiting
 * an answer must not exit, an idle server must be able to.
 *
 * Why close() rejects the pending requests at once instead of on the thread's 'exit' event:
 * Node still delivers the replies a thread posted before it stopped, so a request could be
 * answered or rejected depending on timing; rejecting them when the termination is asked
 * makes the outcome depend on the caller's order of calls only. It also keeps the thread
 * referenced until it has exited: the list thread's own RPC unreferenced its worker when a
 * late reply emptied its pending map, undoing the reference Worker.terminate() takes, so
 * the process could run out of work and exit before the exit came, leaving the request and
 * the termination unsettled (test/lib/worker-rpc.test.ts closes with a reply in the queue).
 */
import { Worker, type ResourceLimits } from 'node:worker_threads'

/** What the worker side posts back for request `id`. */
export type RpcReply<A> = { id: number, value: A } | { id: number, error: string }
/** What the worker side receives. */
export interface RpcRequest<Q> { id: number, request: Q }

export interface WorkerRpcOptions {
  /** The worker's module. */
  url: URL
  workerData?: unknown
  resourceLimits?: ResourceLimits
  /** Makes the error a request is rejected with (the adapter's typed error). */
  failure: (message: string, cause?: unknown) => Error
  /** Names the thread in messages, e.g. 'the list thread'. */
  name: string
}

interface Pending { resolve: (value: never) => void, reject: (err: Error) => void }

interface Thread {
  worker: Worker
  pending: Map<number, Pending>
  /** Failed, exited or told to terminate: takes no more requests. */
  done: boolean
}

/** The worker side: answers each request with `handle`, an error as its message. */
export function serveRpc<Q, A> (port: { on: (event: 'message', listener: (message: RpcRequest<Q>) => void) => unknown, postMessage: (message: RpcReply<A>) => void }, handle: (request: Q) => Promise<A>): void {
  port.on('message', ({ id, request }) => {
    handle(request).then(
      (value) => { port.postMessage({ id, value }) },
      (err: unknown) => { port.postMessage({ id, error: err instanceof Error ? err.message : String(err) }) }
    )
  })
}

export class WorkerRpc<Q, A> {
  #thread: Thread | undefined
  #nextId = 0
  #closed = false

  constructor (readonly options: WorkerRpcOptions) {}

  /** Requests waiting for an answer. */
  get pending (): number { return this.#thread?.pending.size ?? 0 }

  /** Starts the thread now if none runs (a thread that loads an index warms up early). */
  start (): void {
    if (!this.#closed) this.#live()
  }

  #live (): Thread {
    const current = this.#thread
    if (current !== undefined && !current.done) return current
    const { url, workerData, resourceLimits, name, failure } = this.options
    const worker = new Worker(url, { workerData, resourceLimits })
    const thread: Thread = { worker, pending: new Map(), done: false }
    // Idle until a request comes.
    worker.unref()
    worker.on('message', (reply: RpcReply<A>) => {
      const waiter = thread.pending.get(reply.id)
      if (waiter === undefined) return
      thread.pending.delete(reply.id)
      if (thread.pending.size === 0) worker.unref()
      if ('error' in reply) waiter.reject(failure(`${name} failed: ${reply.error}`))
      else waiter.resolve(reply.value as never)
    })
    worker.on('error', (err) => { this.#fail(thread, failure(`${name} failed: ${err.message}`, err)) })
    worker.on('exit', (code) => { this.#fail(thread, failure(`${name} exited (code ${code})`)) })
    this.#thread = thread
    return thread
  }

  /** Takes the thread out of service and rejects what it held. */
  #fail (thread: Thread, err: Error): void {
    thread.done = true
    if (this.#thread === thread) this.#thread = undefined
    const pending = [...thread.pending.values()]
    thread.pending.clear()
    for (const { reject } of pending) reject(err)
  }

  async call (request: Q): Promise<A> {
    if (this.#closed) throw this.options.failure(`${this.options.name} is closed`)
    const thread = this.#live()
    const id = this.#nextId++
    return await new Promise<A>((resolve, reject) => {
      thread.pending.set(id, { resolve: resolve as (value: never) => void, reject })
      thread.worker.ref()
      try {
        thread.worker.postMessage({ id, request } satisfies RpcRequest<Q>)
      } catch (err) {
        // A value that cannot be cloned: this request fails, the thread is fine.
        thread.pending.delete(id)
        if (thread.pending.size === 0) thread.worker.unref()
        reject(this.options.failure(`${this.options.name} could not be sent a request`, err))
      }
    })
  }

  async close (): Promise<void> {
    this.#closed = true
    const thread = this.#thread
    if (thread === undefined) return
    this.#fail(thread, this.options.failure(`${this.options.name} is closed`))
    await thread.worker.terminate()
  }
}
