/**
 * Checks the change feed's commit-order promise (src/store/catalog-store.ts) the way the
 * indexer relies on it: a tail that only moves forward, each batch's last seq its next
 * checkpoint, must see every service's final state. A store that hands out a number and
 * commits it after a higher one was read makes the tail pass it: missedChanges reports it.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import type { Test } from 'tap'
import type { openCatalogStore } from '../../src/adapters.js'
import { PROJECT_ROOT } from '../../src/paths.js'
import type { CatalogStore, ServiceChange } from '../../src/store/catalog-store.js'

/** openCatalogStore's argument: what another process needs to open the same store. */
export type StoreOpening = Parameters<typeof openCatalogStore>[0]

/** What a consumer of the change feed reads. */
export type Feed = Pick<CatalogStore, 'changesSince'>

const key = (change: ServiceChange): string => `${change.id}@${change.seq}`

/** A consumer tailing a feed from 0, as indexer/indexer.ts does. */
export class FeedTail {
  #checkpoint = 0
  readonly #seen = new Set<string>()

  constructor (private readonly feed: Feed, private readonly batch = 50) {}

  /** Reads one batch after the checkpoint and moves past it; how many changes it held. */
  async step (): Promise<number> {
    const changes = await this.feed.changesSince(this.#checkpoint, this.batch)
    for (const change of changes) this.#seen.add(key(change))
    this.#checkpoint = changes.at(-1)?.seq ?? this.#checkpoint
    return changes.length
  }

  /** Steps until nothing is left after the checkpoint. */
  async catchUp (): Promise<void> {
    while (await this.step() > 0);
  }

  saw (change: ServiceChange): boolean {
    return this.#seen.has(key(change))
  }
}

/** The final states (the whole feed read afresh) a caught-up tail never saw. */
export async function missedChanges (feed: Feed, tail: FeedTail): Promise<ServiceChange[]> {
  const missed: ServiceChange[] = []
  for (let after = 0; ;) {
    const changes = await feed.changesSince(after, 500)
    if (changes.length === 0) return missed
    missed.push(...changes.filter((change) => !tail.saw(change)))
    after = changes.at(-1)?.seq ?? after
  }
}

/**
 * The bug the contract rules out, on purpose: a write takes its number when it begins and
 * becomes visible when it commits, so a slow write can commit below a number already read.
 */
export class NumberedBeforeCommitFeed implements Feed {
  #next = 1
  readonly #committed = new Map<string, ServiceChange>()

  /** Starts a write of a service (its number taken now); `commit` makes it visible. */
  begin (id: string): { commit: () => void } {
    const seq = this.#next++
    return { commit: () => { this.#committed.set(id, { seq, id, service: null }) } }
  }

  async changesSince (afterSeq: number, limit: number): Promise<ServiceChange[]> {
    return [...this.#committed.values()].filter((change) => change.seq > afterSeq).sort((a, b) => a.seq - b.seq).slice(0, limit)
  }
}

/** The writer script, on the built dist/ (a source file: tsc does not copy .mjs files). */
const WRITER = join(PROJECT_ROOT, 'test', 'support', 'feed-writer.mjs')

export interface WriterProcess {
  /** Resolves once the writer has opened the store. */
  ready: Promise<void>
  /** Lets it write. */
  go: () => void
  /** Its exit code (or signal). */
  exited: Promise<number | string>
  output: () => string
}

/** Starts a writer process on the store `opening` names; killed when `t` ends, should it still run. */
export function startWriter (t: Test, opening: StoreOpening, name: string, count: number): WriterProcess {
  const child = spawn(process.execPath, [WRITER, JSON.stringify(opening), name, String(count)], { stdio: ['pipe', 'pipe', 'pipe'] })
  t.teardown(() => { child.kill() })
  let output = ''
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)))
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString()
      if (output.includes('ready\n')) resolve()
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    void exited.then((code) => reject(new Error(`writer ${name} exited (${code}) before it was ready:\n${output}`)))
  })
  return { ready, go: () => { child.stdin.end('go\n') }, exited, output: () => output }
}
