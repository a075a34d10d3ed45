/**
 * npm run bench:sources [-- --items 20000 --base 10000 --parts pass,probes,follow]: the sources
 * benchmark against the issue's targets (docs/benchmarks.md, Sources). Three measurements, each
 * on fresh catalogs started as `npm start` starts them:
 *  - pass (bench/source-pass.ts): a loopback server answers a generated Bazaar list of --items
 *    (bench/bazaar-list.ts) and the API's own scheduler (CATALOG_SOURCE_SYNC_INTERVAL_S) passes
 *    over it, on a catalog of --base generated services: once alone, once while --searchers
 *    connections search (response cache off, so every search is computed);
 *  - probes (bench/probe-spread.ts): the list's first --probe-items on loopback x402 endpoints, a
 *    catalog probing every --probe-interval: when the synced listings' first probes come, and how
 *    many at once (fewer items than the pass: the interval is shortened from an hour to minutes,
 *    and 20,000 probes in 120 s are more than this machine's prober makes);
 *  - follow (bench/following.ts): a catalog following another's change feed (a `catalog`
 *    source), registration on one → on the other, over --registrations registrations.
 * It prints one table and writes it into docs/benchmarks.md (--out - prints only). It never
 * fails on a figure.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { seedRecords } from '../src/domain/seed.js'
import { SOURCE_KINDS } from '../src/domain/sources.js'
import { PROJECT_ROOT } from '../src/paths.js'
import { SqliteCatalogStore } from '../src/store/sqlite/store.js'
import { generateBazaarList, startBazaarSource, type BazaarList } from './bazaar-list.js'
import { measureFollowing, type Following } from './following.js'
import { generateServices } from './generate.js'
import { measureProbeSpread, PROBE_CAPS, type ProbeSpread } from './probe-spread.js'
import { passSeconds } from './source-catalog.js'
import { HEALTH_EVERY_MS, measurePass, quantile, searchPaths, type PassFigures } from './source-pass.js'
import { children, intOption, log, machine, stopChild, table } from './support.js'

const PARTS = ['pass', 'probes', 'follow'] as const

const { values: args } = parseArgs({
  options: {
    items: { type: 'string', default: '20000' },
    base: { type: 'string', default: '10000' },
    parts: { type: 'string', default: PARTS.join(',') },
    searchers: { type: 'string', default: '8' },
    'run-seconds': { type: 'string', default: '2' },
    'quiet-seconds': { type: 'string', default: '10' },
    'sync-interval': { type: 'string', default: '5' },
    'probe-items': { type: 'string', default: '5000' },
    'probe-interval': { type: 'string', default: '120' },
    'probe-addresses': { type: 'string', default: '32' },
    'probe-latency': { type: 'string', default: '100' },
    registrations: { type: 'string', default: '12' },
    seed: { type: 'string', default: '7' },
    out: { type: 'string', default: join(PROJECT_ROOT, 'docs', 'benchmarks.md') }
  },
  strict: true
})

/** The targets. */
const TARGETS = { passS: 60, rssGrowthMb: 150, healthP99Ms: 50, searchRatio: 0.5, followMedianS: 5 }
/** First probes "spread over the interval": no tenth of it holds more than twice its share. */
const SPREAD_DECILE_MAX = 0.2
const MARK_BEGIN = '<!-- bench:sources results -->'
const MARK_END = '<!-- /bench:sources results -->'

// ---------------------------------------------------------------- report

const s = (value: number): string => Number.isNaN(value) ? '–' : `${value.toFixed(1)} s`
const mb = (value: number): string => `${value.toFixed(0)} MB`
const ms = (values: readonly number[]): string => values.length === 0 ? '–' : `${quantile(values, 0.5).toFixed(1)} / ${quantile(values, 0.99).toFixed(1)}`
const verdict = (met: boolean, target: string): string => met ? `met (${target})` : `**missed** (${target})`
const NOT_MEASURED = 'not measured'

function passRows (searchers: number, list: BazaarList, alone: PassFigures, loaded: PassFigures): string[][] {
  const growth = (f: PassFigures, peak: number): string => `${mb(peak)} (+${(peak - f.idleMb).toFixed(0)})`
  const worstGrowth = Math.max(alone.indexedPeakMb - alone.idleMb, loaded.indexedPeakMb - loaded.idleMb)
  const worstHealth = Math.max(quantile(alone.healthPass, 0.99), quantile(loaded.healthPass, 0.99))
  const rows: string[][] = [
    ['first pass, the catalog\'s report (started → finished)', s(passSeconds(alone.report)), s(passSeconds(loaded.report)), verdict(Math.max(passSeconds(alone.report), passSeconds(loaded.report)) <= TARGETS.passS, `≤ ${TARGETS.passS} s`)],
    ['items seen / listings added / refused', `${alone.report.seen} / ${alone.report.added} / ${alone.report.refusedCount}`, `${loaded.report.seen} / ${loaded.report.added} / ${loaded.report.refusedCount}`, `${list.counts.dynamic} without a fixed price, listed as dynamic`],
    ['API RSS idle, base catalog indexed', mb(alone.idleMb), mb(loaded.idleMb), ''],
    ['peak RSS during the pass (growth over idle)', growth(alone, alone.passPeakMb), growth(loaded, loaded.passPeakMb), ''],
    ['peak RSS until the synced listings are searchable', growth(alone, alone.indexedPeakMb), growth(loaded, loaded.indexedPeakMb), verdict(worstGrowth <= TARGETS.rssGrowthMb, `≤ +${TARGETS.rssGrowthMb} MB`)],
    [`/health p50 / p99 ms (every ${HEALTH_EVERY_MS} ms), before the pass`, ms(alone.healthQuiet), ms(loaded.healthQuiet), ''],
    ['/health p50 / p99 ms, during the pass', ms(alone.healthPass), ms(loaded.healthPass), verdict(worstHealth <= TARGETS.healthP99Ms, `p99 ≤ ${TARGETS.healthP99Ms} ms`)],
    ['/health p50 / p99 ms, pass done → searchable', ms(alone.healthIndexing), ms(loaded.healthIndexing), ''],
    ['pass seen complete → synced listings searchable', s(alone.completeToSearchableS), s(loaded.completeToSearchableS), '']
  ]
  if (loaded.search !== undefined) {
    const f = loaded.search
    const ratio = f.pass / f.quiet
    const failed = f.failures > 0 ? `; ${f.failures} failed or not 200` : ''
    rows.push([`searches/s (${searchers} connections): before → during the pass`, '', `${Math.round(f.quiet)} → ${Number.isNaN(f.pass) ? '–' : Math.round(f.pass)} (${f.passRuns} runs${failed})`, Number.isNaN(ratio) ? 'pass shorter than a run' : verdict(ratio >= TARGETS.searchRatio, `ratio ${ratio.toFixed(2)} ≥ ${TARGETS.searchRatio}`)])
  }
  if (alone.secondPass !== undefined) {
    const r = alone.secondPass.report
    rows.push(['second pass, list unchanged: time; unchanged / updated; peak RSS', `${s(passSeconds(r))}; ${r.unchanged} / ${r.updated}; ${growth(alone, alone.secondPass.peakMb)}`, '', ''])
  }
  return rows
}

function probeRows (p: ProbeSpread | string): string[][] {
  if (typeof p === 'string') return [['synced listings\' first probes over the probe interval', NOT_MEASURED, '', p]]
  const shares = p.deciles.map((count) => count / Math.max(1, p.listed))
  const spread = p.unprobed === 0 && Math.max(...shares) <= SPREAD_DECILE_MAX
  return [
    [`first probes of ${p.listed} synced listings (the list's first ${p.items}) by tenth of a ${p.intervalS} s interval, %`, shares.map((share) => (share * 100).toFixed(0)).join(' · '), '', verdict(spread, `every listing probed, no tenth over ${SPREAD_DECILE_MAX * 100} %`)],
    ['… busiest second of first probes / even rate; not probed within 1.2 intervals', `${p.busiestSecond} / ${p.evenPerSecond.toFixed(0)} per s; ${p.unprobed}`, '', ''],
    [`… probes in flight at the endpoints (answering after ${p.latencyMs} ms): overall / per address, peak`, `${p.peakInFlight} / ${p.peakPerAddress}`, '', verdict(p.peakInFlight <= PROBE_CAPS.concurrency && p.peakPerAddress <= PROBE_CAPS.perHost, `caps ${PROBE_CAPS.concurrency} / ${PROBE_CAPS.perHost}`)]
  ]
}

function followRows (f: Following | string): string[][] {
  if (typeof f === 'string') return [['following a catalog: registration on one → on the other', NOT_MEASURED, '', f]]
  return [
    [`following a catalog: registration → on the follower, median (max) of ${f.lags.length}`, `${f.median.toFixed(2)} s (${f.max.toFixed(2)} s)`, '', verdict(f.median <= TARGETS.followMedianS, `median ≤ ${TARGETS.followMedianS} s`)],
    ['… the follower\'s first whole read of the other catalog', `${s(f.firstReadS)} (${f.firstReadSeen} changes)`, '', '']
  ]
}

function render (n: number, base: number, searchers: number, list: BazaarList, pass: { alone: PassFigures, loaded: PassFigures } | string, probes: ProbeSpread | string, follow: Following | string): string {
  const c = list.counts
  const rows = [
    ...(typeof pass === 'string' ? [['first pass over the list', NOT_MEASURED, '', pass]] : passRows(searchers, list, pass.alone, pass.loaded)),
    ...probeRows(probes),
    ...followRows(follow)
  ]
  const [l1, l5, l15] = loadavg().map((v) => v.toFixed(1))
  return [
    `Machine: ${machine()}; the load generator and the loopback servers share these CPUs with the catalogs.`,
    `Run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${n.toLocaleString('en-US')} items (${c.v1} x402 v1, ${c.testnet} on base-sepolia, ${c.bothNetworks} on base and base-sepolia, ${c.agents} agent endpoints of one host, ${c.emptyDescription} empty descriptions, ${c.controlCharacters} with control characters, ${c.dynamic} with an empty or zero amount) over a catalog of ${base.toLocaleString('en-US')}; load average at the end ${l1} / ${l5} / ${l15}.`,
    '',
    table(['figure', 'alone', `with ${searchers} searching`, 'target'], rows)
  ].join('\n')
}

// ---------------------------------------------------------------- main

async function benchmark (): Promise<void> {
  const n = intOption('items', args.items, 100, 100_000)
  const base = intOption('base', args.base, 100, 200_000)
  const searchers = intOption('searchers', args.searchers, 1, 100)
  const runSeconds = intOption('run-seconds', args['run-seconds'], 1, 30)
  const quietSeconds = intOption('quiet-seconds', args['quiet-seconds'], 2, 120)
  const syncIntervalS = intOption('sync-interval', args['sync-interval'], 1, 60)
  const probeItems = intOption('probe-items', args['probe-items'], 100, 100_000)
  const probeIntervalS = intOption('probe-interval', args['probe-interval'], 10, 3600)
  const probeAddresses = intOption('probe-addresses', args['probe-addresses'], 1, 250)
  const probeLatencyMs = intOption('probe-latency', args['probe-latency'], 0, 5000)
  const registrations = intOption('registrations', args.registrations, 1, 100)
  const seed = intOption('seed', args.seed, 0, 2 ** 31)
  const parts = new Set(args.parts?.split(',').map((part) => part.trim()))
  for (const part of parts) if (!(PARTS as readonly string[]).includes(part)) throw new Error(`--parts takes ${PARTS.join(', ')}, got "${part}"`)
  log(`machine: ${machine()}`)

  const template = mkdtempSync(join(tmpdir(), 'x402-bench-sources-base-'))
  process.on('exit', () => rmSync(template, { recursive: true, force: true }))
  const store = new SqliteCatalogStore(template)
  const entries = generateServices(base, seed)
  for (let i = 0; i < base; i += 10_000) await store.insertServices(seedRecords(entries.slice(i, i + 10_000), new Date().toISOString()))
  await store.close()
  const list = generateBazaarList(n, seed + 100)

  let pass: { alone: PassFigures, loaded: PassFigures } | string = 'left out (--parts)'
  if (parts.has('pass')) {
    const source = await startBazaarSource(list.items)
    log(`source: ${n} items at ${source.url}`)
    const common = { runSeconds, quietSeconds, syncIntervalS, paths: searchPaths(base, seed) }
    const alone = await measurePass('alone', template, list, source, { ...common, searchers: 0, secondPass: true })
    const loaded = await measurePass('searching', template, list, source, { ...common, searchers, secondPass: false })
    await source.close()
    pass = { alone, loaded }
  }
  const probes = parts.has('probes') ? await measureProbeSpread(probeItems, seed + 100, probeIntervalS, probeAddresses, probeLatencyMs) : 'left out (--parts)'
  const follow = !parts.has('follow')
    ? 'left out (--parts)'
    : (SOURCE_KINDS as readonly string[]).includes('catalog') ? await measureFollowing(template, registrations, seed) : `this build has no \`catalog\` source kind (target: median ≤ ${TARGETS.followMedianS} s)`

  const text = render(n, base, searchers, list, pass, probes, follow)
  process.stdout.write(`${text}\n`)
  if (args.out !== '-' && args.out !== undefined) {
    const doc = readFileSync(args.out, 'utf8')
    const begin = doc.indexOf(MARK_BEGIN)
    const end = doc.indexOf(MARK_END)
    if (begin < 0 || end < begin) log(`${args.out} has no ${MARK_BEGIN} … ${MARK_END} section: not written`)
    else {
      writeFileSync(args.out, `${doc.slice(0, begin + MARK_BEGIN.length)}\n${text}\n${doc.slice(end)}`)
      log(`results written to ${args.out}`)
    }
  }
}

benchmark().then(async () => {
  for (const child of children) await stopChild(child)
}, async (err: unknown) => {
  log(`bench:sources failed: ${(err as Error).stack ?? String(err)}`)
  for (const child of children) await stopChild(child)
  // The failed measurement's samplers and search runs would keep the process alive.
  process.exit(1)
})
