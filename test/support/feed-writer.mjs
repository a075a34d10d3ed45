/**
 * A writer process for the change feed's concurrency contract (test/support/feed-order.ts):
 * opens the store that argv[2] configures (openCatalogStore's argument, as JSON) through
 * the composition root, says "ready", waits for a line on stdin, then inserts, updates and
 * deletes argv[4] services of its own (ids and endpoints named after argv[3]) and exits 0.
 * Plain JS on the built dist/ (npm run build): it starts in a second, where compiling the
 * TypeScript sources took twenty on a loaded machine.
 */
import { once } from 'node:events'
import { openCatalogStore } from '../../dist/src/adapters.js'
import { serviceIdForEndpoint } from '../../dist/src/domain/ids.js'
import { readSeedFile, seedRecords } from '../../dist/src/domain/seed.js'

const [config, name, count] = [JSON.parse(process.argv[2] ?? '{}'), process.argv[3] ?? 'writer', Number(process.argv[4])]
const [template] = seedRecords(readSeedFile('demo').slice(0, 1), '2026-01-01T00:00:00.000Z')
const record = (i) => {
  const endpoint = `https://${name}.example/api/${i}`
  return { ...template, id: serviceIdForEndpoint(endpoint), endpoint, resource: endpoint, name: `${name} ${i}` }
}

const store = await openCatalogStore(config)
process.stdout.write('ready\n')
await once(process.stdin, 'data')
for (let i = 0; i < count; i++) {
  await store.insertService(record(i))
  // Updates and deletions of earlier services, interleaved with the inserts: each a new change.
  if (i % 2 === 1) await store.updateService({ ...record(i - 1), name: `${name} ${i - 1} renamed` })
  if (i % 5 === 4) await store.deleteService(record(i - 3).id)
}
await store.close()
