/** Turns a service record into its search document: filter fields plus analyzed text. */
import { CATEGORIES } from '../domain/categories.js'
import type { ServiceRecord } from '../domain/service.js'
import { analyzeField } from '../search/analysis/analyzer.js'
import type { JapaneseTokenizer } from '../search/analysis/tokenizer.js'
import type { DocumentTerm, SearchDocument } from '../search/search-engine.js'
import { callSchemaWords, declaredExtensions } from '../domain/call-schema.js'
import { nameSortKey } from '../domain/sort-keys.js'
import { payToKey } from '../domain/pay-to.js'

const categoryText = new Map(CATEGORIES.map((c) => [c.id, `${c.name} ${c.nameJa}`]))

/**
 * Positions between the description's words and the call schema's words appended after it, so
 * proximity never joins them (a phrase spanning both is no closer than two unrelated words).
 */
export const SCHEMA_POSITION_GAP = 100

/**
 * The description attribute's text and terms: the description, then the call schema's field names
 * and descriptions (callSchemaWords) after a gap, at the description's (lowest) weight. Meilisearch
 * reads the text: a full stop and a newline between them are a hard separator there, which it
 * counts as the largest word distance.
 */
function describedText (record: ServiceRecord, tokenizer: JapaneseTokenizer): { text: string, terms: DocumentTerm[] } {
  const description = analyzeField(record.description, tokenizer)
  const words = callSchemaWords(record.callSchema)
  if (words === '') return { text: record.description, terms: description }
  const start = description.reduce((max, term) => Math.max(max, term.position), -1) + SCHEMA_POSITION_GAP
  const schema = analyzeField(words, tokenizer).map((term) => ({ ...term, position: term.position + start }))
  const stop = /[.!?。！？]\s*$/.test(record.description) ? '' : '.'
  return { text: `${record.description.trimEnd()}${stop}\n${words}`, terms: [...description, ...schema] }
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
    priceAtomic: record.priceAtomic,
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
