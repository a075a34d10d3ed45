/** Turns a service record into its search document: filter fields plus analyzed text. */
import { LRUCache } from 'lru-cache'
import { CATEGORIES } from '../src/domain/categories.js'
import type { ServiceRecord } from '../src/domain/service.js'
import { analyzeField } from '../src/search/analysis/analyzer.js'
import type { JapaneseTokenizer } from '../src/search/analysis/tokenizer.js'
import type { DocumentTerm, SearchDocument } from '../src/search/search-engine.js'
import { callSchemaWords, declaredExtensions } from '../src/domain/call-schema.js'
import { nameSortKey, priceSortKey } from '../src/domain/sort-keys.js'
import { payToKey } from '../src/domain/pay-to.js'

const categoryText = new Map(CATEGORIES.map((c) => [c.id, `${c.name} ${c.nameJa}`]))

/**
 * Positions between the description's words and each text appended after it (the tags, the call
 * schema's words), so proximity never joins them (a phrase spanning both is no closer than two
 * unrelated words).
 */
export const SCHEMA_POSITION_GAP = 100

/**
 * The description attribute's text and terms: the description, then the service's tags, then the
 * call schema's field names and descriptions (callSchemaWords), each after a gap, at the
 * description's (lowest) weight (docs/search.md says why). Meilisearch reads the text: a full
 * stop and a newline between them are a hard separator there, which it counts as the largest
 * word distance.
 */
function describedText (record: ServiceRecord, tokenizer: JapaneseTokenizer): { text: string, terms: DocumentTerm[] } {
  let text = record.description
  const terms = analyzeField(record.description, tokenizer)
  for (const appended of [record.tags.join(', '), callSchemaWords(record.callSchema)]) {
    if (appended === '') continue
    const start = terms.reduce((max, term) => Math.max(max, term.position), -1) + SCHEMA_POSITION_GAP
    for (const term of analyzeField(appended, tokenizer)) terms.push({ ...term, position: term.position + start })
    const stop = /[.!?。！？]\s*$/.test(text) ? '' : '.'
    text = `${text.trimEnd()}${stop}\n${appended}`
  }
  return { text, terms }
}

type AnalyzedText = Pick<SearchDocument, 'text' | 'terms'>

/** A document's text and terms: the analysis, which is most of a document's cost. */
function analyzedText (record: ServiceRecord, tokenizer: JapaneseTokenizer): AnalyzedText {
  // The category's English and Japanese names make "天気" find weather services whose text never says so.
  const described = describedText(record, tokenizer)
  const text = {
    name: record.name,
    category: categoryText.get(record.category) ?? record.category,
    description: described.text
  }
  return {
    text,
    terms: {
      name: analyzeField(text.name, tokenizer),
      category: analyzeField(text.category, tokenizer),
      description: described.terms
    }
  }
}

/** Entries and bytes (approximate: text, plus ~80 per term) an AnalysisCache keeps at most. */
const CACHE_ENTRIES = 2048
const CACHE_BYTES = 8 * 1024 * 1024
const TERM_BYTES = 80

/**
 * The last analysis of each recently indexed service, while its text stays the same: a service
 * is often indexed again for a change that leaves its text alone (a probe's status, a source
 * added to its provenance right after the pass inserted it), and the analysis is then skipped.
 * Bounded in entries and bytes; the least recently used goes first.
 */
export class AnalysisCache {
  readonly #entries = new LRUCache<string, { key: string, analyzed: AnalyzedText }>({
    max: CACHE_ENTRIES,
    maxSize: CACHE_BYTES,
    sizeCalculation: ({ key, analyzed }) => 2 * (key.length + analyzed.text.description.length) +
      TERM_BYTES * (analyzed.terms.name.length + analyzed.terms.category.length + analyzed.terms.description.length)
  })

  hits = 0
  misses = 0

  analyze (record: ServiceRecord, tokenizer: JapaneseTokenizer): AnalyzedText {
    const key = JSON.stringify([record.name, record.category, record.description, record.tags, record.callSchema ?? null])
    const found = this.#entries.get(record.id)
    if (found?.key === key) {
      this.hits++
      return found.analyzed
    }
    this.misses++
    const analyzed = analyzedText(record, tokenizer)
    this.#entries.set(record.id, { key, analyzed })
    return analyzed
  }
}

export function toSearchDocument (record: ServiceRecord, seq: number, tokenizer: JapaneseTokenizer, cache?: AnalysisCache): SearchDocument {
  const { text, terms } = cache === undefined ? analyzedText(record, tokenizer) : cache.analyze(record, tokenizer)
  return {
    id: record.id,
    seq,
    category: record.category,
    status: record.status,
    chains: record.supportedChains,
    priceAtomic: priceSortKey(record.priceAtomic),
    trustScore: record.trustScore,
    nameSort: nameSortKey(record.name),
    createdAt: record.createdAt,
    payTo: payToKey(record.paymentAddress),
    extensions: declaredExtensions(record),
    text,
    terms
  }
}
