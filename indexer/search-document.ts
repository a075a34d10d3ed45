/** Turns a service record into its search document: filter fields plus analyzed text. */
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

export function toSearchDocument (record: ServiceRecord, seq: number, tokenizer: JapaneseTokenizer): SearchDocument {
  // The category's English and Japanese names make "天気" find weather services whose text never says so.
  const described = describedText(record, tokenizer)
  const text = {
    name: record.name,
    category: categoryText.get(record.category) ?? record.category,
    description: described.text
  }
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
    terms: {
      name: analyzeField(text.name, tokenizer),
      category: analyzeField(text.category, tokenizer),
      description: described.terms
    }
  }
}
