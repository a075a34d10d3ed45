/** The answer of /health (src/routes/health.ts), 200 and 503 alike. */
import { Type } from '@sinclair/typebox'

const State = Type.Union([Type.Literal('ok'), Type.Literal('error')])

export const HealthSchema = Type.Object({
  status: State,
  store: Type.Object({
    status: State,
    services: Type.Optional(Type.Integer()),
    message: Type.Optional(Type.String())
  }),
  search: Type.Object({
    status: State,
    engine: Type.String({ description: 'Search engine adapter' }),
    indexer: Type.String({ description: 'embedded (in this process) or external (npm run indexer -- watch)' }),
    documents: Type.Optional(Type.Integer({ description: 'Services in the search index' })),
    checkpoint: Type.Optional(Type.Integer({ description: 'Last change-feed sequence indexed' })),
    lag: Type.Optional(Type.Integer({ description: 'Change-feed distance between the store and the index: an upper bound on the changes not yet indexed' })),
    message: Type.Optional(Type.String())
  }),
  chains: Type.Object({
    watcher: Type.String({ description: 'embedded (in this process) or external (npm run watcher)' }),
    networks: Type.Array(Type.Object({
      network: Type.String({ description: 'CAIP-2 id' }),
      scannedBlock: Type.Union([Type.Integer(), Type.Null()], { description: 'Payments up to this block are counted' }),
      head: Type.Union([Type.Integer(), Type.Null()], { description: "The chain's newest block as last read" }),
      lag: Type.Union([Type.Integer(), Type.Null()], { description: 'head − scannedBlock (the confirmation depth included)' }),
      backfilling: Type.Integer({ description: 'payTos still being scanned from startBlock' }),
      lastError: Type.Union([Type.String(), Type.Null()], { description: "The last failed step's error (external mode: whether this process reaches the RPC)" }),
      lastErrorAt: Type.Union([Type.String(), Type.Null()])
    }), { description: 'One per network CATALOG_CHAINS names; empty when nothing is watched' })
  })
})
