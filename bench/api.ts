/**
 * `npm run bench`: throughput and latency of the catalog API on a 10,000-service store,
 * next to a bare Fastify server answering the very same bytes (the ceiling for this
 * machine and this HTTP stack), plus registration throughput.
 *
 * Everything runs on 127.0.0.1, is bounded in count and time, and cleans up after
 * itself (server processes and the temporary DATA_DIR), also on error or Ctrl-C.
 *
 *   npm run bench -- --n 10000 --duration 5 --rounds 3 --connections 10 --registrations 2000
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import Fastify from 'fastify'
import { serviceIdForEndpoint } from '../src/domain/ids.js'
import { buildServiceRecord, normalizeEndpoint } from '../src/domain/registration.js'
import { PROJECT_ROOT } from '../src/paths.js'
import { openCatalogStore } from '../src/adapters.js'
import { loadConfig } from '../src/config.js'
import { generateServices, registrationBody } from './generate.js'
import { startPaidEndpoints } from './paid-endpoints.js'
import {
  children, countNot, fmt, freePort, HOST, load, log, machine, median, startChild, stopChild, table, waitUntil,
  intOption, type RunStats
} from './support.js'

// ---------------------------------------------------------------- options

const SERVER_ENTRY = join(PROJECT_ROOT, 'dist', 'src', 'server.js')
const TARGET_RATIO = 0.6

const { values: args } = parseArgs({
  options: {
    n: { type: 'string', default: '10000' },
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    registrations: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '1' },
    seed: { type: 'string', default: '42' },
    // Internal: run as the bare reference server, answering from a fixture file.
    bare: { type: 'string' }
  },
  strict: true
})

// ---------------------------------------------------------------- bare reference server

interface CapturedResponse { contentType: string, totalCount: string | null, body: string }
interface BareFixture { detail: CapturedResponse, lists: Record<string, CapturedResponse> }

async function serveBare (fixtureFile: string): Promise<void> {
  const fixture = JSON.parse(readFileSync(fixtureFile, 'utf8')) as BareFixture
  const lists = new Map(Object.entries(fixture.lists))
  const fallback = [...lists.values()][0] as CapturedResponse
  const app = Fastify({ logger: false })
  app.get('/api/services/:id', (_request, reply) => {
    void reply.header('content-type', fixture.detail.contentType).send(fixture.detail.body)
  })
  app.get('/api/services', (request, reply) => {
    const list = lists.get(request.url.slice(request.url.indexOf('?') + 1)) ?? fallback
    if (list.totalCount !== null) void reply.header('x-total-count', list.totalCount)
    void reply.header('content-type', list.contentType).send(list.body)
  })
  const address = await app.listen({ port: 0, host: HOST })
  process.stdout.write(`bare listening at ${address}\n`)
  const stop = (): void => { void app.close().then(() => process.exit(0)) }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

// ---------------------------------------------------------------- the benchmark

interface Scenario { name: string, path: string }

async function benchmark (): Promise<void> {
  const n = intOption('n', args.n, 100, 1_000_000)
  const duration = intOption('duration', args.duration, 1, 120)
  const rounds = intOption('rounds', args.rounds, 1, 9)
  const connections = intOption('connections', args.connections, 1, 256)
  const registrations = intOption('registrations', args.registrations, 0, 100_000)
  const warmup = intOption('warmup', args.warmup, 0, 30)
  const seed = intOption('seed', args.seed, 0, 2 ** 31)
  if (registrations > 0 && registrations < connections) throw new Error('--registrations must be at least --connections')

  const dataDir = mkdtempSync(join(tmpdir(), 'x402-bench-'))
  const cleanup = async (): Promise<void> => {
    await Promise.all(children.map(stopChild))
    rmSync(dataDir, { recursive: true, force: true })
  }
  const onSignal = (signal: NodeJS.Signals): void => {
    log(`\n${signal}: stopping`)
    void cleanup().finally(() => process.exit(130))
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)

  try {
    // 1. The store: generate, build records through the registration rules, insert in one go.
    let t = performance.now()
    const entries = generateServices(n, seed)
    const generateMs = performance.now() - t
    t = performance.now()
    const now = new Date().toISOString()
    const records = entries.map((entry) => {
      const { status, uptimeScore, lastChecked, createdAt } = entry
      const body = registrationBody(entry)
      const id = serviceIdForEndpoint(normalizeEndpoint(body.endpoint))
      return buildServiceRecord(body, { id, ownerId: null, now }, { status, uptimeScore, lastChecked }, createdAt)
    })
    const buildMs = performance.now() - t
    // The configured store (CATALOG_STORE; SQLite in DATA_DIR by default), as the server will open it.
    const store = await openCatalogStore(loadConfig({ ...process.env, DATA_DIR: dataDir }))
    t = performance.now()
    await store.insertServices(records)
    const insertMs = performance.now() - t
    await store.close()
    const loadLine = `${n.toLocaleString('en-US')} services: generated in ${generateMs.toFixed(0)} ms, built in ${buildMs.toFixed(0)} ms, ` +
      `inserted in one transaction in ${insertMs.toFixed(0)} ms (${fmt.rps(n / (insertMs / 1000))} rows/s)`
    log(loadLine)

    // 2. The real catalog server, on a port picked here (LOG_LEVEL=warn: no per-request logs).
    const apiKey = `bench-${Date.now().toString(36)}-0123456789abcdef`
    const port = await freePort()
    const catalog = startChild('catalog server', [SERVER_ENTRY], {
      // Registrations are probed at loopback endpoints (bench/paid-endpoints.ts), not through DNS;
      // that one server stands for every listed host, so the per-host probe cap is lifted.
      DATA_DIR: dataDir, CATALOG_SEED: 'none', PORT: String(port), HOST, LOG_LEVEL: 'warn', CATALOG_API_KEYS: apiKey, CATALOG_PROBE_ALLOW_PRIVATE: '1', CATALOG_PROBE_PER_HOST: '100'
    })
    const catalogUrl = `http://${HOST}:${port}`
    // The server indexes the whole store for search before it listens: allow for that.
    t = performance.now()
    await waitUntil(catalog, 'a healthy /health', async () => (await fetch(`${catalogUrl}/health`)).ok ? true : undefined, 60_000 + 10 * n)
    const readyLine = `catalog server ready in ${((performance.now() - t) / 1000).toFixed(1)} s (includes indexing the store for search)`
    log(readyLine)
    // A second catalog on the same store with the response cache off: every read is computed.
    const uncachedPort = await freePort()
    const uncached = startChild('uncached catalog server', [SERVER_ENTRY], {
      DATA_DIR: dataDir, CATALOG_SEED: 'none', PORT: String(uncachedPort), HOST, LOG_LEVEL: 'warn', CATALOG_INDEXER: 'external', CATALOG_RESPONSE_CACHE_MB: '0'
    })
    const uncachedUrl = `http://${HOST}:${uncachedPort}`
    await waitUntil(uncached, 'a healthy /health', async () => (await fetch(`${uncachedUrl}/health`)).ok ? true : undefined, 60_000)

    // 3. Capture the catalog's answers; the bare server replays exactly these bytes.
    const detailId = (records[n >> 1] as { id: string }).id
    const scenarios: Scenario[] = [
      { name: 'detail', path: `/api/services/${detailId}` },
      { name: 'list category+verified, by price', path: '/api/services?category=weather&status=verified&sortBy=price&limit=20' },
      { name: 'list max price, by price', path: '/api/services?sortBy=price&maxPricePerRequest=0.01&limit=20' },
      { name: 'list chain=base, by trustScore', path: '/api/services?sortBy=trustScore&chain=base&limit=20' },
      { name: 'list by name, offset 200', path: '/api/services?sortBy=name&offset=200&limit=20' }
    ]
    const capture = async (path: string): Promise<CapturedResponse> => {
      const res = await fetch(catalogUrl + path)
      const body = Buffer.from(await res.arrayBuffer()).toString('utf8')
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${body}`)
      if (path.includes('?') && (JSON.parse(body) as unknown[]).length === 0) throw new Error(`GET ${path}: empty page`)
      return { contentType: res.headers.get('content-type') ?? 'application/json', totalCount: res.headers.get('x-total-count'), body }
    }
    const captured = new Map<string, CapturedResponse>()
    for (const scenario of scenarios) captured.set(scenario.name, await capture(scenario.path))
    const fixture: BareFixture = { detail: captured.get('detail') as CapturedResponse, lists: {} }
    for (const scenario of scenarios.slice(1)) {
      fixture.lists[scenario.path.slice(scenario.path.indexOf('?') + 1)] = captured.get(scenario.name) as CapturedResponse
    }
    const fixtureFile = join(dataDir, 'bare-fixture.json')
    writeFileSync(fixtureFile, JSON.stringify(fixture))

    // The bare server runs in its own process, like the catalog, so neither shares a core
    // with the load generator's event loop.
    const bare = startChild('bare server', [fileURLToPath(import.meta.url), '--bare', fixtureFile], {})
    const bareUrl = await waitUntil(bare, 'a listening line', async () => /bare listening at (http:\/\/[\d.:]+)/.exec(bare.output())?.[1])
    for (const scenario of scenarios) {
      const [a, b, c] = await Promise.all([catalogUrl, bareUrl, uncachedUrl].map(async (base) => {
        const res = await fetch(base + scenario.path)
        return { type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) }
      }))
      if (a === undefined || b === undefined || c === undefined || a.type !== b.type || !a.bytes.equals(b.bytes) || !a.bytes.equals(c.bytes)) {
        throw new Error(`the servers do not answer the same bytes for ${scenario.path}`)
      }
    }
    const urls = { catalog: catalogUrl, uncached: uncachedUrl, bare: bareUrl } as const

    // 4. Reads: each scenario against the catalog and its bare twin, alternating, per round.
    const readLimitMs = (duration + 30) * 1000
    if (warmup > 0) {
      log(`warming up (${warmup} s per target)`)
      for (const scenario of scenarios) {
        for (const base of Object.values(urls)) await load({ url: base + scenario.path, connections, duration: warmup }, readLimitMs)
      }
    }
    const runs = new Map<string, Record<keyof typeof urls, RunStats[]>>(scenarios.map((s) => [s.name, { catalog: [], uncached: [], bare: [] }]))
    for (let round = 1; round <= rounds; round++) {
      for (const scenario of scenarios) {
        // Rotate who goes first, so slow drift on a shared machine hits every side alike.
        const targets = ['catalog', 'uncached', 'bare'] as const
        const order = targets.map((_, i) => targets[(i + round) % targets.length] as typeof targets[number])
        for (const target of order) {
          const stats = await load({ url: urls[target] + scenario.path, connections, duration }, readLimitMs)
          runs.get(scenario.name)?.[target].push(stats)
          log(`round ${round}/${rounds}  ${scenario.name.padEnd(34)} ${target.padEnd(8)} ${fmt.rps(stats.rps).padStart(7)} req/s  p50 ${fmt.ms(stats.p50)} ms  p99 ${fmt.ms(stats.p99)} ms` +
            (stats.failures + countNot(stats.statuses, (s) => s === 200) > 0 ? `  (${countNot(stats.statuses, (s) => s === 200)} non-200, ${stats.failures} errors)` : ''))
        }
      }
    }

    // 5. Registrations: distinct valid bodies, a bootstrap key, fixed concurrency.
    let registration: RunStats | null = null
    if (registrations > 0) {
      log(`registering ${registrations.toLocaleString('en-US')} services (${connections} connections)`)
      const endpoints = await startPaidEndpoints()
      const bodies = generateServices(registrations + 4 * connections, seed + 1, n).map((entry, i) => JSON.stringify(endpoints.list(registrationBody(entry), `r${i}`)))
      let next = 0
      registration = await load({
        url: `${catalogUrl}/api/services`,
        connections,
        amount: registrations,
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        requests: [{
          setupRequest: (request) => {
            request.body = bodies[next++ % bodies.length] as string
            return request
          }
        }]
      }, 300_000)
      await endpoints.close()
    }

    // 6. Report.
    const rows: string[][] = []
    let readProblems = 0
    for (const scenario of scenarios) {
      const { catalog: c, uncached: u, bare: b } = runs.get(scenario.name) as Record<keyof typeof urls, RunStats[]>
      const problems = [...c, ...u, ...b].reduce((sum, s) => sum + s.failures + countNot(s.statuses, (status) => status === 200), 0)
      readProblems += problems
      const bareRps = median(b.map((s) => s.rps))
      const ratio = (stats: RunStats[]): string => {
        const value = median(stats.map((s) => s.rps)) / bareRps
        return `${value.toFixed(2)} ${value >= TARGET_RATIO ? 'PASS' : 'BELOW'}`
      }
      rows.push([
        scenario.name,
        fmt.rps(median(c.map((s) => s.rps))), fmt.ms(median(c.map((s) => s.p99))),
        fmt.rps(median(u.map((s) => s.rps))), fmt.ms(median(u.map((s) => s.p99))),
        fmt.rps(bareRps), fmt.ms(median(b.map((s) => s.p99))),
        ratio(c), ratio(u),
        String(problems),
        (Buffer.byteLength((captured.get(scenario.name) as CapturedResponse).body) / 1024).toFixed(1)
      ])
    }
    const out: string[] = [
      '',
      `machine: ${machine()}`,
      `store:   ${loadLine}`,
      `server:  ${readyLine}`,
      `reads:   ${connections} connections, ${duration} s per run, median of ${rounds} round${rounds === 1 ? '' : 's'}; ratio = catalog req/s ÷ bare req/s (target ≥ ${TARGET_RATIO})`,
      '         cached: the default server (repeated reads come from the response cache); uncached: CATALOG_RESPONSE_CACHE_MB=0, every read computed',
      '',
      table(
        ['scenario', 'cached req/s', 'p99 ms', 'uncached req/s', 'p99 ms', 'bare req/s', 'p99 ms', 'ratio cached', 'ratio uncached', 'non-200/errors', 'body KiB'],
        rows
      )
    ]
    if (registration !== null) {
      const non201 = countNot(registration.statuses, (status) => status === 201) + registration.failures
      out.push('', table(
        ['registrations (POST /api/services)', 'req/s', 'p50 ms', 'p99 ms', 'responses', 'non-201'],
        [[`${registrations.toLocaleString('en-US')} distinct bodies, ${connections} connections`, fmt.rps(registration.rps), fmt.ms(registration.p50), fmt.ms(registration.p99), registration.responses.toLocaleString('en-US'), String(non201)]]
      ))
      if (non201 > 0) out.push(`non-201 statuses: ${JSON.stringify(Object.fromEntries(registration.statuses))}`)
    }
    if (readProblems > 0) out.push('', `WARNING: ${readProblems} read responses were not 200 or failed; the figures above are not trustworthy`)
    process.stdout.write(`${out.join('\n')}\n`)
  } finally {
    process.removeListener('SIGINT', onSignal)
    process.removeListener('SIGTERM', onSignal)
    await cleanup()
  }
}

if (args.bare !== undefined) {
  serveBare(args.bare).catch((err: unknown) => {
    console.error(err)
    process.exit(1)
  })
} else {
  benchmark().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err)
    process.exitCode = 1
  })
}
