/** A search thread's answer as posted to the API thread: read back, it is the answer. */
import { test } from 'tap'
import { prng } from '../../../bench/generate.js'
import { MATCH_EXACTNESS } from '../../../src/search/match-rules.js'
import { SEARCH_ATTRIBUTES, type MatchKind, type MatchedToken, type SearchResult } from '../../../src/search/search-engine.js'
import { fromWire, toWire } from '../../../src/search/embedded/thread/wire.js'

const KINDS = Object.keys(MATCH_EXACTNESS) as MatchKind[]

test('every kind and attribute of a matched token, its words, terms and typos, come back as they were', async (t) => {
  const tokens: MatchedToken[] = []
  for (const kind of KINDS) for (const attribute of SEARCH_ATTRIBUTES) tokens.push({ word: `w-${kind}`, term: `天気-${attribute}`, attribute, kind, typos: tokens.length % 3 })
  const result: SearchResult = {
    total: 123_456,
    totalExact: false,
    hits: [
      { id: 'svc_a', score: 0.9876, matchedTokens: tokens },
      { id: 'svc_b', score: 0, matchedTokens: [] },
      { id: 'svc_c', score: 1, matchedTokens: tokens.slice(3, 5) }
    ],
    facetDistribution: { category: { weather: 3 }, network: { 'eip155:8453': 2 } }
  }
  // structuredClone: what postMessage does to it on the way.
  t.same(fromWire(structuredClone(toWire(result))), result)
  const empty: SearchResult = { total: 0, totalExact: true, hits: [] }
  const back = fromWire(structuredClone(toWire(empty)))
  t.same(back, empty)
  t.notOk('facetDistribution' in back, 'no facets asked, none added')
})

test('random pages come back equal, and their tokens travel as numbers', async (t) => {
  const random = prng(19)
  const words = ['weather', 'data', 'api', '検索', 'sol']
  for (let round = 0; round < 200; round++) {
    const hits = Array.from({ length: Math.floor(random() * 25) }, (_, h) => ({
      id: `svc_${round}_${h}`,
      score: Math.round(random() * 10000) / 10000,
      matchedTokens: Array.from({ length: Math.floor(random() * 4) }, () => {
        const word = words[Math.floor(random() * words.length)] as string
        return {
          word,
          term: random() < 0.5 ? word : `${word}${Math.floor(random() * 5)}`,
          attribute: SEARCH_ATTRIBUTES[Math.floor(random() * SEARCH_ATTRIBUTES.length)] as MatchedToken['attribute'],
          kind: KINDS[Math.floor(random() * KINDS.length)] as MatchKind,
          typos: Math.floor(random() * 3)
        }
      })
    }))
    const result: SearchResult = { total: hits.length + Math.floor(random() * 1000), totalExact: random() < 0.5, hits }
    const wire = toWire(result)
    const distinct = new Set(hits.flatMap((hit) => hit.matchedTokens.flatMap((m) => [m.word, m.term])))
    if (wire.strings.length !== distinct.size) t.fail(`round ${round}: each word and term once (${wire.strings.length} against ${distinct.size})`)
    const back = fromWire(structuredClone(wire))
    if (JSON.stringify(back) !== JSON.stringify(result)) t.same(back, result, `round ${round}`)
  }
  t.pass('200 pages')
})
