/**
 * The search routes send their answers written around the services' stored JSON
 * (writeCatalogSearch, writeIntentSearch): the bytes must be those Fastify's serializer writes
 * for the documented schema from whole services, for every shape of answer.
 */
import { test } from 'tap'
import Fastify, { type FastifyReply } from 'fastify'
import type { TSchema } from '@sinclair/typebox'
import { readSeedFile, seedRecords } from '../../src/domain/seed.js'
import { toService, toServiceJson, type ServiceRecord } from '../../src/domain/service.js'
import { CatalogSearchResponse, IntentSearchResponse, writeCatalogSearch, writeIntentSearch, type SerializerOf } from '../../src/routes/schemas/search.js'

const records = seedRecords(readSeedFile('demo'), '2025-01-01T00:00:00.000Z')
const [a, b] = records as [ServiceRecord, ServiceRecord]
// Text that needs escaping, and characters outside the BMP: what the two writers must agree on.
const odd: ServiceRecord = { ...b, name: 'Quote " back\\slash \u0001 改行\n🙂', description: '\u2028 line separator </script>', tags: ['é', ''] }

/** An answer of `write`, with whole records in place of the services' JSON. */
type Case<Answer extends { results: Array<{ service: unknown }> }> = Omit<Answer, 'results'> & { hits: Array<[ServiceRecord, Omit<Answer['results'][number], 'service'>]> }
type CatalogAnswer = Parameters<typeof writeCatalogSearch>[0]
type IntentAnswer = Parameters<typeof writeIntentSearch>[0]

const match = { word: 'wether', term: 'weather', attribute: 'name' as const, kind: 'typo' as const, typos: 1 }
const catalogAnswers: Array<Case<CatalogAnswer>> = [
  { query: 'weather', total: 2, totalExact: true, hits: [[a, { score: 0.9, matchedTokens: ['weather'], matches: [match], uptimeScore: 99.5 }], [odd, { score: 0, matchedTokens: [], matches: [], uptimeScore: null }]] },
  { query: '', total: 0, totalExact: false, hits: [], facetDistribution: { category: {}, network: { 'eip155:8453': 3 } } },
  { query: 'cheap "on" solana', total: 1, totalExact: true, hits: [[odd, { score: 1, matchedTokens: ['x'], matches: [match, match], uptimeScore: 0 }]], filters: { chain: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', sortBy: 'price' }, removed: ['cheap', 'on solana'] },
  { query: 'q', total: 1, totalExact: true, hits: [[a, { score: 0.5, matchedTokens: ['q'], matches: [], uptimeScore: 12 }]], facetDistribution: { status: { verified: 1 } }, filters: {}, removed: [] }
]

const intentAnswers: Array<Case<IntentAnswer>> = [
  { query: '東京の天気を知りたい', tokens: ['東京', '天気'], total: 2, filters: {}, removed: [], hits: [[a, { score: 0.7, matchedTokens: ['天気'], reason: '「天気」に一致。' }], [odd, { score: 0.1, matchedTokens: [], reason: 'Matches "x" \\ y' }]] },
  { query: 'cheap', tokens: [], total: 0, filters: { sortBy: 'price', maxPricePerRequest: '0.01' }, removed: ['cheap'], hits: [] }
]

test('catalog and intent answers written around the stored service JSON are the bytes the schema\'s serializer writes', async (t) => {
  const app = Fastify()
  t.teardown(async () => { await app.close() })
  // Each answer twice: serialized by Fastify from whole services, and written from their JSON bytes.
  const serializerOf = (reply: FastifyReply): SerializerOf => (schema: TSchema) => reply.compileSerializationSchema(schema)
  // One route per answer kind: /<name>/<case>/serialized or /written.
  const route = <Answer extends { results: Array<{ service: unknown }> }>(name: string, schema: TSchema, answers: Array<Case<Answer>>, write: (answer: Answer, serializerOf: SerializerOf) => Buffer): void => {
    app.get(`/${name}/:i/:how`, { schema: { response: { 200: schema } } }, async (request, reply) => {
      const { i, how } = request.params as { i: string, how: string }
      const { hits, ...answer } = answers[Number(i)] as Case<Answer>
      if (how === 'serialized') return { ...answer, results: hits.map(([record, hit]) => ({ service: toService(record), ...hit })) }
      return await reply.type('application/json; charset=utf-8')
        .send(write({ ...answer, results: hits.map(([record, hit]) => ({ service: Buffer.from(toServiceJson(record)), ...hit })) } as unknown as Answer, serializerOf(reply)))
    })
  }
  route('catalog', CatalogSearchResponse, catalogAnswers, writeCatalogSearch)
  route('intent', IntentSearchResponse, intentAnswers, writeIntentSearch)
  for (const [route, count] of [['catalog', catalogAnswers.length], ['intent', intentAnswers.length]] as const) {
    for (let i = 0; i < count; i++) {
      const serialized = await app.inject(`/${route}/${i}/serialized`)
      const written = await app.inject(`/${route}/${i}/written`)
      t.equal(serialized.statusCode, 200)
      t.equal(written.body, serialized.body, `${route} answer ${i}: the same bytes`)
      t.equal(written.headers['content-type'], serialized.headers['content-type'], `${route} answer ${i}: the same content type`)
    }
  }
})
