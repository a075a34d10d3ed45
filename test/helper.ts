/** Test helpers: an app on a real SQLite file in a temp DATA_DIR, torn down with the test. */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildApp, type AppOptions } from '../src/app.js'
import { loadConfig, type Config } from '../src/config.js'
import { resolveNetwork } from '../src/domain/networks.js'
import { probeTargetOf, type PaymentRequirement, type ProbeOutcome } from '../src/domain/probe.js'
import { matchRequirements } from '../src/domain/probe-match.js'
import { keptAccepts } from '../src/prober/payment-answer.js'
import { readSeedFile, seedRecords } from '../src/domain/seed.js'
import type { ServiceRecord } from '../src/domain/service.js'
import type { ServiceStatus } from '../src/domain/trust.js'

import type { Test } from 'tap'
import { API_KEY, tempDataDir, validBody } from './support/basics.js'

export { API_KEY, tempDataDir, validBody }

/** Rate limits are off (tests hammer endpoints); the limiter's own tests turn them on through `rateLimit`. */
export function testConfig (dataDir: string, overrides: Partial<Config> = {}): Config {
  // Probing and rate limits off unless a test turns them on: demo and test endpoints point at hosts that never answer.
  // Search and lists on the API thread unless a test asks for threads: a thread per app loads
  // its modules again (half a second under tap's loaders); test/search/embedded/engine.test.ts,
  // test/store/sqlite/lists.test.ts, the store contract and the server tests cover the threads.
  return { ...loadConfig({ DATA_DIR: dataDir, CATALOG_API_KEYS: API_KEY, LOG_LEVEL: 'silent', CATALOG_RATE_LIMIT: '0', CATALOG_PROBE_INTERVAL_S: '0', CATALOG_SEARCH_THREADS: '0', CATALOG_LIST_THREAD: '0', CATALOG_SOURCE_SYNC_INTERVAL_S: '0' }), ...overrides }
}

/** Builds the app on a fresh store (demo catalog unless seed is 'none'), closed with the test. */
export async function build (t: Test, overrides: Partial<Config> = {}, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = await buildApp(testConfig(overrides.dataDir ?? tempDataDir(t), overrides), options)
  t.teardown(async () => { await app.close() })
  return app
}

export async function register (app: FastifyInstance, body: unknown, key: string | null = API_KEY): Promise<LightMyRequestResponse> {
  return await app.inject({
    method: 'POST',
    url: '/api/services',
    headers: key === null ? {} : { authorization: `Bearer ${key}` },
    payload: body as Record<string, unknown>
  })
}

/** What a probe of a listing found: a 402 asking the registered terms, a 402 paid to another address, or no valid 402 at all. */
export type ProbeFinding = 'matches' | 'differs' | 'fails'

/** The token an answer names on a chain whose USDC the catalog does not know (any asset then matches). */
const OTHER_TOKEN = `0x${'0'.repeat(39)}1`

/**
 * What a probe of the service finds: its endpoint's 402 answer (exact, at the registered price, on
 * each of its chains, in the chain's USDC), paying the registered address (`matches`) or another
 * (`differs`), judged and kept by the prober's own rules (src/prober/endpoint-prober.ts judgeAnswer);
 * `fails` is no answer at all.
 */
function outcomeOf (service: ServiceRecord, finding: ProbeFinding, checkedAt: string): ProbeOutcome {
  if (finding === 'fails') return { checkedAt, httpStatus: null, x402Version: null, latencyMs: null, answered402: false, matched: false, reason: 'timeout after 8 s', accepts: null }
  const payTo = finding === 'matches' ? service.paymentAddress : `0x${'9'.repeat(40)}`
  const accepts: PaymentRequirement[] = service.supportedChains.map((chain) => ({
    scheme: 'exact', network: chain, amount: String(service.priceAtomic), asset: resolveNetwork(chain)?.usdc ?? OTHER_TOKEN, payTo, maxTimeoutSeconds: 300
  }))
  const match = matchRequirements(probeTargetOf(service), accepts)
  return { checkedAt, httpStatus: 402, x402Version: 2, latencyMs: 5, answered402: true, matched: match.matched, reason: match.reason, accepts: keptAccepts(accepts, match.matched ? match.requirement : null) }
}

/**
 * Records a probe of a service through CatalogStore.recordProbe, the write the prober makes
 * (src/prober/monitor.ts), so status, uptime and trust follow the probe rules as in production.
 * For catalogs no real probe can reach: the demo's hosts are fictional and a seeded service starts
 * unverified and never checked. Services served by a loopback x402 server are probed for real
 * instead (test/support/x402-servers.ts). Resolves once search sees the change.
 */
export async function recordProbe (app: FastifyInstance, id: string, finding: ProbeFinding, checkedAt = new Date().toISOString()): Promise<ServiceRecord> {
  const recorded = await recordOnly(app, id, finding, checkedAt)
  await app.searchReady()
  return recorded
}

async function recordOnly (app: FastifyInstance, id: string, finding: ProbeFinding, checkedAt: string): Promise<ServiceRecord> {
  const service = await app.store.getService(id)
  if (service === null) throw new Error(`no service ${id}`)
  // Failure period 0: what probing on demand only (CATALOG_PROBE_INTERVAL_S=0, as in tests) uses.
  const recorded = await app.store.recordProbe(id, outcomeOf(service, finding, checkedAt), { failurePeriodMs: 0 }, null)
  if (recorded === null) throw new Error(`no service ${id}`)
  return recorded
}

/** The ids of the demo catalog's services, in fixture order (a seeded id derives from its endpoint). */
export function demoIds (): string[] {
  return seedRecords(readSeedFile('demo'), new Date().toISOString()).map((record) => record.id)
}

/**
 * The demo catalog after a round of probes, recorded as the prober records them: every other
 * service (even fixture index) answered with its registered terms (`verified`, uptime 100 %);
 * of the others, those at index 7k+3 failed three times (`inactive`, uptime 0 %) and those at
 * 10k+5 answered a 402 for another payTo (`unverified`, measured); the rest were never checked.
 * Returns the status each service now has, by id; search has seen every change.
 */
export async function probeDemo (app: FastifyInstance): Promise<Map<string, ServiceStatus>> {
  const statuses = new Map<string, ServiceStatus>()
  for (const [index, id] of demoIds().entries()) {
    if (index % 2 === 0) statuses.set(id, (await recordOnly(app, id, 'matches', new Date().toISOString())).status)
    else if (index % 7 === 3) {
      for (let i = 0; i < 3; i++) await recordOnly(app, id, 'fails', new Date().toISOString())
      statuses.set(id, (await app.store.getService(id))?.status as ServiceStatus)
    } else if (index % 10 === 5) statuses.set(id, (await recordOnly(app, id, 'differs', new Date().toISOString())).status)
    else statuses.set(id, 'unverified')
  }
  await app.searchReady()
  return statuses
}

/** Makes each service `verified` as a probe whose answer matches it does (uptime 100 %). */
export async function verify (app: FastifyInstance, ids: Iterable<string>): Promise<void> {
  for (const id of ids) await recordProbe(app, id, 'matches')
}
