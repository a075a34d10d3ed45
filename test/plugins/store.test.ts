/** The store plugin (src/plugins/store.ts): the seed is loaded into a store that never held a service, and only there. */
import { test } from 'tap'
import { build, tempDataDir } from '../helper.js'

test('a store emptied by deletions is not seeded again on restart', async (t) => {
  const dataDir = tempDataDir(t)
  const first = await build(t, { dataDir })
  const ids = (await first.store.listServices({}, { field: 'name', order: 'asc' }, { limit: 1000, offset: 0 })).items.map((r) => r.id)
  t.ok(ids.length > 0, 'the demo catalog was loaded')
  for (const id of ids) await first.store.deleteService(id)
  await first.close()
  const second = await build(t, { dataDir })
  t.equal(await second.store.countServices(), 0)
})
