/** npm run prober as a real process: it probes what the API registered in the shared DATA_DIR. */
import { test } from 'tap'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../src/paths.js'
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js'
import { build, register, tempDataDir, validBody } from '../helper.js'
import { startX402Server } from '../support/x402-servers.js'

const PROBER_ENTRY = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'prober.js')
const PAY_TO = '0x1111111111111111111111111111111111111111'

function run (env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, [PROBER_ENTRY, ...args], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)))
  return { child, exited, output: () => output }
}

test('the external prober verifies a registration made by an API with CATALOG_PROBER=external', async (t) => {
  const dir = tempDataDir(t)
  const server = await startX402Server({ payTo: PAY_TO })
  t.teardown(server.close)
  const app = await build(t, { seed: 'none', dataDir: dir, probeIntervalS: 3600, prober: 'external' })
  await app.ready()
  const id = (await register(app, validBody({ endpoint: server.url, x402Config: { paymentAddress: PAY_TO, network: 'base' } }))).json().id as string
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.equal((await app.inject(`/api/services/${id}/status`)).json().lastProbe, null, 'the API process does not probe')

  const prober = run({ DATA_DIR: dir, CATALOG_PROBE_INTERVAL_S: '3600', CATALOG_PROBE_ALLOW_PRIVATE: '1' })
  t.teardown(() => { prober.child.kill('SIGKILL') })
  const end = Date.now() + 15_000
  let status = 'unverified'
  while (status !== 'verified' && Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    status = (await app.inject(`/api/services/${id}/status`)).json().status
  }
  t.equal(status, 'verified', prober.output())
  await new Promise((resolve) => setTimeout(resolve, 500))
  t.equal(prober.child.exitCode, null, 'idle, it keeps running for the next interval')
  prober.child.kill('SIGTERM')
  const code = await prober.exited
  t.equal(code, 0, `stops cleanly (${String(code)}) ${prober.output()}`)
  const store = new SqliteCatalogStore(dir)
  t.teardown(async () => { await store.close() })
  t.ok(await store.acquireLease('prober', 'next', 1000, Date.now()), 'and gives its lease up')
})

test('with scheduled probing off there is nothing to run', async (t) => {
  const prober = run({ DATA_DIR: tempDataDir(t), CATALOG_PROBE_INTERVAL_S: '0' })
  t.equal(await prober.exited, 1, 'a configuration problem, not a usage error')
  t.match(prober.output(), /^x402-catalog: CATALOG_PROBE_INTERVAL_S is 0/)
  const bad = run({ DATA_DIR: tempDataDir(t), CATALOG_PROBE_TIMEOUT_MS: 'x' })
  t.equal(await bad.exited, 1)
  t.match(bad.output(), /^x402-catalog: CATALOG_PROBE_TIMEOUT_MS/)
})

test('--help prints usage and starts nothing; an unknown argument is refused', async (t) => {
  const dataDir = tempDataDir(t)
  const help = run({ DATA_DIR: dataDir }, ['--help'])
  t.equal(await help.exited, 0)
  t.match(help.output(), /^usage: npm run prober/)
  t.match(help.output(), /CATALOG_PROBER=external/)
  const unknown = run({ DATA_DIR: dataDir }, ['--once'])
  t.equal(await unknown.exited, 2)
  t.match(unknown.output(), /unknown option --once/)
})

test('prober check: exit 0 when the configured store answers (an unreachable one: test/unreachable-servers.test.ts)', async (t) => {
  const ok = run({ DATA_DIR: tempDataDir(t) }, ['check'])
  t.equal(await ok.exited, 0, ok.output())
  t.match(ok.output(), /the store answers/)
  const usage = run({ DATA_DIR: tempDataDir(t) }, ['status'])
  t.equal(await usage.exited, 2)
  t.match(usage.output(), /unknown command "status"[\s\S]*usage: npm run prober/)
})
