/**
 * How the first probes of the listings one pass adds reach their endpoints (bench:sources).
 *
 * The generated list's hosts are placed on loopback: one server per address 127.0.1.1 …
 * 127.0.1.N (the prober caps probes per host and per resolved address, so each address is
 * another host), the agent endpoints all on 127.0.2.1, each answering 402 with its item's
 * terms after `latencyMs`, as a live endpoint would. The servers record when each endpoint is first asked and
 * how many requests are in flight, overall and per address. A catalog with scheduled probing
 * every `intervalS` passes over the list; the figures are where in the interval the first
 * probes fall and the peak concurrency, against the prober's caps.
 */
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodePaymentRequiredHeader } from '@x402/core/http'
import { resolveNetwork } from '../src/domain/networks.js'
import { AGENT_HOST, generateBazaarList, startBazaarSource } from './bazaar-list.js'
import { addSource, completePass, startApi } from './source-catalog.js'
import { log, stopChild } from './support.js'

/** The prober's caps the catalog runs with here (its defaults, docs/configuration.md): CATALOG_PROBE_CONCURRENCY, CATALOG_PROBE_PER_HOST. */
export const PROBE_CAPS = { concurrency: 16, perHost: 2 }

interface Targets {
  /** The URL prefix of a generated host's resources. */
  origin: (hostname: string) => string
  /** Registers each item's 402 answer at its resource. */
  answer: (items: readonly unknown[]) => void
  /** performance.now() of the first request for each resource. */
  first: Map<string, number>
  requests: () => number
  peak: () => { inFlight: number, perAddress: number }
  close: () => Promise<void>
}

function hash (text: string): number {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619)
  return h >>> 0
}

/** What a live endpoint with a dynamic price asks of one request (its list item names no amount). */
const DYNAMIC_AMOUNT = '1500'

/** The item's first payment entry as a v2 402 answer (the header a live x402 endpoint sends). */
function paymentRequired (item: Record<string, unknown>): string | undefined {
  const entry = (item.accepts as Array<Record<string, unknown>>)[0]
  if (entry === undefined) return undefined
  const listed = String(entry.amount ?? entry.maxAmountRequired ?? '')
  const amount = /^[1-9]\d*$/.test(listed) ? listed : DYNAMIC_AMOUNT
  const network = resolveNetwork(String(entry.network))
  if (network === undefined) return undefined
  return encodePaymentRequiredHeader({
    x402Version: 2,
    resource: { url: String(item.resource), description: String(item.description ?? entry.description ?? ''), mimeType: 'application/json' },
    accepts: [{ scheme: 'exact', network: network.id as `${string}:${string}`, amount, asset: String(entry.asset), payTo: String(entry.payTo), maxTimeoutSeconds: 60, extra: (entry.extra ?? {}) as Record<string, unknown> }]
  })
}

async function startTargets (addresses: number, latencyMs: number): Promise<Targets> {
  const answers = new Map<string, string>()
  const first = new Map<string, number>()
  let requests = 0
  let inFlight = 0
  let peakInFlight = 0
  let peakPerAddress = 0
  const servers: Server[] = []
  const listen = async (address: string): Promise<string> => {
    let here = 0
    const server = createServer((req, res) => {
      const at = performance.now()
      requests++
      inFlight++
      here++
      peakInFlight = Math.max(peakInFlight, inFlight)
      peakPerAddress = Math.max(peakPerAddress, here)
      res.once('close', () => { inFlight--; here-- })
      const resource = `http://${req.headers.host ?? ''}${(req.url ?? '/').split('?')[0] as string}`
      const header = answers.get(resource)
      // Only the listings' own endpoints count (a probe may ask the origin for other documents).
      if (header !== undefined && !first.has(resource)) first.set(resource, at)
      // Answered after a live endpoint's latency, so probes in flight are seen as such.
      setTimeout(() => {
        if (header === undefined) res.writeHead(404).end()
        else res.writeHead(402, { 'payment-required': header, 'content-type': 'application/json' }).end('{}')
      }, latencyMs)
    })
    server.listen(0, address)
    await once(server, 'listening')
    server.unref()
    servers.push(server)
    return `http://${address}:${(server.address() as AddressInfo).port}`
  }
  const origins: string[] = []
  for (let i = 1; i <= addresses; i++) origins.push(await listen(`127.0.1.${i}`))
  const agents = await listen('127.0.2.1')
  return {
    // Many generated hosts share an address: each goes under a path of its own there.
    origin: (hostname) => hostname === AGENT_HOST ? agents : `${origins[hash(hostname) % origins.length] as string}/${hostname}`,
    answer: (items) => {
      for (const item of items as Array<Record<string, unknown>>) {
        const header = paymentRequired(item)
        if (header !== undefined) answers.set(String(item.resource), header)
      }
    },
    first,
    requests: () => requests,
    peak: () => ({ inFlight: peakInFlight, perAddress: peakPerAddress }),
    close: async () => {
      for (const server of servers) { server.closeAllConnections(); server.close() }
      await Promise.all(servers.map(async (server) => await once(server, 'close')))
    }
  }
}

export interface ProbeSpread {
  items: number
  latencyMs: number
  intervalS: number
  listed: number
  passS: number
  /** First probes by tenth of the interval after the pass started (the last also counts later ones). */
  deciles: number[]
  /** Listings not probed by the end of the watch. */
  unprobed: number
  /** The most first probes in any one second, and the even rate (listed ÷ interval). */
  busiestSecond: number
  evenPerSecond: number
  peakInFlight: number
  peakPerAddress: number
  requests: number
}

/**
 * A fresh catalog probing every `intervalS` passes over an `items` list on loopback endpoints
 * answering after `latencyMs`; watched until every listing was probed or 1.2 intervals after the
 * pass started.
 */
export async function measureProbeSpread (items: number, seed: number, intervalS: number, addresses: number, latencyMs: number): Promise<ProbeSpread> {
  const targets = await startTargets(addresses, latencyMs)
  const list = generateBazaarList(items, seed, targets.origin)
  targets.answer(list.items)
  const source = await startBazaarSource(list.items)
  const dataDir = mkdtempSync(join(tmpdir(), 'x402-bench-sources-probes-'))
  try {
    // One pass: the next is an hour away.
    const api = await startApi('catalog (probes)', dataDir, {
      CATALOG_PROBE_INTERVAL_S: String(intervalS),
      CATALOG_PROBE_CONCURRENCY: String(PROBE_CAPS.concurrency),
      CATALOG_PROBE_PER_HOST: String(PROBE_CAPS.perHost),
      CATALOG_SOURCE_SYNC_INTERVAL_S: '3600'
    })
    source.allowPasses(1)
    const after = new Date().toISOString()
    const sourceId = await addSource(dataDir, source.url, 'bazaar')
    const report = await completePass(api, sourceId, after)
    const passStart = source.passStarts[0] as number
    log(`probes: pass done (seen ${report.seen}, added ${report.added}, refused ${report.refusedCount}); watching the probes for up to ${(intervalS * 1.2).toFixed(0)} s`)
    const deadline = passStart + intervalS * 1200
    while (performance.now() < deadline && targets.first.size < report.added) await new Promise((resolve) => setTimeout(resolve, 500))
    await stopChild(api.child)

    const offsets = [...targets.first.values()].map((at) => (at - passStart) / 1000)
    const deciles = Array.from({ length: 10 }, () => 0)
    const perSecond = new Map<number, number>()
    for (const offset of offsets) {
      const tenth = Math.min(9, Math.max(0, Math.floor((offset / intervalS) * 10)))
      deciles[tenth] = (deciles[tenth] ?? 0) + 1
      perSecond.set(Math.floor(offset), (perSecond.get(Math.floor(offset)) ?? 0) + 1)
    }
    const peak = targets.peak()
    return {
      items,
      latencyMs,
      intervalS,
      listed: report.added,
      passS: (Date.parse(report.finishedAt) - Date.parse(report.startedAt)) / 1000,
      deciles,
      unprobed: Math.max(0, report.added - targets.first.size),
      busiestSecond: Math.max(0, ...perSecond.values()),
      evenPerSecond: report.added / intervalS,
      peakInFlight: peak.inFlight,
      peakPerAddress: peak.perAddress,
      requests: targets.requests()
    }
  } finally {
    await source.close()
    await targets.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
