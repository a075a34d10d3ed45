import { test } from 'tap'
import { JobBoard } from '../../src/application/jobs.js'
import { OriginDocumentError } from '../../src/errors.js'

test('a key runs a bounded number of jobs; ended jobs are kept a while, then forgotten', async (t) => {
  const unexpected: unknown[] = []
  const board = new JobBoard((err) => { unexpected.push(err) }, { maxJobs: 3, maxRunningPerOwner: 2, keepMs: 60_000 })
  let release = (): void => {}
  const held = new Promise<void>((resolve) => { release = resolve })
  const a = board.start('owner-a', 'origin-import', 1, async ({ advance }) => { await held; advance(); return 'a' })
  board.start('owner-a', 'origin-import', 1, async () => { await held; return 'b' })
  t.throws(() => board.start('owner-a', 'origin-import', 1, async () => 'c'), { name: 'RateLimitedError', statusCode: 429 }, 'a third running job of one key')
  const other = board.start('owner-b', 'origin-import', 1, async () => { await held; return 'd' })
  t.throws(() => board.start('owner-c', 'origin-import', 1, async () => 'e'), { name: 'RateLimitedError', statusCode: 429 }, 'the board is full of running jobs')
  t.equal(board.get(a.id, 'owner-b'), null, 'another key does not see the job')
  t.match(board.get(a.id, 'owner-a'), { state: 'running', progress: { done: 0, total: 1 }, result: null, finishedAt: null })

  release()
  const ended = await a.finished
  t.match(ended.view, { state: 'done', result: 'a', progress: { done: 1, total: 1 }, error: null })
  t.ok(ended.view.finishedAt !== null)
  await other.finished
  // Full of ended jobs: the oldest ended one makes room for a new one.
  const next = board.start('owner-c', 'origin-import', 0, async () => { throw new OriginDocumentError('https://x.example/.well-known/x402: not JSON') })
  const failed = await next.finished
  t.match(failed.view, { state: 'failed', error: { statusCode: 422, code: 'INVALID_ORIGIN_DOCUMENT' } })
  t.equal(board.get(a.id, 'owner-a'), null, 'the oldest ended job was forgotten for room')
  const bug = await board.start('owner-c', 'origin-import', 0, async () => { throw new TypeError('a bug') }).finished
  t.match(bug.view.error, { statusCode: 500, code: 'INTERNAL_ERROR', message: /server log/ }, 'a bug is not shown to the client')
  t.equal(unexpected.length, 1, 'and is told to the log')
})

test('closing the board aborts what jobs have not begun and waits for them', async (t) => {
  const board = new JobBoard(() => {}, { maxJobs: 10, maxRunningPerOwner: 10, keepMs: 0 })
  let seen: boolean | undefined
  const job = board.start(null, 'origin-import', 1, async ({ signal }) => {
    await new Promise((resolve) => setTimeout(resolve, 50))
    seen = signal.aborted
    return null
  })
  await board.close()
  t.equal(seen, true, 'the job saw the abort before close returned')
  t.equal((await job.finished).view.state, 'done')
  t.equal(board.get(job.id, null), null, 'ended jobs are forgotten after keepMs')
})
