import { test } from 'tap'
import { build } from '../helper.js'

test('health: 503 naming the search engine when it stops answering, with the store still ok', async (t) => {
  const app = await build(t)
  t.match((await app.inject('/health')).json(), { status: 'ok', search: { status: 'ok', engine: 'sqlite' } })
  await app.searchIndex.indexer.stop()
  await app.searchIndex.engine.close()
  const res = await app.inject('/health')
  t.equal(res.statusCode, 503)
  t.match(res.json(), { status: 'error', store: { status: 'ok' }, search: { status: 'error', engine: 'sqlite', message: /\S/ } })
})
