/**
 * The list thread (src/store/sqlite/list-thread.ts): its own connection to the store, its own
 * list index; and the checkpoints of the API thread's writes (CHECKPOINT_EVERY_MS).
 */
import { parentPort, workerData } from 'node:worker_threads'
import { serveRpc } from '../../lib/worker-rpc.js'
import { CHECKPOINT_EVERY_MS, SqliteCatalogStore } from './store.js'
import type { ListAnswer, ListRequest, ListThreadData } from './list-thread.js'

const { dataDir, shared, slotBytes } = workerData as ListThreadData
const bytes = new Uint8Array(shared)
// The API thread's store opened the file and set up its layout before asking for a list. A
// small page cache: a page's rows are random leaves of a table far larger than any cache (190 MB
// at 100k services), so 16 MB of cache bought no measurable speed and cost ~20 MB of RSS.
const store = new SqliteCatalogStore(dataDir, { layoutReady: true, pageCacheKib: 1024 })
// The port keeps the thread alive; a failed checkpoint (the file busy, closing) is retried next time.
setInterval(() => { try { store.checkpoint() } catch {} }, CHECKPOINT_EVERY_MS).unref()

serveRpc<ListRequest, ListAnswer>(parentPort as NonNullable<typeof parentPort>, async (request) => {
  if (request.kind === 'facets') return { facets: await store.countFacets(request.filter) }
  const { filter, sort, page, slot } = request
  if (request.kind === 'records') return { records: await store.listServices(filter, sort, page) }
  const { json, total } = await store.listServiceJson(filter, sort, page)
  if (slot < 0 || json.byteLength > slotBytes) return { total, json }
  bytes.set(json, slot * slotBytes)
  return { total, length: json.byteLength }
})
