/**
 * Search across scripts and languages on a generated catalog of 1,500 services
 * (bench/languages.ts, whose 100,000 run is in docs/search.md): at least 60 cross-language
 * and 20 romaji queries, recall@10 of at least 90% on each kind. Per-case misses are
 * reported as comments; only the aggregates are asserted.
 */
import { test } from 'tap'
import { languageCases } from '../../bench/language-cases.js'
import { measureLanguages, misses, reportTable } from '../../bench/languages.js'
import { tempDataDir } from '../support/basics.js'

const MIN_RECALL_AT_10 = 0.9

test('the suite has the cases the issue asks for', async (t) => {
  t.ok(languageCases.filter((c) => c.kind !== 'romaji').length >= 60, 'at least 60 cross-language queries')
  t.ok(languageCases.filter((c) => c.kind === 'romaji').length >= 20, 'at least 20 romaji queries')
  t.ok(languageCases.some((c) => c.kind === 'ja-en') && languageCases.some((c) => c.kind === 'en-ja'), 'both directions')
  const keys = languageCases.map((c) => `${c.kind} ${c.style} ${c.q}`)
  t.equal(new Set(keys).size, keys.length, 'no case twice')
})

test('cross-language and romaji recall@10 on 1,500 generated services', async (t) => {
  const report = await measureLanguages(tempDataDir(t), 1500)
  for (const line of reportTable([report]).split('\n')) t.comment(line)
  for (const line of misses(report)) t.comment(`miss ${line}`)
  for (const [kind, figures] of report.kinds) {
    t.ok(figures.recallAt10 >= MIN_RECALL_AT_10, `${kind}: recall@10 ${(figures.recallAt10 * 100).toFixed(1)}% is at least ${MIN_RECALL_AT_10 * 100}%`)
  }
})
