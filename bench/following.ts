/**
 * One catalog following another (bench:sources): a `catalog` source on the follower points at
 * the leader's GET /api/changes. After the follower's first whole read of the leader's catalog,
 * listings are registered on the leader with an API key one at a time (each paid endpoint on
 * loopback, bench/paid-endpoints.ts, since registration probes it), a random 0.5–2.5 s apart so
 * they land at every phase of the follow interval; each is timed from its POST until the
 * follower's GET /api/services/:id answers 200 (a followed listing keeps the leader's id).
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { STORE_FILE } from '../src/store/sqlite/store.js'
import { generateServices, prng, registrationBody } from './generate.js'
import { startPaidEndpoints } from './paid-endpoints.js'
import { addSource, completePass, passSeconds, startApi } from './source-catalog.js'
import { log, median, stopChild } from './support.js'

const API_KEY = 'bench-sources-follow-0123456789'
/** The follower's GET /api/services/:id is asked this often (the figure's resolution). */
const POLL_MS = 25

export interface Following {
  /** The follower's first whole read of the leader's catalog. */
  firstReadS: number
  firstReadSeen: number
  /** Registration → on the follower, seconds, in registration order. */
  lags: number[]
  median: number
  max: number
}

/** `template` holds the leader's catalog (a generated store); `registrations` are timed. */
export async function measureFollowing (template: string, registrations: number, seed: number): Promise<Following> {
  const leaderDir = mkdtempSync(join(tmpdir(), 'x402-bench-sources-leader-'))
  const followerDir = mkdtempSync(join(tmpdir(), 'x402-bench-sources-follower-'))
  const endpoints = await startPaidEndpoints()
  try {
    copyFileSync(join(template, STORE_FILE), join(leaderDir, STORE_FILE))
    const leader = await startApi('leader catalog', leaderDir, { CATALOG_API_KEYS: API_KEY })
    // The follow interval is the default (CATALOG_SOURCE_FOLLOW_INTERVAL_S): what an operator gets.
    const follower = await startApi('follower catalog', followerDir, {})
    const after = new Date().toISOString()
    const sourceId = await addSource(followerDir, leader.url, 'catalog')
    const first = await completePass(follower, sourceId, after)
    log(`following: first whole read of the leader, ${first.seen} changes in ${passSeconds(first).toFixed(1)} s`)

    const random = prng(seed)
    const entries = generateServices(registrations, seed, 5_000_000)
    const lags: number[] = []
    for (const [i, entry] of entries.entries()) {
      await new Promise((resolve) => setTimeout(resolve, 500 + random() * 2000))
      const body = endpoints.list(registrationBody(entry), `follow-${i}`)
      const started = performance.now()
      const res = await fetch(`${leader.url}/api/services`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
      const text = await res.text()
      if (res.status !== 201) throw new Error(`registration ${i} on the leader answered ${res.status}: ${text}`)
      const location = res.headers.get('location') as string
      for (;;) {
        if ((await fetch(`${follower.url}${location}`)).status === 200) break
        if (performance.now() - started > 60_000) throw new Error(`${location} did not reach the follower within 60 s`)
        await new Promise((resolve) => setTimeout(resolve, POLL_MS))
      }
      lags.push((performance.now() - started) / 1000)
    }
    await stopChild(follower.child)
    await stopChild(leader.child)
    log(`following: ${lags.map((lag) => lag.toFixed(2)).join(', ')} s`)
    return { firstReadS: passSeconds(first), firstReadSeen: first.seen, lags, median: median(lags), max: Math.max(...lags) }
  } finally {
    await endpoints.close()
    rmSync(leaderDir, { recursive: true, force: true })
    rmSync(followerDir, { recursive: true, force: true })
  }
}
