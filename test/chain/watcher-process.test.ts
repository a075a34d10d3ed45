/**
 * npm run watcher as a real process (built dist/): killed with SIGKILL in the middle of a
 * scan, then started again, it counts every payment exactly once. A proxy in front of anvil
 * refuses getLogs over more than a few blocks (like public RPCs) and slows each answer, so
 * the scan takes many commits and the kill lands between them.
 */
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'tap'
import { PROJECT_ROOT } from '../../src/paths.js'
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js'
import { parseChains } from '../../src/chain/config.js'
import { build, register, tempDataDir, validBody } from '../helper.js'
import { NETWORK, mintUsdc, newAddress, newPayer, pay, payingFetch, setupChain, startPaidServer, startRpcProxy, until } from '../support/chain.js'

const WATCHER_ENTRY = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'watcher.js')
const PAYMENTS = 12
const MAX_BLOCKS = 2

function run (env: Record<string, string>) {
  const child = spawn(process.execPath, [WATCHER_ENTRY], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)))
  return { child, exited, output: () => output }
}

test('kill -9 during a scan, then a restart: every payment counted once', async (t) => {
  const chain = await setupChain(t)
  const proxy = await startRpcProxy(chain.anvil.rpcUrl, {
    delayMs: 50,
    fail: (_n, request) => {
      if (request.method !== 'eth_getLogs') return undefined
      const filter = (request.params[0] ?? {}) as { fromBlock?: string, toBlock?: string }
      const blocks = Number(filter.toBlock) - Number(filter.fromBlock) + 1
      return blocks > MAX_BLOCKS ? { status: 200, body: { jsonrpc: '2.0', id: '$id', error: { code: -32005, message: `query exceeds max block range ${MAX_BLOCKS}` } } } : undefined
    }
  })
  t.teardown(proxy.close)
  const payTo = newAddress()
  const payers = [newPayer(), newPayer(), newPayer()]
  await mintUsdc(chain.anvil.rpcUrl, chain.usdc, payers.map((p) => p.address), 1_000_000n)
  const server = await startPaidServer({ rpcUrl: chain.anvil.rpcUrl, usdc: chain.usdc.address, payTo, amount: 1000n, facilitator: chain.facilitator })
  t.teardown(server.close)
  for (let i = 0; i < PAYMENTS; i++) await pay(server.url, payingFetch(payers[i % 3] as typeof payers[0], chain.usdc.address))

  const dir = tempDataDir(t)
  const chainsFile = join(dir, 'chains.json')
  const entry = chain.chainEntry({ rpcUrl: proxy.url })
  writeFileSync(chainsFile, JSON.stringify([entry]))
  const app = await build(t, { seed: 'none', dataDir: dir, chains: parseChains(JSON.stringify([entry])), watcher: 'external' })
  await app.ready()
  const res = await register(app, validBody({ endpoint: server.url, x402Config: { paymentAddress: payTo, network: NETWORK } }))
  t.equal(res.statusCode, 201, 'registered')
  const count = async (): Promise<number> => (await app.store.listPayments({ network: NETWORK, payTo: payTo.toLowerCase() }, { limit: 1, offset: 0 })).total
  const env = { DATA_DIR: dir, CATALOG_CHAINS: chainsFile, CATALOG_CHAIN_POLL_MS: '100' }

  const first = run(env)
  t.teardown(() => { first.child.kill('SIGKILL') })
  const seen = await until('some payments stored, not all', 90_000, async () => {
    const n = await count()
    return n > 0 ? n : undefined
  })
  first.child.kill('SIGKILL')
  t.equal(await first.exited, 'SIGKILL')
  t.ok(seen < PAYMENTS, `killed mid-scan with ${seen} of ${PAYMENTS} stored`)

  // A killed holder's lease lasts its 30 s TTL; give it up as its expiry would, to keep the test short.
  const holder = /"holder":"([^"]+)"/.exec(first.output())?.[1]
  t.ok(holder, 'the watcher logged its lease holder')
  const store = new SqliteCatalogStore(dir)
  await store.releaseLease('chain-watcher', holder as string)
  await store.close()

  const second = run(env)
  t.teardown(() => { second.child.kill('SIGKILL') })
  await until('every payment stored', 90_000, async () => (await count()) >= PAYMENTS ? true : undefined)
  const service = await until('usage computed', 90_000, async () => {
    const s = await app.store.getService(res.json().id as string)
    return s?.usage?.txCount === PAYMENTS ? s : undefined
  })
  t.match(service.usage, { txCount: PAYMENTS, revenueAtomic: String(1000 * PAYMENTS), uniquePayers: 3 })
  t.equal(await count(), PAYMENTS, 'no payment counted twice')
  second.child.kill('SIGTERM')
  t.equal(await second.exited, 0, `stops cleanly: ${second.output().slice(-500)}`)
})
