/**
 * The indexer: tails the store's change feed and mirrors each service into the search
 * engine. The engine stores the checkpoint with the documents and advances it only once
 * they are in, so a crash between batches resumes where it stopped, and replaying a batch
 * is harmless (documents are upserted whole). Sequence numbers are only compared, never
 * counted: the feed may skip numbers.
 */
import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { Logger } from 'pino'
import { TimeSlices } from '../src/lib/time-slices.js'
import type { CatalogStore, ServiceChange } from '../src/store/catalog-store.js'
import type { JapaneseTokenizer } from '../src/search/analysis/tokenizer.js'
import type { SearchDocument, SearchEngine } from '../src/search/search-engine.js'
import { AnalysisCache, toSearchDocument } from './search-document.js'

/**
 * Splits a slice of the change feed into documents to upsert and ids to remove. The indexer runs
 * on the API's thread by default: a batch of 200 is ~70 ms of kuromoji, which requests would
 * wait behind, so it is analysed in `slices`.
 */
async function toIndexChanges (changes: readonly ServiceChange[], tokenizer: JapaneseTokenizer, slices: TimeSlices, cache?: AnalysisCache): Promise<{ documents: SearchDocument[], removedIds: string[] }> {
  const documents: SearchDocument[] = []
  const removedIds: string[] = []
  for (const change of changes) {
    await slices.yieldIfDue()
    if (change.service === null) removedIds.push(change.id)
    else documents.push(toSearchDocument(change.service, change.seq, tokenizer, cache))
  }
  return { documents, removedIds }
}

/** A document's content without its seq: the same content indexed again changes nothing a search sees. */
function contentOf (document: SearchDocument): string {
  return createHash('sha1').update(JSON.stringify({ ...document, seq: 0 })).digest('base64')
}

/** Services whose last written content the indexer remembers (a hash each). */
const WRITTEN_ENTRIES = 8192

export interface IndexerOptions {
  store: CatalogStore
  engine: SearchEngine
  tokenizer: JapaneseTokenizer
  logger: Pick<Logger, 'info' | 'error' | 'debug'>
  /** Changes per batch (one engine transaction each). */
  batchSize?: number
  /** How often to look for changes when nobody calls notify(). */
  pollMs?: number
}

export interface IndexerStatus {
  storeCount: number
  indexCount: number
  checkpoint: number
  latestSeq: number
  /**
   * latestSeq - checkpoint: how far the index is behind in sequence numbers. Sequence numbers
   * are not dense, so this is an upper bound on the changes still to index (0 = caught up).
   */
  lag: number
}

export const DEFAULT_BATCH_SIZE = 200
export const DEFAULT_POLL_MS = 100

export class Indexer {
  readonly #options: Required<IndexerOptions>
  readonly #abort = new AbortController()
  /** Services indexed again with their text unchanged skip the analysis (a pass inserts, then adds provenance). */
  readonly #analyses = new AnalysisCache()
  /**
   * The content last written for recently indexed services: one whose new state indexes to the
   * same document (a source added to its provenance) is not written again, which would only
   * leave the engine a dead copy to collect. Forgotten when the engine's checkpoint is not the
   * one this indexer last wrote.
   */
  readonly #written = new LRUCache<string, string>({ max: WRITTEN_ENTRIES })
  #writtenUpTo = 0
  #wake: (() => void) | undefined
  #running: Promise<void> | undefined
  #caughtUp: Array<{ seq: number, resolve: () => void }> = []

  constructor (options: IndexerOptions) {
    this.#options = { batchSize: DEFAULT_BATCH_SIZE, pollMs: DEFAULT_POLL_MS, ...options }
  }

  /** Applies pending changes in batches until caught up; returns how many were applied. */
  async catchUp (): Promise<number> {
    const { store, engine, tokenizer, batchSize } = this.#options
    const slices = new TimeSlices()
    let applied = 0
    for (;;) {
      const checkpoint = await engine.checkpoint()
      // Someone else wrote the engine (a reindex, a reset): what it holds is no longer known here.
      if (checkpoint !== this.#writtenUpTo) this.#written.clear()
      const changes = await store.changesSince(checkpoint, batchSize)
      if (changes.length === 0) break
      const { documents, removedIds } = await toIndexChanges(changes, tokenizer, slices, this.#analyses)
      const contents = documents.map(contentOf)
      const changed = documents.filter((document, i) => this.#written.get(document.id) !== contents[i])
      const upTo = (changes.at(-1) as { seq: number }).seq
      await engine.apply(changed, upTo, removedIds)
      // Remembered once written: a batch that failed is built again whole.
      documents.forEach((document, i) => this.#written.set(document.id, contents[i] as string))
      for (const id of removedIds) this.#written.delete(id)
      this.#writtenUpTo = upTo
      applied += changes.length
      this.#options.logger.debug({ applied: changes.length, checkpoint: changes.at(-1)?.seq }, 'indexed batch')
    }
    return applied
  }

  /** Runs until stop(): catches up, then waits for notify() or the poll interval. */
  start (): void {
    if (this.#running !== undefined) return
    const signal = this.#abort.signal
    this.#running = (async () => {
      while (!signal.aborted) {
        try {
          await this.catchUp()
          await this.#resolveWaiters()
        } catch (err) {
          this.#options.logger.error({ err }, 'indexing failed; retrying')
        }
        if (signal.aborted) break
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.#options.pollMs)
          this.#wake = () => { clearTimeout(timer); resolve() }
        })
        this.#wake = undefined
      }
    })()
  }

  /** A change was just written: index it now rather than at the next poll. */
  notify (): void {
    this.#wake?.()
  }

  /** Resolves once everything the store holds now is searchable. */
  async waitForCatchUp (): Promise<void> {
    const seq = await this.#options.store.latestSeq()
    if (await this.#options.engine.checkpoint() >= seq) return
    await new Promise<void>((resolve) => {
      this.#caughtUp.push({ seq, resolve })
      this.notify()
    })
  }

  async #resolveWaiters (): Promise<void> {
    if (this.#caughtUp.length === 0) return
    const checkpoint = await this.#options.engine.checkpoint()
    this.#caughtUp = this.#caughtUp.filter((waiter) => (waiter.seq <= checkpoint ? (waiter.resolve(), false) : true))
  }

  async stop (): Promise<void> {
    this.#abort.abort()
    this.#wake?.()
    await this.#running
  }

  /**
   * Rebuilds the whole index from the store; searches use the old index until the swap.
   * It reads the store up to the sequence current at the start; later changes are
   * applied by the watch loop from that checkpoint on. Returns the services indexed.
   */
  async reindex (onProgress: (done: number, total: number) => void = () => {}): Promise<number> {
    const { store, engine, tokenizer, batchSize } = this.#options
    const [total, upTo] = await Promise.all([store.countServices(), store.latestSeq()])
    const slices = new TimeSlices()
    let done = 0
    async function * batches (): AsyncGenerator<SearchDocument[]> {
      let last = 0
      while (last < upTo) {
        const changes = (await store.changesSince(last, batchSize)).filter((change) => change.seq <= upTo)
        if (changes.length === 0) return
        last = (changes.at(-1) as { seq: number }).seq
        // A fresh index holds nothing to remove: tombstones are skipped, and not counted.
        const { documents } = await toIndexChanges(changes, tokenizer, slices)
        done += documents.length
        yield documents
        onProgress(Math.min(done, total), total)
      }
    }
    await engine.rebuild(batches(), upTo)
    return done
  }

  async status (): Promise<IndexerStatus> {
    const { store, engine } = this.#options
    const [storeCount, latestSeq, stats] = await Promise.all([store.countServices(), store.latestSeq(), engine.stats()])
    return { storeCount, indexCount: stats.documents, checkpoint: stats.checkpoint, latestSeq, lag: Math.max(0, latestSeq - stats.checkpoint) }
  }
}
