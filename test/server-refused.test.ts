/** Starts the API refuses with one clear line on stderr and exit 1: bad configuration, an unusable DATA_DIR, a port in use. */
import { execFile } from 'node:child_process'
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { promisify } from 'node:util'
import { join } from 'node:path'
import { test, type Test } from 'tap'
import { tempDataDir } from './helper.js'
import { SERVER_ENTRY } from './server-process.js'

const run = promisify(execFile)

test('bad configuration stops the start with a clear message', async (t) => {
  const result = await run(process.execPath, [SERVER_ENTRY], { env: { PATH: process.env.PATH ?? '', PORT: 'eighty' } }).catch((err: { code: number, stderr: string }) => err)
  t.equal((result as { code: number }).code, 1)
  t.match((result as { stderr: string }).stderr, /PORT must be an integer/)
  t.notMatch((result as { stderr: string }).stderr, /at .*\.js:\d+/, 'no stack trace for an operator mistake')
})

interface Failure { code: number, stdout: string, stderr: string }

/** Runs the server expecting it to fail at start; `uid` runs it as another user (needs root). */
async function failedStart (t: Test, env: Record<string, string>, uid?: number): Promise<Failure> {
  // As another user the child must not load tap's coverage hooks (they write to .tap/ as that user).
  const [command, args] = uid === undefined ? [process.execPath, [SERVER_ENTRY]] : ['/usr/bin/env', ['-u', 'NODE_OPTIONS', process.execPath, SERVER_ENTRY]]
  const result = await run(command, args, {
    env: { PATH: process.env.PATH ?? '', PORT: '0', CATALOG_SEED: 'none', LOG_LEVEL: 'warn', ...env },
    timeout: 30_000,
    ...(uid === undefined ? {} : { uid, gid: uid })
  }).then(() => ({ code: 0, stdout: '', stderr: '' }), (err: Failure) => err)
  t.equal(result.code, 1, 'exits 1')
  const lines = result.stderr.trim().split('\n')
  t.equal(lines.length, 1, `one line on stderr: ${result.stderr}`)
  t.notMatch(result.stderr, /\n\s+at |\.js:\d+/, 'no stack trace')
  return result
}

test('unusable DATA_DIR stops the start with one clear line', async (t) => {
  const dir = tempDataDir(t)
  const file = join(dir, 'not-a-dir')
  writeFileSync(file, 'x')
  t.match((await failedStart(t, { DATA_DIR: file })).stderr, /^x402-catalog: DATA_DIR .*not-a-dir is not a directory/)
  t.match((await failedStart(t, { DATA_DIR: join(file, 'below') })).stderr, /DATA_DIR .*below is not a directory/, 'a path through a file')

  chmodSync(dir, 0o755)
  const readOnly = join(dir, 'read-only')
  mkdirSync(readOnly)
  chmodSync(readOnly, 0o555)
  // Root may write anywhere: run the server as an unprivileged user to see the refusal.
  const uid = process.getuid?.() === 0 ? 65534 : undefined
  t.match((await failedStart(t, { DATA_DIR: readOnly }, uid)).stderr, /^x402-catalog: DATA_DIR .*read-only is not readable and writable/)
})

test('a port in use stops the start with one clear line', async (t) => {
  const blocker = createServer()
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { blocker.close() })
  const port = String((blocker.address() as { port: number }).port)
  const failure = await failedStart(t, { DATA_DIR: tempDataDir(t), PORT: port })
  t.match(failure.stderr, new RegExp(`^x402-catalog: cannot listen on 127\\.0\\.0\\.1:${port}: the port is already in use`))
})
