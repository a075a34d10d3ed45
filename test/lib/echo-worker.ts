/** A worker for test/lib/worker-rpc.test.ts: answers, never answers, fails or dies, as asked. */
import { parentPort } from 'node:worker_threads'
import { serveRpc } from '../../src/lib/worker-rpc.js'

export type EchoRequest = { echo: number } | { hang: true } | { reject: string } | { exit: number } | { throwLater: string }

serveRpc<EchoRequest, number>(parentPort as NonNullable<typeof parentPort>, async (request) => {
  if ('echo' in request) return request.echo
  if ('reject' in request) throw new TypeError(request.reject)
  // A crash: the thread ends abnormally, through its own exit path, without answering.
  if ('exit' in request) process.exit(request.exit)
  // An uncaught exception: the thread reports an error and ends.
  if ('throwLater' in request) setImmediate(() => { throw new RangeError(request.throwLater) })
  return await new Promise<number>(() => {})
})
