/**
 * The watcher's view of an EVM node: the head, a block's hash and time, USDC Transfer and
 * AuthorizationUsed logs, a transaction's sender. Every call is bounded in time and retried
 * with backoff on timeouts, 429, 5xx and resets; a "range too large" refusal is passed up
 * untouched (the scanner halves its range). Counts HTTP requests (benchmarks, /health).
 */
import { createPublicClient, http, parseAbiItem, type Hex, type PublicClient } from 'viem'
import { classifyRpcError } from './rpc-errors.js'

export interface BlockRef {
  number: number
  /** Lower case. */
  hash: string
  /** Unix seconds. */
  timestamp: number
}

export interface TransferLog {
  txHash: string
  logIndex: number
  blockNumber: number
  blockHash: string
  /** Unix seconds when the node includes it in the log (newer nodes do); otherwise read from the block. */
  blockTimestamp: number | undefined
  /** Lower case. */
  from: string
  /** Lower case. */
  to: string
  value: bigint
}

export interface AuthorizationLog {
  txHash: string
  /** Lower case. */
  authorizer: string
}

export interface ChainRpc {
  head: () => Promise<number>
  /** null when the node has no block at that height (yet, or any more after a reorg). */
  block: (number: number) => Promise<BlockRef | null>
  /** The token's Transfer logs to any of `to` in [fromBlock, toBlock]. */
  transfers: (token: string, fromBlock: number, toBlock: number, to: readonly string[]) => Promise<TransferLog[]>
  /** The token's AuthorizationUsed logs by any of `authorizers` in [fromBlock, toBlock]. */
  authorizations: (token: string, fromBlock: number, toBlock: number, authorizers: readonly string[]) => Promise<AuthorizationLog[]>
  /** The sender (`from`) of a transaction; null when the node does not know it. */
  sender: (txHash: string) => Promise<string | null>
  /** HTTP requests sent so far (retries included). */
  readonly requests: number
}

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')
const AUTHORIZATION_USED = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)')

/** Addresses per topic filter: providers cap OR-lists (and request sizes) well above this. */
export const TOPIC_CHUNK = 100

export interface RpcOptions {
  /** Budget of one HTTP request. */
  timeoutMs?: number
  /** Attempts of one call on transient failures. */
  attempts?: number
  /** First pause between attempts; doubled each time, with jitter. */
  backoffMs?: number
  /** Stops waiting between attempts (shutdown). */
  signal?: AbortSignal
}

function chunks<T> (items: readonly T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

async function pause (ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted === true) throw signal.reason
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve() }, ms)
    const onAbort = (): void => { clearTimeout(timer); reject(signal?.reason) }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

export class ViemChainRpc implements ChainRpc {
  readonly #client: PublicClient
  readonly #attempts: number
  readonly #backoffMs: number
  readonly #signal: AbortSignal | undefined
  #requests = 0

  constructor (rpcUrl: string, options: RpcOptions = {}) {
    this.#attempts = options.attempts ?? 4
    this.#backoffMs = options.backoffMs ?? 250
    this.#signal = options.signal
    this.#client = createPublicClient({
      // Retries are ours (counted, classified, stoppable); no block-number cache: the head is the point.
      transport: http(rpcUrl, { timeout: options.timeoutMs ?? 10_000, retryCount: 0, onFetchRequest: () => { this.#requests++ } }),
      cacheTime: 0
    })
  }

  get requests (): number {
    return this.#requests
  }

  async #call<T> (run: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await run()
      } catch (err) {
        if (attempt >= this.#attempts || classifyRpcError(err) !== 'transient') throw err
        const wait = this.#backoffMs * 2 ** (attempt - 1)
        await pause(wait / 2 + Math.random() * wait, this.#signal)
      }
    }
  }

  async head (): Promise<number> {
    return Number(await this.#call(async () => await this.#client.getBlockNumber({ cacheTime: 0 })))
  }

  async block (number: number): Promise<BlockRef | null> {
    try {
      const block = await this.#call(async () => await this.#client.getBlock({ blockNumber: BigInt(number) }))
      return { number: Number(block.number), hash: (block.hash as string).toLowerCase(), timestamp: Number(block.timestamp) }
    } catch (err) {
      if ((err as Error).name === 'BlockNotFoundError') return null
      throw err
    }
  }

  async transfers (token: string, fromBlock: number, toBlock: number, to: readonly string[]): Promise<TransferLog[]> {
    const out: TransferLog[] = []
    for (const group of chunks(to, TOPIC_CHUNK)) {
      const logs = await this.#call(async () => await this.#client.getLogs({
        address: token as Hex, event: TRANSFER, args: { to: group as Hex[] }, fromBlock: BigInt(fromBlock), toBlock: BigInt(toBlock), strict: true
      }))
      for (const log of logs) {
        if (log.removed) continue
        out.push({
          txHash: (log.transactionHash as string).toLowerCase(),
          logIndex: log.logIndex as number,
          blockNumber: Number(log.blockNumber),
          blockHash: (log.blockHash as string).toLowerCase(),
          blockTimestamp: typeof log.blockTimestamp === 'bigint' ? Number(log.blockTimestamp) : undefined,
          from: log.args.from.toLowerCase(),
          to: log.args.to.toLowerCase(),
          value: log.args.value
        })
      }
    }
    return out
  }

  async authorizations (token: string, fromBlock: number, toBlock: number, authorizers: readonly string[]): Promise<AuthorizationLog[]> {
    const out: AuthorizationLog[] = []
    for (const group of chunks(authorizers, TOPIC_CHUNK)) {
      const logs = await this.#call(async () => await this.#client.getLogs({
        address: token as Hex, event: AUTHORIZATION_USED, args: { authorizer: group as Hex[] }, fromBlock: BigInt(fromBlock), toBlock: BigInt(toBlock), strict: true
      }))
      for (const log of logs) {
        if (log.removed) continue
        out.push({ txHash: (log.transactionHash as string).toLowerCase(), authorizer: log.args.authorizer.toLowerCase() })
      }
    }
    return out
  }

  async sender (txHash: string): Promise<string | null> {
    try {
      const tx = await this.#call(async () => await this.#client.getTransaction({ hash: txHash as Hex }))
      return tx.from.toLowerCase()
    } catch (err) {
      if ((err as Error).name === 'TransactionNotFoundError') return null
      throw err
    }
  }
}
