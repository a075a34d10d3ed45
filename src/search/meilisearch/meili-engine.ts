/**
 * SearchEngine on Meilisearch (official client). Writes are asynchronous tasks: every
 * write here waits for its task and checks it succeeded before returning, so the indexer
 * advances only past batches the engine really holds.
 *
 * - apply: deletions first (one task), then the documents together with the index's meta
 *   document carrying the new checkpoint (one task: atomic). A crash between the two
 *   leaves the old checkpoint, and the replay is harmless (deleting twice, upserting
 *   whole documents). Documents older than the indexed ones (lower change sequence) are
 *   dropped before writing; this assumes one indexer writes at a time, as the topology runs.
 * - rebuild: a build-aside index with the same settings, filled batch by batch, its meta
 *   document last, then `swapIndexes` (atomic) and the old index dropped.
 * - search: the query words analysed by the catalog's analyzer, filters as escaped filter
 *   expressions, `estimatedTotalHits` as the total.
 */
import { randomUUID } from 'node:crypto'
import { Meilisearch, MeilisearchApiError, type EnqueuedTaskPromise, type Index, type SearchParams, type Task } from 'meilisearch'
import { SearchUnavailableError } from '../../errors.js'
import type { IndexStats, QueryWord, SearchDocument, SearchEngine, SearchQuery, SearchResult } from '../search-engine.js'
import { loadSynonyms } from '../synonyms.js'
import { hasJapanese, META_ID, queryText, queryVariants, toMeiliDocument, type MeiliMetaDocument, type MeiliServiceDocument } from './documents.js'
import { FACET_ATTRIBUTES } from './facets.js'
import { buildFilter, buildSort, idsFilter } from './filter.js'
import { toSearchResult, type MeiliHit } from './results.js'
import { indexSettings, SEARCHABLE_ATTRIBUTES } from './settings.js'

export interface MeilisearchEngineOptions {
  url: string
  /** Master or admin key: settings, documents, swaps. */
  apiKey: string
  /** A search-only key for queries, when the operator gives one. */
  searchKey?: string | undefined
  /** Index uid (default `services`); the build-aside index is `<uid>_build`. */
  indexUid?: string
  /** Longest wait for one task (a large batch or the settings of a big index). */
  taskTimeoutMs?: number
  /** Longest wait for one HTTP request. */
  requestTimeoutMs?: number
}

/** Ids looked up per request when checking which documents are already newer in the index. */
const ID_CHUNK = 500

/** Throws unless the task succeeded (waitTask resolves on failure too). `allowed` error codes count as success. */
export function assertSucceeded (task: Task, what: string, allowed: readonly string[] = []): Task {
  if (task.status === 'succeeded') return task
  if (task.status === 'failed' && task.error !== null && allowed.includes(task.error.code)) return task
  const reason = task.error === null ? task.status : `${task.status}: ${task.error.code}: ${task.error.message}`
  throw new SearchUnavailableError(`Meilisearch task ${task.uid} (${what}) did not succeed (${reason})`)
}

/** One line naming the server and the variable to check. */
export function describeMeiliError (url: string, err: unknown): string {
  if (err instanceof SearchUnavailableError) return err.message
  if (err instanceof MeilisearchApiError) {
    const code = err.cause?.code ?? `HTTP ${err.response.status}`
    const variable = /api_key|authorization/.test(code) ? 'MEILI_MASTER_KEY' : 'MEILI_URL'
    return `Meilisearch at ${url} refused the request (${variable}): ${code}: ${err.cause?.message ?? err.message}`
  }
  // fetch wraps the network error (ECONNREFUSED, ENOTFOUND, a timeout) two levels down.
  let deepest = err as { cause?: unknown, message?: string, code?: string }
  for (let i = 0; i < 5 && typeof deepest.cause === 'object' && deepest.cause !== null; i++) deepest = deepest.cause as typeof deepest
  return `cannot reach Meilisearch at ${url} (MEILI_URL): ${deepest.message ?? deepest.code ?? String(err)}`
}

export class MeilisearchEngine implements SearchEngine {
  readonly #url: string
  readonly #admin: Meilisearch
  readonly #searcher: Meilisearch
  readonly #uid: string
  readonly #buildUid: string
  readonly #synonyms = loadSynonyms()

  private constructor (options: MeilisearchEngineOptions) {
    this.#url = options.url
    const common = {
      host: options.url,
      timeout: options.requestTimeoutMs ?? 10_000,
      defaultWaitOptions: { timeout: options.taskTimeoutMs ?? 120_000, interval: 50 }
    }
    this.#admin = new Meilisearch({ ...common, apiKey: options.apiKey })
    this.#searcher = options.searchKey === undefined ? this.#admin : new Meilisearch({ ...common, apiKey: options.searchKey })
    this.#uid = options.indexUid ?? 'services'
    this.#buildUid = `${this.#uid}_build`
  }

  /** Connects, creates the index if needed and applies its settings; fails with one line naming MEILI_URL or the key. */
  static async open (options: MeilisearchEngineOptions): Promise<MeilisearchEngine> {
    const engine = new MeilisearchEngine(options)
    await engine.#guard(async () => {
      await engine.#admin.health()
      await engine.#prepareIndex(engine.#uid)
    })
    return engine
  }

  async #guard<T> (work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (err) {
      if (err instanceof SearchUnavailableError) throw err
      throw new SearchUnavailableError(describeMeiliError(this.#url, err), { cause: err })
    }
  }

  async #wait (task: EnqueuedTaskPromise, what: string, allowed: readonly string[] = []): Promise<Task> {
    return assertSucceeded(await task.waitTask(), what, allowed)
  }

  #index (uid = this.#uid): Index<MeiliServiceDocument | MeiliMetaDocument> {
    return this.#admin.index(uid)
  }

  async #prepareIndex (uid: string): Promise<void> {
    await this.#wait(this.#admin.createIndex(uid, { primaryKey: 'id' }), `create index ${uid}`, ['index_already_exists'])
    await this.#wait(this.#index(uid).updateSettings(indexSettings()), `settings of ${uid}`)
  }

  async #meta (uid = this.#uid): Promise<MeiliMetaDocument | undefined> {
    try {
      return await this.#index(uid).getDocument(META_ID) as MeiliMetaDocument
    } catch (err) {
      if (err instanceof MeilisearchApiError && err.cause?.code === 'document_not_found') return undefined
      throw err
    }
  }

  /** The documents of a batch not older than what the index holds (the newest per id). */
  async #notOlder (documents: readonly SearchDocument[]): Promise<SearchDocument[]> {
    const newest = new Map<string, SearchDocument>()
    for (const doc of documents) {
      const seen = newest.get(doc.id)
      if (seen === undefined || seen.seq <= doc.seq) newest.set(doc.id, doc)
    }
    const ids = [...newest.keys()]
    const indexed = new Map<string, number>()
    for (let i = 0; i < ids.length; i += ID_CHUNK) {
      const chunk = ids.slice(i, i + ID_CHUNK)
      const page = await this.#index().getDocuments({ filter: idsFilter(chunk), fields: ['id', 'seq'], limit: chunk.length })
      for (const doc of page.results) if ('seq' in doc) indexed.set(doc.id, doc.seq)
    }
    return [...newest.values()].filter((doc) => (indexed.get(doc.id) ?? -1) <= doc.seq)
  }

  async apply (documents: readonly SearchDocument[], checkpoint: number, removedIds: readonly string[] = []): Promise<void> {
    await this.#guard(async () => {
      const current = (await this.#meta())?.checkpoint ?? 0
      const fresh = await this.#notOlder(documents)
      if (removedIds.length > 0) await this.#wait(this.#index().deleteDocuments([...removedIds]), 'delete documents')
      const meta: MeiliMetaDocument = { id: META_ID, checkpoint: Math.max(current, checkpoint), version: randomUUID() }
      await this.#wait(this.#index().addDocuments([...fresh.map(toMeiliDocument), meta], { primaryKey: 'id' }), 'add documents')
    })
  }

  async rebuild (batches: AsyncIterable<readonly SearchDocument[]>, checkpoint: number): Promise<void> {
    await this.#guard(async () => {
      const build = this.#buildUid
      await this.#wait(this.#admin.deleteIndex(build), `drop ${build}`, ['index_not_found'])
      await this.#prepareIndex(build)
      try {
        for await (const batch of batches) {
          if (batch.length > 0) await this.#wait(this.#index(build).addDocuments(batch.map(toMeiliDocument), { primaryKey: 'id' }), `fill ${build}`)
        }
        const meta: MeiliMetaDocument = { id: META_ID, checkpoint, version: randomUUID() }
        await this.#wait(this.#index(build).addDocuments([meta], { primaryKey: 'id' }), `checkpoint of ${build}`)
        await this.#wait(this.#admin.swapIndexes([{ indexes: [this.#uid, build], rename: false }]), `swap ${this.#uid} and ${build}`)
      } finally {
        // After the swap this is the old index; after a failure, the incomplete new one.
        await this.#wait(this.#admin.deleteIndex(build), `drop ${build}`, ['index_not_found'])
      }
    })
  }

  async search (query: SearchQuery): Promise<SearchResult> {
    const q = queryText(query.words, query.prefixLastWord)
    if (q.trim() === '') return { total: 0, totalExact: true, hits: [] }
    return await this.#guard(async () => {
      const filter = buildFilter(query.filter)
      const sort = buildSort(query.sort)
      const facets = (query.facets ?? []).map((f) => FACET_ATTRIBUTES[f])
      const params = (words: readonly QueryWord[]): SearchParams => ({
        ...(filter === undefined ? {} : { filter }),
        ...(sort === undefined ? {} : { sort }),
        // Search-as-you-type keeps the first words; a sentence drops its most common words first.
        matchingStrategy: query.prefixLastWord ? 'last' : 'frequency',
        ...(hasJapanese(words) ? { locales: ['jpn' as const] } : {}),
        attributesToRetrieve: ['id', ...SEARCHABLE_ATTRIBUTES],
        showMatchesPosition: true,
        showRankingScore: true
      })
      const variants = queryVariants(query.words)
      if (variants.length === 1) {
        const response = await this.#searcher.index(this.#uid).search(q, {
          ...params(query.words),
          offset: query.page.offset,
          limit: query.page.limit,
          ...(facets.length === 0 ? {} : { facets })
        })
        return toSearchResult({ ...response, hits: response.hits as MeiliHit[], estimatedTotalHits: response.estimatedTotalHits ?? response.hits.length }, query, this.#synonyms)
      }
      // Romaji readings and kana slips: one federated search, each variant at its weight
      // (a hit found by several keeps its best weighted score; facets merged across them).
      const response = await this.#searcher.multiSearch({
        federation: {
          offset: query.page.offset,
          limit: query.page.limit,
          ...(facets.length === 0 ? {} : { facetsByIndex: { [this.#uid]: facets }, mergeFacets: {} })
        },
        queries: variants.map((variant) => ({
          indexUid: this.#uid,
          q: queryText(variant.words, query.prefixLastWord),
          ...params(variant.words),
          federationOptions: { weight: variant.weight }
        }))
      })
      const estimated = (response as { estimatedTotalHits?: number }).estimatedTotalHits ?? response.hits.length
      return toSearchResult({ hits: response.hits as MeiliHit[], estimatedTotalHits: estimated, ...(response.facetDistribution === undefined ? {} : { facetDistribution: response.facetDistribution }) }, query, this.#synonyms)
    })
  }

  async version (): Promise<string> {
    return await this.#guard(async () => {
      const meta = await this.#meta()
      return meta === undefined ? '0' : `${meta.checkpoint}.${meta.version}`
    })
  }

  async checkpoint (): Promise<number> {
    return await this.#guard(async () => (await this.#meta())?.checkpoint ?? 0)
  }

  async stats (): Promise<IndexStats> {
    return await this.#guard(async () => {
      const [stats, meta] = await Promise.all([this.#index().getStats(), this.#meta()])
      return { documents: stats.numberOfDocuments - (meta === undefined ? 0 : 1), checkpoint: meta?.checkpoint ?? 0 }
    })
  }

  /** Ids of every indexed service (operators' consistency checks and the contract tests). */
  async indexedIds (): Promise<string[]> {
    return await this.#guard(async () => {
      const ids: string[] = []
      for (let offset = 0; ; offset += 1000) {
        const page = await this.#index().getDocuments({ fields: ['id'], limit: 1000, offset })
        ids.push(...page.results.map((doc) => doc.id).filter((id) => id !== META_ID))
        if (page.results.length < 1000) break
      }
      return ids.sort()
    })
  }

  /** Drops the index and its build-aside twin (tests, operators). */
  async drop (): Promise<void> {
    await this.#guard(async () => {
      for (const uid of [this.#uid, this.#buildUid]) await this.#wait(this.#admin.deleteIndex(uid), `drop ${uid}`, ['index_not_found'])
    })
  }

  async close (): Promise<void> {
    // The client holds no connection of its own (fetch).
  }
}
