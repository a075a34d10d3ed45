import { execFile, spawn } from 'node:child_process'
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { promisify } from 'node:util'
import { join } from 'node:path'
import { test, type Test } from 'tap'
import { PROJECT_ROOT } from '../src/paths.js'
import { API_KEY, tempDataDir, validBody } from './helper.js'
import { SERVER_ENTRY, startServer } from './server-process.js'

const run = promisify(execFile)

async function post (url: string, body: unknown, key = API_KEY): Promise<Response> {
  return await fetch(`${url}/api/services`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body)
  })
}

test('a 201 survives kill -9 right after it; SIGTERM closes gracefully', async (t) => {
  const dataDir = tempDataDir(t)
  const env = { DATA_DIR: dataDir, CATALOG_API_KEYS: API_KEY, CATALOG_SEED: 'none' }
  const first = await startServer(env)
  const created = await post(first.url, validBody({ name: '永続性テスト' }))
  t.equal(created.status, 201)
  const service = await created.json() as { id: string }
  first.child.kill('SIGKILL')
  t.equal(await first.exited, 'SIGKILL')

  const second = await startServer(env)
  const fetched = await fetch(`${second.url}/api/services/${service.id}`)
  t.equal(fetched.status, 200)
  t.same(await fetched.json(), service, 'the record is intact after the crash')
  second.child.kill('SIGTERM')
  t.equal(await second.exited, 0, 'SIGTERM exits cleanly')
  t.match(second.output(), /closing/)
})

test('npm start serves the demo catalog on a fresh DATA_DIR', async (t) => {
  const server = await startServer({ DATA_DIR: tempDataDir(t) })
  t.teardown(() => { server.child.kill('SIGKILL') })
  const res = await fetch(`${server.url}/api/services?limit=100`)
  t.equal(res.status, 200)
  t.ok(Number(res.headers.get('x-total-count')) >= 40)
  const health = await (await fetch(`${server.url}/health`)).json() as { status: string }
  t.equal(health.status, 'ok')
})

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

test('operator CLI: help', async (t) => {
  const cli = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'keys.js')
  const env = { PATH: process.env.PATH ?? '', DATA_DIR: join(tempDataDir(t), 'never-created') }
  for (const args of [['--help'], ['-h'], ['help']]) {
    const { stdout } = await run(process.execPath, [cli, ...args], { env })
    t.match(stdout, /usage: npm run keys -- create --name <owner>/, `${args.join(' ')} prints usage`)
    t.match(stdout, /revoke <key id>\s+the key stops working/)
  }
  const unknown = await run(process.execPath, [cli, '--bogus'], { env }).catch((err: Failure) => err)
  t.equal((unknown as Failure).code, 2, 'an unknown option is a usage error')
  t.match((unknown as Failure).stderr, /usage:/)
})

test('operator CLI: create prints a key once, list never shows keys, revoke stops it', async (t) => {
  const dataDir = tempDataDir(t)
  const cli = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'keys.js')
  const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir }
  const created = await run(process.execPath, [cli, 'create', '--name', 'acme'], { env })
  const key = /key: (\S+)/.exec(created.stdout)?.[1] as string
  const id = /created (key_[0-9a-f]+)/.exec(created.stdout)?.[1] as string
  t.match(key, /^x402c_/)
  t.ok(id)

  const server = await startServer({ DATA_DIR: dataDir, CATALOG_SEED: 'none' })
  t.teardown(() => { server.child.kill('SIGKILL') })
  t.equal((await post(server.url, validBody(), key)).status, 201, 'the new key registers services')

  const listed = await run(process.execPath, [cli, 'list'], { env })
  t.match(listed.stdout, new RegExp(`${id}\\tacme\\t.*\\tactive`))
  t.notMatch(listed.stdout, new RegExp(key), 'list never prints the key')

  t.match((await run(process.execPath, [cli, 'revoke', id], { env })).stdout, /revoked/)
  t.equal((await post(server.url, validBody(), key)).status, 401, 'a revoked key is refused at once')
  t.match((await run(process.execPath, [cli, 'list'], { env })).stdout, /revoked 20/)
  t.notMatch(server.output(), new RegExp(key), 'the server never logs the key')

  const unknown = await run(process.execPath, [cli, 'revoke', 'key_nope'], { env }).catch((err: { code: number }) => err)
  t.equal((unknown as { code: number }).code, 1)
  const usage = await run(process.execPath, [cli, 'create'], { env }).catch((err: { code: number }) => err)
  t.equal((usage as { code: number }).code, 2, 'create without --name is a usage error')
})

async function searchUntilFound (url: string, q: string, id: string): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    const body = await (await fetch(`${url}/api/catalog/search?q=${encodeURIComponent(q)}`)).json() as { results: Array<{ service: { id: string } }> }
    if (body.results.some((r) => r.service.id === id)) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return false
}

test('registration → searchable over HTTP, with the embedded indexer', async (t) => {
  const server = await startServer({ DATA_DIR: tempDataDir(t), CATALOG_API_KEYS: API_KEY, CATALOG_SEED: 'none' })
  t.teardown(() => { server.child.kill('SIGKILL') })
  const created = await (await post(server.url, validBody({ name: 'ヤンバルクイナ観察 API', description: 'Sightings of the Okinawa rail' }))).json() as { id: string }
  t.ok(await searchUntilFound(server.url, 'やんばるくいな', created.id), 'found by its hiragana reading')
  t.ok(await searchUntilFound(server.url, 'okinawa', created.id))
})

test('scaled topology: CATALOG_INDEXER=external with a standalone watcher', async (t) => {
  const dataDir = tempDataDir(t)
  const server = await startServer({ DATA_DIR: dataDir, CATALOG_API_KEYS: API_KEY, CATALOG_SEED: 'none', CATALOG_INDEXER: 'external' })
  t.teardown(() => { server.child.kill('SIGKILL') })
  const created = await (await post(server.url, validBody({ name: 'Platypus Tracker' }))).json() as { id: string }
  const health = await (await fetch(`${server.url}/health`)).json() as { search: { indexer: string, lag: number } }
  t.match(health.search, { indexer: 'external', lag: 1 }, 'without a watcher, the change waits')
  const watcher = spawn(process.execPath, [join(PROJECT_ROOT, 'dist', 'src', 'indexer', 'cli.js'), 'watch'], { env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, stdio: 'ignore' })
  t.teardown(() => { watcher.kill('SIGKILL') })
  t.ok(await searchUntilFound(server.url, 'platypus', created.id), 'the standalone indexer makes it searchable')
})
