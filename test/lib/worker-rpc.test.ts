/**
 * The worker RPC (src/lib/worker-rpc.ts) the list thread and the search threads use: every
 * request settles, whatever its thread does, and a thread that failed is replaced.
 */
import { test } from 'tap'
import { WorkerRpc } from '../../src/lib/worker-rpc.js'
import { StoreUnavailableError } from '../../src/errors.js'
import type { EchoRequest } from './echo-worker.js'

function rpc (): WorkerRpc<EchoRequest, number> {
  return new WorkerRpc<EchoRequest, number>({
    url: new URL('./echo-worker.js', import.meta.url),
    name: 'the echo thread',
    failure: (message, cause) => new StoreUnavailableError(message, { cause })
  })
}

test('answers, and fails only the requests of a thread that crashes; the next request gets a new thread', async (t) => {
  const echo = rpc()
  t.teardown(async () => { await echo.close() })
  t.equal(await echo.call({ echo: 7 }), 7)
  await t.rejects(echo.call({ reject: 'no such page' }), { name: 'StoreUnavailableError', message: /the echo thread failed: no such page/ }, 'an error answer is the adapter\'s typed error')
  t.equal(await echo.call({ echo: 8 }), 8, 'and the thread goes on')

  // The thread exits abnormally (process.exit in the worker) while requests wait on it.
  const waiting = [echo.call({ hang: true }), echo.call({ hang: true })]
  const exiting = echo.call({ exit: 1 })
  t.equal(echo.pending, 3)
  await t.rejects(exiting, { name: 'StoreUnavailableError', message: /the echo thread exited \(code 1\)/ }, 'a thread that exits fails its requests, saying so')
  for (const pending of waiting) await t.rejects(pending, { name: 'StoreUnavailableError', message: /the echo thread exited \(code 1\)/ }, 'every request it held')
  t.equal(echo.pending, 0)
  t.equal(await echo.call({ echo: 10 }), 10, 'the next request starts a new thread and is answered')

  const thrown = echo.call({ throwLater: 'boom' })
  await t.rejects(thrown, { name: 'StoreUnavailableError', message: /the echo thread failed: boom/ }, 'an uncaught exception fails the thread\'s requests')
  t.equal(await echo.call({ echo: 11 }), 11, 'replaced by the next request')
  t.equal(echo.pending, 0)
})

test('closing fails what is pending and every later request', async (t) => {
  const echo = rpc()
  const pending = t.rejects(echo.call({ hang: true }), { name: 'StoreUnavailableError', message: /closed/ })
  await echo.close()
  await pending
  await t.rejects(echo.call({ echo: 1 }), { name: 'StoreUnavailableError', message: /the echo thread is closed/ })
  await echo.close()
})

test('closing settles a request whose answer is already queued, and completes', async (t) => {
  const echo = rpc()
  t.equal(await echo.call({ echo: 1 }), 1, 'the thread is up')
  const asked = echo.call({ echo: 2 })
  // This thread stays busy while the echo thread answers: its reply waits in the queue and
  // arrives after the close is asked. The process must not run out of work before the
  // thread has exited (an RPC that unreferenced the worker on that late reply let it).
  for (const until = Date.now() + 500; Date.now() < until;);
  const settled = t.rejects(asked, { name: 'StoreUnavailableError', message: /the echo thread is closed/ }, 'rejected when the close was asked: the late answer is dropped')
  await echo.close()
  await settled
})
