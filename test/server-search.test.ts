/** A registration becomes searchable over HTTP: with the embedded indexer, and with a standalone one. */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { test } from 'tap'
import { PROJECT_ROOT } from '../src/paths.js'
import { API_KEY, tempDataDir, validBody } from './support/basics.js'
import { startServer } from './server-process.js'

async function post (url: string, body: unknown, key = API_KEY): Promise<Response> {
  return await fetch(`${url}/api/services`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body)
  })
}

/** Polls catalog search until the service is a hit; false after a deadline generous enough for a loaded machine. */
async function searchUntilFound (url: string, q: string, id: string, deadlineMs = 60_000): Promise<boolean> {
  const until = Date.now() + deadlineMs
  while (Date.now() < until) {
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
  const watcher = spawn(process.execPath, [join(PROJECT_ROOT, 'dist', 'indexer', 'cli.js'), 'watch'], { env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, stdio: 'ignore' })
  t.teardown(() => { watcher.kill('SIGKILL') })
  t.ok(await searchUntilFound(server.url, 'platypus', created.id), 'the standalone indexer makes it searchable')
})
