/**
 * A search thread: holds its own in-memory index (loaded from and following the SQLite
 * index) and answers the queries the API thread sends, so ranking never runs on the
 * thread that serves writes and /health. Queries arrive already analysed: kuromoji stays
 * on the API thread, loaded once per process.
 */
import { parentPort, workerData } from 'node:worker_threads'
import Database from 'better-sqlite3'
import { serveRpc } from '../../../lib/worker-rpc.js'
import { releaseGarbage } from '../../../release-garbage.js'
import { Searcher } from './searcher.js'
import { toWire } from './wire.js'
import type { WorkerAnswer, WorkerRequest } from './pool.js'

const { file } = workerData as { file: string }
const db = new Database(file)
db.pragma('busy_timeout = 5000')
// A bulk load leaves its row objects and outgrown posting arrays behind: collect them at
// once (with --expose-gc, as `npm start` runs) so a reindex while serving does not add
// the garbage of one load to the next copy.
const searcher = new Searcher(db, { afterLoad: releaseGarbage })

// Load before the first query arrives; a failure here is reported with that query.
searcher.warm().catch(() => {})

serveRpc<WorkerRequest, WorkerAnswer>(parentPort as NonNullable<typeof parentPort>, async (request) =>
  request.kind === 'search' ? toWire(await searcher.search(request.query)) : await searcher.stats())
