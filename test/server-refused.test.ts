/** Starts the API refuses with one clear line on stderr and exit 1: bad configuration, an unusable DATA_DIR, a store from another build, a port in use. */
import { execFile } from 'node:child_process'
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { promisify } from 'node:util'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { test, type Test } from 'tap'
import { DEMO_FIXTURES } from '../src/domain/seed.js'
import { STORE_LAYOUT } from '../src/store/sqlite/schema.js'
import { STORE_FILE } from '../src/store/sqlite/store.js'
import { tempDataDir } from './support/basics.js'
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

test('a DATA_DIR whose store an earlier build made stops the start with one line, the store left as it was', async (t) => {
  const dataDir = tempDataDir(t)
  const file = join(dataDir, STORE_FILE)
  // As an earlier build left it: WAL, a services table, no layout number (user_version 0).
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.exec('CREATE TABLE services (id TEXT PRIMARY KEY, name TEXT NOT NULL) STRICT')
  db.prepare("INSERT INTO services VALUES ('svc_old', 'Old')").run()
  db.close()
  const before = readFileSync(file)
  const { stderr } = await failedStart(t, { DATA_DIR: dataDir })
  t.equal(stderr, `x402-catalog: DATA_DIR ${dataDir} holds a store made by another build (${STORE_FILE}: store layout 0, this build reads ${STORE_LAYOUT}): ` +
    'move it away and start with an empty DATA_DIR, then re-seed or re-import\n')
  t.ok(readFileSync(file).equals(before), 'the store file is byte for byte as it was')
})

test('a port in use stops the start with one clear line', async (t) => {
  const blocker = createServer()
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { blocker.close() })
  const port = String((blocker.address() as { port: number }).port)
  const failure = await failedStart(t, { DATA_DIR: tempDataDir(t), PORT: port })
  t.match(failure.stderr, new RegExp(`^x402-catalog: cannot listen on 127\\.0\\.0\\.1:${port}: the port is already in use`))
})

// Each problem a seed file can have, and its message: test/domain/seed.test.ts.
test('a bad CATALOG_SEED stops the start with one line naming the file and the item, leaving no store behind', async (t) => {
  const dir = tempDataDir(t)
  const dataDir = join(dir, 'data')
  mkdirSync(dataDir)
  const [first, second] = JSON.parse(readFileSync(DEMO_FIXTURES, 'utf8')) as [Record<string, unknown>, Record<string, unknown>]
  const { name: _name, ...nameless } = second
  const seed = join(dir, 'no-name.json')
  writeFileSync(seed, JSON.stringify([first, nameless]))
  const { stderr } = await failedStart(t, { DATA_DIR: dataDir, CATALOG_SEED: seed })
  t.equal(stderr, `x402-catalog: CATALOG_SEED ${seed}: item 1 (name): is required\n`)
  t.same(readdirSync(dataDir), [], 'nothing left in DATA_DIR')
})
