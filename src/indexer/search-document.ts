/** Turns a service record into its search document: filter fields plus analyzed text. */
import { CATEGORIES } from '../domain/categories.js'
import type { ServiceRecord } from '../domain/service.js'
import { analyzeField } from '../search/analysis/analyzer.js'
import type { JapaneseTokenizer } from '../search/analysis/tokenizer.js'
import type { SearchDocument } from '../search/search-engine.js'
import { nameSortKey } from '../domain/sort-keys.js'
import { payToKey } from '../domain/pay-to.js'

const categoryText = new Map(CATEGORIES.map((c) => [c.id, `${c.name} ${c.nameJa}`]))

export function toSearchDocument (record: ServiceRecord, seq: number, tokenizer: JapaneseTokenizer): SearchDocument {
  // The category's English and Japanese names make "天気" find weather services whose text never says so.
  const text = {
    name: record.name,
    category: categoryText.get(record.category) ?? record.category,
    description: record.description
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
    text,
    terms: {
      name: analyzeField(text.name, tokenizer),
      category: analyzeField(text.category, tokenizer),
      description: analyzeField(text.description, tokenizer)
    }
  }
}
