/** The search document: the tags and the call schema an endpoint declares, at the description's weight, each after a gap. */
import { test } from 'tap'
import { AnalysisCache, toSearchDocument, SCHEMA_POSITION_GAP } from '../../indexer/search-document.js'
import { loadTokenizer } from '../../src/search/analysis/tokenizer.js'
import { toMeiliDocument } from '../../src/search/meilisearch/documents.js'
import { readSeedFile, seedRecords } from '../../src/domain/seed.js'
import type { CallSchema } from '../../src/domain/call-schema.js'
import type { ServiceRecord } from '../../src/domain/service.js'

const SCHEMA: CallSchema = {
  declaredIn: 'extensions.bazaar',
  method: 'GET',
  inputKind: 'query',
  bodyType: null,
  inputSchema: { type: 'object', properties: { cityName: { type: 'string', description: 'Where to forecast' }, days: { type: 'integer' } } },
  inputExample: { cityName: 'Tokyo', days: 3 },
  outputSchema: null,
  outputExample: null,
  mcpTool: null
}

test('the input schema\'s field names and descriptions follow the description, a gap apart, in both engines\' documents', async (t) => {
  const tokenizer = await loadTokenizer()
  const [base] = seedRecords(readSeedFile('demo'), '2025-01-01T00:00:00.000Z') as [ServiceRecord]
  const record: ServiceRecord = { ...base, description: 'Tide tables for harbours.', callSchema: SCHEMA }
  const doc = toSearchDocument(record, 1, tokenizer)
  const plain = toSearchDocument({ ...record, callSchema: undefined }, 1, tokenizer)
  t.same(doc.terms.name, plain.terms.name, 'name untouched')
  const described = new Map(doc.terms.description.map((term) => [term.term, term.position]))
  const last = Math.max(...plain.terms.description.map((term) => term.position))
  t.same(doc.terms.description.slice(0, plain.terms.description.length), plain.terms.description, 'the description first, as it was')
  for (const word of ['city', 'name', 'where', 'forecast', 'days']) {
    t.ok((described.get(word) ?? -1) >= last + SCHEMA_POSITION_GAP, `${word}: indexed, a gap after the description`)
  }
  t.equal(doc.text.description, 'Tide tables for harbours.\ncity Name Where to forecast days', 'the text Meilisearch reads: a hard separator between them')
  t.equal(toMeiliDocument(doc).description, doc.text.description)
  t.equal(toSearchDocument({ ...record, description: 'Tides' }, 1, tokenizer).text.description, 'Tides.\ncity Name Where to forecast days')
  t.equal(plain.text.description, 'Tide tables for harbours.', 'no schema, nothing appended')
})

test('the document lists the x402 extensions the endpoint declares: bazaar while it keeps a declaration', async (t) => {
  const tokenizer = await loadTokenizer()
  const [base] = seedRecords(readSeedFile('demo'), '2025-01-01T00:00:00.000Z') as [ServiceRecord]
  const plain: ServiceRecord = { ...base }
  delete plain.callSchema
  delete plain.bazaarExtension
  t.same(toSearchDocument(plain, 1, tokenizer).extensions, [], 'declaring nothing')
  const declaring = toSearchDocument({ ...plain, callSchema: SCHEMA, bazaarExtension: { info: { input: { type: 'http', method: 'GET' } } } }, 2, tokenizer)
  t.same(declaring.extensions, ['bazaar'])
  t.same(toMeiliDocument(declaring).extensions, ['bazaar'], 'Meilisearch gets the same keys')
})

test('the service\'s tags follow the description, a gap apart, before the call schema\'s words, in both engines\' documents', async (t) => {
  const tokenizer = await loadTokenizer()
  const [base] = seedRecords(readSeedFile('demo'), '2025-01-01T00:00:00.000Z') as [ServiceRecord]
  const record: ServiceRecord = { ...base, description: 'Tide tables for harbours', tags: ['Marine', '潮位'], callSchema: SCHEMA }
  const doc = toSearchDocument(record, 1, tokenizer)
  const plain = toSearchDocument({ ...record, tags: [], callSchema: undefined }, 1, tokenizer)
  t.same(doc.terms.name, plain.terms.name, 'name untouched')
  t.same(doc.terms.description.slice(0, plain.terms.description.length), plain.terms.description, 'the description first, as it was')
  const at = (word: string): number => doc.terms.description.find((term) => term.term === word)?.position ?? -1
  const last = Math.max(...plain.terms.description.map((term) => term.position))
  t.ok(at('marine') >= last + SCHEMA_POSITION_GAP, 'a tag: indexed, a gap after the description')
  t.equal(at('潮位'), at('marine') + 1, 'the tags next to each other')
  t.ok(at('city') >= at('潮位') + SCHEMA_POSITION_GAP, 'the call schema\'s words a gap after the tags')
  t.equal(doc.text.description, 'Tide tables for harbours.\nMarine, 潮位.\ncity Name Where to forecast days', 'the text Meilisearch reads: hard separators between them')
  const meili = toMeiliDocument(doc)
  t.equal(meili.description, doc.text.description)
  t.match(meili.description_ja, /潮位/, 'a Japanese tag in the kuromoji terms Meilisearch searches')
  t.equal(toSearchDocument({ ...record, callSchema: undefined }, 1, tokenizer).text.description, 'Tide tables for harbours.\nMarine, 潮位', 'tags alone')
})

test('an analysis cache gives the same document, analysing again only when the text changed, and stays bounded', async (t) => {
  const tokenizer = await loadTokenizer()
  const records = seedRecords(readSeedFile('demo'), '2025-01-01T00:00:00.000Z')
  const cache = new AnalysisCache()
  for (const record of records) t.same(toSearchDocument(record, 1, tokenizer, cache), toSearchDocument(record, 1, tokenizer), `${record.id}: as without the cache`)
  t.same([cache.hits, cache.misses], [0, records.length])
  const [first] = records as [ServiceRecord]
  const probed = { ...first, status: 'verified' as const, trustScore: 90 }
  t.same(toSearchDocument(probed, 2, tokenizer, cache), toSearchDocument(probed, 2, tokenizer), 'a change of status: the same analysis, the new fields')
  t.equal(cache.hits, 1, 'not analysed again')
  for (const changed of [{ ...first, description: 'Tide tables for harbours.' }, { ...first, tags: ['tides'] }, { ...first, category: 'finance' }, { ...first, name: 'Tide Tables' }, { ...first, callSchema: SCHEMA }]) {
    t.same(toSearchDocument(changed, 3, tokenizer, cache), toSearchDocument(changed, 3, tokenizer), 'a change of text is analysed again')
  }
  t.equal(cache.hits, 1)
  const many = new AnalysisCache()
  for (let i = 0; i < 3000; i++) toSearchDocument({ ...first, id: `svc_${String(i).padStart(24, 'a')}` }, i, tokenizer, many)
  toSearchDocument({ ...first, id: `svc_${String(0).padStart(24, 'a')}` }, 1, tokenizer, many)
  t.equal(many.hits, 0, 'the oldest went: at most 2048 kept')
  toSearchDocument({ ...first, id: `svc_${String(2999).padStart(24, 'a')}` }, 1, tokenizer, many)
  t.equal(many.hits, 1, 'the newest stayed')
})
