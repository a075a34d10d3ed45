/** The API process: a 201 survives kill -9, SIGTERM closes gracefully, npm start serves the demo. */
import { test } from 'tap'
import { API_KEY, tempDataDir, validBody } from './support/basics.js'
import { startServer } from './server-process.js'

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
  // The 201 answer adds what the catalog filled in (categorySource, prefilled) to the service.
  const { categorySource: _source, prefilled: _prefilled, ...service } = await created.json() as { id: string, categorySource: string, prefilled: string[] }
  first.child.kill('SIGKILL')
  t.equal(await first.exited, 'SIGKILL')

  const second = await startServer(env)
  const fetched = await fetch(`${second.url}/api/services/${service.id}`)
  t.equal(fetched.status, 200)
  t.same(await fetched.json(), { ...service, callSchema: null, retired: null, sources: [], ownershipProof: null }, 'the record is intact after the crash')
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
