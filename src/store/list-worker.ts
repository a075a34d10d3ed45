/** The list thread (src/store/list-thread.ts): its own connection to the store, its own list index. */
import { parentPort, workerData } from 'node:worker_threads'
import { SqliteCatalogStore } from './sqlite-store.js'
import type { ListReply, ListRequest } from './list-thread.js'

const { dataDir } = workerData as { dataDir: string }
// The API thread's store opened (and migrated) the file before asking for a list.
const store = new SqliteCatalogStore(dataDir, { migrated: true, pageCacheKib: 1024 })
const port = parentPort as NonNullable<typeof parentPort>

port.on('message', (request: ListRequest) => {
  const { filter, sort, page } = request
  const answer = request.kind === 'json' ? store.listServiceJson(filter, sort, page) : store.listServices(filter, sort, page)
  answer.then(
    // The page's bytes are handed over, not copied (jsonArrayBytes gives them a buffer of their own).
    (result) => { port.postMessage({ id: request.id, result } satisfies ListReply, 'json' in result ? [result.json.buffer] : []) },
    (err: unknown) => { port.postMessage({ id: request.id, error: String((err as Error).message ?? err) } satisfies ListReply) }
  )
})
