/**
 * A writer process for the change feed's concurrency contract: opens the store that
 * argv[2] configures (openCatalogStore's argument, as JSON) through the composition root,
 * says "ready", waits for a line on stdin, then inserts, updates and deletes `argv[4]`
 * services of its own (ids and endpoints named after `argv[3]`) and exits 0.
 */
import { once } from 'node:events'
import { openCatalogStore } from '../../src/adapters.js'
import { serviceIdForEndpoint } from '../../src/domain/ids.js'
import { readSeedFile, seedRecords } from '../../src/domain/seed.js'
import type { ServiceRecord } from '../../src/domain/service.js'

const [config, name, count] = [JSON.parse(process.argv[2] ?? '{}') as Parameters<typeof openCatalogStore>[0], process.argv[3] ?? 'writer', Number(process.argv[4])]
const template = seedRecords(readSeedFile('demo').slice(0, 1), '2026-01-01T00:00:00.000Z')[0] as ServiceRecord
const record = (i: number): ServiceRecord => {
  const endpoint = `https://${name}.example/api/${i}`
  return { ...template, id: serviceIdForEndpoint(endpoint), endpoint, name: `${name} ${i}` }
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
