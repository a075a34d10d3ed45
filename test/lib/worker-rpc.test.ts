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

test('answers, and fails only the requests of a thread that ends, whatever ends it', async (t) => {
  const echo = rpc()
  t.teardown(async () => { await echo.close() })
  t.equal(await echo.call({ echo: 7 }), 7)
  await t.rejects(echo.call({ reject: 'no such page' }), { name: 'StoreUnavailableError', message: /the echo thread failed: no such page/ }, 'an error answer is the adapter\'s typed error')
  t.equal(await echo.call({ echo: 8 }), 8, 'and the thread goes on')

  // Requests pending when the thread is terminated fail at once; one asked after gets a new thread.
  const hanging = [echo.call({ hang: true }), echo.call({ hang: true })]
  t.equal(echo.pending, 2)
  const crashed = echo.crash()
  const after = echo.call({ echo: 9 })
  for (const pending of hanging) await t.rejects(pending, { name: 'StoreUnavailableError', message: /exited/ })
  await crashed
  t.equal(await after, 9, 'a request asked while the thread was ending is answered by the next')

  const exiting = echo.call({ exit: 3 })
  const waiting = echo.call({ hang: true })
  await t.rejects(exiting, /the echo thread exited \(code 3\)/, 'a thread that exits fails its requests')
  await t.rejects(waiting, /exited \(code 3\)/)
  t.equal(await echo.call({ echo: 10 }), 10, 'replaced by the next request')

  const thrown = echo.call({ throwLater: 'boom' })
  await t.rejects(thrown, { name: 'StoreUnavailableError', message: /the echo thread failed: boom/ }, 'an uncaught exception fails the thread\'s requests')
  t.equal(await echo.call({ echo: 11 }), 11)
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
