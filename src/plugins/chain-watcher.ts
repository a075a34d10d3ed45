/**
 * The chain watcher (src/chain/): counts the x402 settlements to listed payTos on the
 * networks CATALOG_CHAINS names. Runs in this process with CATALOG_WATCHER=embedded (the
 * default); with `external`, `npm run watcher` runs it and /health reads its progress from
 * the store and the head from the RPC (bounded, cached), without its last error.
 */
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.js'
import type { ChainConfig } from '../chain/config.js'
import { describeRpcError } from '../chain/rpc-errors.js'
import type { NetworkStatus } from '../chain/watcher.js'

declare module 'fastify' {
  interface FastifyInstance {
    chainWatcher: {
      mode: 'embedded' | 'external'
      /** Per watched network: scanned block, head, lag, last error. Never throws; bounded in time. */
      statuses: () => Promise<NetworkStatus[]>
    }
  }
}

/** How long /health waits for a head in the external mode, and how long it reuses one. */
const HEAD_TIMEOUT_MS = 2_000
const HEAD_CACHE_MS = 10_000

export default fp(async function chainWatcherPlugin (app: FastifyInstance, opts: { config: Config }) {
  const { config } = opts
  if (config.chains.length === 0) {
    // Nothing to watch: viem (some 400 modules) is not loaded at all.
    app.decorate('chainWatcher', { mode: config.watcher, statuses: async () => [] })
    return
  }
  const [{ ChainWatcher }, { ViemChainRpc }] = await Promise.all([import('../chain/watcher.js'), import('../chain/rpc.js')])
  const log = app.log.child({ component: 'chain-watcher' })
  if (config.watcher === 'embedded') {
    const watcher = new ChainWatcher({ store: app.store, chains: config.chains, logger: log, pollMs: config.chainPollMs })
    app.decorate('chainWatcher', { mode: 'embedded', statuses: async () => watcher.statuses() })
    app.addHook('onReady', async () => { watcher.start() })
    app.addHook('preClose', async () => { await watcher.stop() })
    return
  }
  const heads = new Map<string, { at: number, head: number | null, error: string | null }>()
  const rpcs = new Map(config.chains.map((chain) => [chain.network, new ViemChainRpc(chain.rpcUrl, { timeoutMs: HEAD_TIMEOUT_MS, attempts: 1 })]))
  const headOf = async (chain: ChainConfig): Promise<{ head: number | null, error: string | null }> => {
    const cached = heads.get(chain.network)
    if (cached !== undefined && Date.now() - cached.at < HEAD_CACHE_MS) return cached
    let fresh: { at: number, head: number | null, error: string | null }
    try {
      fresh = { at: Date.now(), head: await (rpcs.get(chain.network) as InstanceType<typeof ViemChainRpc>).head(), error: null }
    } catch (err) {
      fresh = { at: Date.now(), head: null, error: describeRpcError(err, [chain.rpcUrl]) }
    }
    heads.set(chain.network, fresh)
    return fresh
  }
  app.decorate('chainWatcher', {
    mode: 'external',
    statuses: async () => await Promise.all(config.chains.map(async (chain): Promise<NetworkStatus> => {
      const [state, { head, error }] = await Promise.all([app.store.getChainScanState(chain.network).catch(() => null), headOf(chain)])
      const scannedBlock = state?.checkpoints[0]?.blockNumber ?? null
      const behind = state === null ? 0 : Object.values(state.payTos).filter((block) => block < (scannedBlock ?? -1)).length
      return {
        network: chain.network,
        scannedBlock,
        head,
        lag: head !== null && scannedBlock !== null ? Math.max(0, head - scannedBlock) : null,
        backfilling: behind,
        // The watcher's own errors are in its log; this process only knows whether it reaches the RPC.
        lastError: error,
        lastErrorAt: error === null ? null : new Date().toISOString()
      }
    }))
  })
}, { name: 'chain-watcher', dependencies: ['store'] })
