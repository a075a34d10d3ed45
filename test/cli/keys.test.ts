/** The keys CLI against a running server: help, create, list, revoke (each CLI is its own process). */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { join } from 'node:path'
import { test } from 'tap'
import { PROJECT_ROOT } from '../../src/paths.js'
import { tempDataDir, validBody } from '../support/basics.js'
import { startServer } from '../server-process.js'

const run = promisify(execFile)

interface Failure { code: number, stdout: string, stderr: string }

async function post (url: string, body: unknown, key: string): Promise<Response> {
  return await fetch(`${url}/api/services`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body)
  })
}

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
  t.equal(listed.stdout.split('\n')[0], 'id\towner\tcreated\tstate', 'a header line names the columns')
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
