/**
 * npm run bench:languages [-- --sizes 1500,100000]: search across scripts and languages.
 *
 * For each catalog size: generates the catalog (bench/generate.ts), stores and indexes it
 * with the embedded engine, then runs every case of bench/language-cases.ts through the
 * application entry (src/search/service-search.ts, as the routes do: analysis, romaji and
 * slip expansion, lexicon synonyms, engine, store) and reports per kind:
 * - hit@3: share of queries with an acceptable listing in the top 3;
 * - recall@10: share of queries with an acceptable listing in the top 10 (a topic has many
 *   listings in a generated catalog, so recall is per query: was one found, not how many);
 * - in-process latency of the same queries (analysis with expansion and the engine on this
 *   thread, as bench:search measures: p50/p99 over three timed rounds after a warm-up pass).
 * Cross-language kinds run on a catalog without the asked topics' listings in the query's
 * own language (see catalogFor), so only a translation can find the answers.
 * It prints the table and, with --out, writes it into docs/search.md between markers.
 * test/search/languages.test.ts runs the 1,500 size and asserts the targets.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { seedRecords, type SeedEntry } from '../src/domain/seed.js'
import { Indexer } from '../indexer/indexer.js'
import { analyzeIntent, splitQueryWords } from '../src/search/analysis/analyzer.js'
import { loadTokenizer } from '../src/search/analysis/tokenizer.js'
import { isJapanese } from '../src/search/analysis/normalize.js'
import { searchServices } from '../src/search/service-search.js'
import { EmbeddedSearchEngine } from '../src/search/embedded/engine.js'
import { SqliteCatalogStore } from '../src/store/sqlite/store.js'
import { generateServices } from './generate.js'
import { LANGUAGE_KINDS, languageCases, type LanguageCase, type LanguageKind } from './language-cases.js'

export const TOP = 3
export const DEPTH = 10

export interface CaseOutcome {
  c: LanguageCase
  /** 1-based rank of the first acceptable listing in the top DEPTH, 0 when none. */
  rank: number
  top: string[]
}

export interface KindFigures { cases: number, catalog: number, hitAt3: number, recallAt10: number }

export interface LanguageReport {
  n: number
  outcomes: CaseOutcome[]
  kinds: Map<LanguageKind, KindFigures>
  latency: { p50: number, p99: number, count: number }
}

/** Whether a listing answers the case: its topic (category and endpoint path) in the wanted language. */
export function acceptable (c: LanguageCase, service: { category: string, endpoint: string, name: string }): boolean {
  if (!ofTopic(c, service)) return false
  const japanese = isJapanese(service.name)
  return c.kind === 'romaji' || (c.kind === 'ja-en' ? !japanese : japanese)
}

function quantile (sorted: Float64Array, q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number
}

/** A topic's listings: same category, endpoint ending in one of the paths. */
function ofTopic (c: LanguageCase, service: { category: string, endpoint: string }): boolean {
  return service.category === c.category && c.paths.includes(new URL(service.endpoint).pathname.replace(/^\/v\d+\//u, ''))
}

/**
 * The catalog a kind is measured on: the generated one, where for a cross-language kind the
 * asked topics' listings in the query's own language are left out, so that the only
 * answers are in the other language (with them in, a Japanese query's Japanese listings
 * rightly fill the top 10 and the measure says nothing about translation).
 */
function catalogFor (kind: LanguageKind, entries: readonly SeedEntry[]): SeedEntry[] {
  if (kind === 'romaji') return [...entries]
  const cases = languageCases.filter((c) => c.kind === kind)
  const queryLanguageIsJapanese = kind === 'ja-en'
  return entries.filter((e) => isJapanese(e.name) !== queryLanguageIsJapanese || !cases.some((c) => ofTopic(c, e)))
}

/**
 * For each kind: generates the catalog of `n` services (catalogFor), stores and indexes it
 * in a directory of its own under `baseDir`, runs the kind's cases, closes everything.
 */
export async function measureLanguages (baseDir: string, n: number, seed = 7, log: (line: string) => void = () => {}): Promise<LanguageReport> {
  const tokenizer = await loadTokenizer()
  const generated = generateServices(n, seed)
  const outcomes: CaseOutcome[] = []
  const samples: number[] = []
  const sizes: Record<string, number> = {}
  for (const kind of LANGUAGE_KINDS) {
    const dataDir = mkdtempSync(join(baseDir, `${kind}-`))
    const store = new SqliteCatalogStore(dataDir)
    const engine = new EmbeddedSearchEngine(dataDir)
    try {
      const entries = catalogFor(kind, generated)
      sizes[kind] = entries.length
      const now = new Date().toISOString()
      for (let i = 0; i < entries.length; i += 10_000) await store.insertServices(seedRecords(entries.slice(i, i + 10_000), now))
      const indexer = new Indexer({ store, engine, tokenizer, logger: { info: () => {}, error: log, debug: () => {} }, batchSize: 500 })
      await indexer.reindex((done, total) => { if (done % 25_000 < 500 || done === total) log(`${n} ${kind}: indexed ${done}/${total}`) })

      const cases = languageCases.filter((c) => c.kind === kind)
      const deps = { engine, store, tokenizer }
      for (const c of cases) {
        const result = await searchServices(deps, { text: c.q, style: c.style, filter: {}, page: { limit: DEPTH, offset: 0 } })
        const rank = result.hits.findIndex((hit) => acceptable(c, hit.service)) + 1
        outcomes.push({ c, rank, top: result.hits.slice(0, TOP).map((hit) => hit.service.name) })
      }
      // In-process search as bench:search measures it: analysis (with expansion) and the
      // engine on this thread, reading no services; after the pass above warmed it up.
      for (let round = 0; round < 3; round++) {
        for (const c of cases) {
          const started = performance.now()
          const words = c.style === 'intent' ? analyzeIntent(c.q, tokenizer).tokens : splitQueryWords(c.q)
          await engine.search({ words, filter: {}, page: { limit: 20, offset: 0 }, prefixLastWord: c.style === 'keywords' })
          const ms = performance.now() - started
          samples.push(ms)
          if (ms > 10) log(`${n} ${kind}: slow query ${JSON.stringify(c.q)} ${ms.toFixed(1)} ms`)
        }
      }
    } finally {
      await engine.close()
      await store.close()
    }
  }
  const sorted = Float64Array.from(samples).sort()
  const kinds = new Map<LanguageKind, KindFigures>()
  for (const kind of LANGUAGE_KINDS) {
    const ofKind = outcomes.filter((o) => o.c.kind === kind)
    kinds.set(kind, {
      cases: ofKind.length,
      catalog: sizes[kind] ?? 0,
      hitAt3: ofKind.filter((o) => o.rank >= 1 && o.rank <= TOP).length / ofKind.length,
      recallAt10: ofKind.filter((o) => o.rank >= 1).length / ofKind.length
    })
  }
  return { n, outcomes, kinds, latency: { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), count: samples.length } }
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`

export function reportTable (reports: readonly LanguageReport[]): string {
  const lines = ['| catalog | kind | services indexed | queries | hit@3 | recall@10 |', '| ---: | --- | ---: | ---: | ---: | ---: |']
  for (const r of reports) {
    for (const [kind, f] of r.kinds) lines.push(`| ${r.n.toLocaleString('en')} | ${kind} | ${f.catalog.toLocaleString('en')} | ${f.cases} | ${pct(f.hitAt3)} | ${pct(f.recallAt10)} |`)
  }
  lines.push('', '| catalog | in-process search, these queries (p50 / p99) |', '| ---: | ---: |')
  for (const r of reports) lines.push(`| ${r.n.toLocaleString('en')} | ${r.latency.p50.toFixed(2)} ms / ${r.latency.p99.toFixed(2)} ms |`)
  return lines.join('\n')
}

export function misses (report: LanguageReport): string[] {
  return report.outcomes.filter((o) => o.rank === 0 || o.rank > TOP).map((o) =>
    `[${o.c.kind}] ${o.c.style} ${JSON.stringify(o.c.q)}: ${o.rank === 0 ? `none in the top ${DEPTH}` : `rank ${o.rank}`}; top ${TOP}: ${o.top.join(' | ') || '(none)'}`)
}

const MARK_BEGIN = '<!-- bench:languages results -->'
const MARK_END = '<!-- /bench:languages results -->'

async function main (): Promise<void> {
  const { values } = parseArgs({ options: { sizes: { type: 'string', default: '1500,100000' }, seed: { type: 'string', default: '7' }, out: { type: 'string' } }, strict: true })
  const sizes = values.sizes.split(',').map(Number)
  if (sizes.some((n) => !Number.isInteger(n) || n < 100 || n > 1_000_000)) throw new Error(`--sizes must be integers from 100 to 1000000, got "${values.sizes}"`)
  const reports: LanguageReport[] = []
  for (const n of sizes) {
    const baseDir = mkdtempSync(join(tmpdir(), 'x402-bench-languages-'))
    try {
      const report = await measureLanguages(baseDir, n, Number(values.seed), (line) => { process.stderr.write(`${line}\n`) })
      for (const line of misses(report)) process.stderr.write(`${n}: miss ${line}\n`)
      reports.push(report)
    } finally {
      rmSync(baseDir, { recursive: true, force: true })
    }
  }
  const table = reportTable(reports)
  process.stdout.write(`${table}\n`)
  if (values.out !== undefined) {
    const doc = readFileSync(values.out, 'utf8')
    const begin = doc.indexOf(MARK_BEGIN)
    const end = doc.indexOf(MARK_END)
    if (begin < 0 || end < begin) throw new Error(`${values.out} has no ${MARK_BEGIN} … ${MARK_END} section`)
    writeFileSync(values.out, `${doc.slice(0, begin + MARK_BEGIN.length)}\n${table}\n${doc.slice(end)}`)
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
