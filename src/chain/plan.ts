/**
 * What one scan step of a network does, from the stored state (pure: tested without a chain).
 * - Forward: the payTos scanned through the tip are scanned together from the tip to at most
 *   `head − confirmations`, one range at a time; the range's last block becomes the new tip
 *   checkpoint. With no such payTo the tip simply moves to the target.
 * - Backfill: payTos behind the tip (new registrations, changed payTos, never scanned) are
 *   scanned from their own position (`startBlock` when never scanned) up to the tip, the ones
 *   furthest behind first, in bounded ranges, until they join the forward scan.
 */

export interface BlockSpan {
  from: number
  to: number
  payTos: string[]
}

export interface ScanPlan {
  forward: BlockSpan | null
  backfill: BlockSpan | null
}

export interface PlanInput {
  /** Block of the newest checkpoint; startBlock − 1 before the first scan. */
  tip: number
  /** head − confirmations. */
  target: number
  startBlock: number
  /** The payTos (payToKey) of the services on the network. */
  watched: readonly string[]
  /** Per payTo, the block through which it was scanned (ChainScanState.payTos). */
  scanned: Readonly<Record<string, number>>
  /** Blocks per range (the adaptive size). */
  span: number
}

export function scannedThrough (input: Pick<PlanInput, 'startBlock' | 'scanned'>, payTo: string): number {
  return input.scanned[payTo] ?? input.startBlock - 1
}

export function planScan (input: PlanInput): ScanPlan {
  const { tip, target, span } = input
  const current: string[] = []
  const behind: string[] = []
  for (const payTo of input.watched) (scannedThrough(input, payTo) >= tip ? current : behind).push(payTo)

  let forward: BlockSpan | null = null
  if (tip < target) {
    // Nothing to look for: the tip moves at once, and later payTos are backfilled to it.
    forward = { from: tip + 1, to: current.length === 0 ? target : Math.min(target, tip + span), payTos: current }
  }

  let backfill: BlockSpan | null = null
  if (behind.length > 0) {
    const from = Math.min(...behind.map((payTo) => scannedThrough(input, payTo) + 1))
    backfill = { from, to: Math.min(tip, from + span - 1), payTos: behind.filter((payTo) => scannedThrough(input, payTo) + 1 === from) }
  }
  return { forward, backfill }
}

/** Blocks per getLogs: halved when the provider refuses a range, grown back after successes. */
export class RangeSize {
  #size: number
  #successes = 0
  readonly #max: number

  constructor (initial = 2_000, max = 100_000) {
    this.#size = initial
    this.#max = max
  }

  get size (): number {
    return this.#size
  }

  /** False when the range is a single block already: the provider refuses even that. */
  shrink (): boolean {
    this.#successes = 0
    if (this.#size === 1) return false
    this.#size = Math.max(1, Math.floor(this.#size / 2))
    return true
  }

  /** After a few ranges in a row were accepted, try twice as many blocks. */
  grow (): void {
    if (++this.#successes < 3) return
    this.#successes = 0
    this.#size = Math.min(this.#max, this.#size * 2)
  }
}
