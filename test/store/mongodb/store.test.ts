/**
 * The MongoDB store's pure parts, with the driver's own BSON types: document mapping (and
 * what the BSON encoder really writes), the validator against the mapping, the filter and
 * sort builders against the indexes, the change-feed merge. The adapter against a server:
 * test/contract/catalog-store.test.ts (MONGO_URL).
 */
import { test } from 'tap'
import { BSON, Decimal128, Long, MongoBulkWriteError, MongoServerError } from 'mongodb'
import { readSeedFile, seedRecords } from '../../../src/domain/seed.js'
import type { ServiceRecord } from '../../../src/domain/service.js'
import { SORT_FIELDS } from '../../../src/domain/catalog-query.js'
import { DuplicateEndpointError } from '../../../src/errors.js'
import { mergeFeed } from '../../../src/store/mongodb/feed.js'
import {
  decimalString, fromApiKeyDocument, fromLong, fromServiceDocument, toApiKeyDocument, toLong, toServiceDocument,
  type ServiceDocument, type TombstoneDocument
} from '../../../src/store/mongodb/mapping.js'
import { duplicateEndpointOf, redactMongoUrl, WRITE_CONCERN } from '../../../src/store/mongodb/mongo-store.js'
import { serviceFilter, serviceSort } from '../../../src/store/mongodb/query.js'
import { API_KEY_VALIDATOR, EQUALITY_FILTER_KEYS, SERVICE_VALIDATOR, SORT_KEYS, TOMBSTONE_VALIDATOR, serviceIndexes } from '../../../src/store/mongodb/schema.js'

const records = seedRecords(readSeedFile('demo'), '2025-01-02T03:04:05.678Z')
const record = records[0] as ServiceRecord

/** The BSON type name ($jsonSchema `bsonType`) of a value as the driver would encode it. */
function bsonTypeOf (value: unknown): string {
  const [decoded] = Object.values(BSON.deserialize(BSON.serialize({ v: value }), { promoteLongs: false, promoteValues: false }))
  if (decoded === null) return 'null'
  if (Array.isArray(decoded)) return 'array'
  if (decoded instanceof Date) return 'date'
  return (decoded as { _bsontype?: string })._bsontype?.replace(/^Int32$/, 'int').replace(/^Double$/, 'double').replace(/^Long$/, 'long')
    .replace(/^Decimal128$/, 'decimal').replace(/^BSONRegExp$/, 'regex') ?? typeof decoded
}

test('a record survives the trip through BSON exactly, money as Int64 and Decimal128', async (t) => {
  for (const r of records) {
    const bytes = BSON.serialize(toServiceDocument(r, 7))
    // Default decoding (small Longs promoted to numbers) and strict decoding both map back.
    t.same(fromServiceDocument(BSON.deserialize(bytes) as ServiceDocument), r)
    t.same(fromServiceDocument(BSON.deserialize(bytes, { promoteLongs: false }) as ServiceDocument), r)
  }
  const big = { ...record, priceAtomic: 1_000_000_000_000, txCount: 2 ** 53 - 1, totalRevenue: '123456789012345678901234.000001' }
  const raw = BSON.deserialize(BSON.serialize(toServiceDocument(big, 1)), { promoteLongs: false })
  t.ok(raw.priceAtomic instanceof Long, 'a price is written as Int64, never as a double')
  t.equal((raw.priceAtomic as Long).toString(), '1000000000000')
  t.ok(raw.totalRevenue instanceof Decimal128)
  t.same(fromServiceDocument(raw as ServiceDocument), big, 'large values come back exactly')
  t.equal(bsonTypeOf(toServiceDocument(record, 1).priceAtomic), 'long')
})

test('integers that do not fit a JS number exactly are refused, not rounded', async (t) => {
  t.throws(() => toLong(0.5, 'priceAtomic'), /priceAtomic must be a non-negative safe integer/)
  t.throws(() => toLong(-1, 'priceAtomic'), RangeError)
  t.throws(() => toLong(2 ** 53, 'priceAtomic'), RangeError)
  t.throws(() => fromLong(Long.fromString('9007199254740993'), 'txCount'), /does not fit a JS number exactly/)
  t.equal(fromLong(Long.fromString('9007199254740991'), 'txCount'), 2 ** 53 - 1)
  t.equal(fromLong(42, 'seq'), 42)
  t.equal(fromLong(42n, 'seq'), 42)
  t.throws(() => fromLong(1.5, 'seq'), RangeError)
})

test('revenue keeps its plain decimal notation', async (t) => {
  for (const text of ['0', '12.5', '1.50', '0.000001', '0.0000001', '1000000', '123456789.123456']) {
    t.equal(decimalString(Decimal128.fromString(text)), text, text)
  }
  t.equal(decimalString(Decimal128.fromString('1E+3')), '1000')
  t.equal(decimalString(Decimal128.fromString('1.5E-8')), '0.000000015')
  t.equal(decimalString(Decimal128.fromString('12.5E+1')), '125')
})

test('API keys: only the hash is stored; dates round-trip', async (t) => {
  const key = { id: 'key_0123456789abcdef', name: 'acme', hash: 'a'.repeat(64), createdAt: '2025-01-02T03:04:05.678Z', revokedAt: null }
  const doc = toApiKeyDocument(key)
  t.same(Object.keys(doc).sort(), ['_id', 'createdAt', 'hash', 'name', 'revokedAt'])
  t.same(fromApiKeyDocument(BSON.deserialize(BSON.serialize(doc)) as typeof doc), key)
  const revoked = { ...key, revokedAt: '2025-02-01T00:00:00.000Z' }
  t.same(fromApiKeyDocument(toApiKeyDocument(revoked)), revoked)
  const schema = API_KEY_VALIDATOR.$jsonSchema as { required: string[], properties: Record<string, { pattern?: string }> }
  t.same([...schema.required].sort(), Object.keys(doc).sort())
  t.ok(new RegExp(schema.properties.hash?.pattern ?? '').test(doc.hash), 'the validator admits a sha256 hex digest')
  t.notOk(new RegExp(schema.properties.hash?.pattern ?? '').test('x402c_the-key-itself'), 'and refuses anything else')
})

test('the validators describe exactly what the mapping writes', async (t) => {
  type Schema = { required: string[], additionalProperties: boolean, properties: Record<string, { bsonType?: string | string[], enum?: string[] }> }
  const check = (label: string, schema: Schema, docs: Array<Record<string, unknown>>): void => {
    t.equal(schema.additionalProperties, false, `${label}: no unknown fields`)
    for (const doc of docs) {
      t.same([...schema.required].sort(), Object.keys(doc).sort(), `${label}: every written field is required, and no other`)
      for (const [field, value] of Object.entries(doc)) {
        const rule = schema.properties[field]
        if (rule?.enum !== undefined) { t.ok(rule.enum.includes(value as string), `${label}.${field} in its enum`); continue }
        const allowed = [rule?.bsonType].flat()
        t.ok(allowed.includes(bsonTypeOf(value)), `${label}.${field}: ${bsonTypeOf(value)} is one of ${allowed.join(', ')}`)
      }
    }
  }
  const monitored = { ...record, uptimeScore: 99.5, lastChecked: '2025-01-01T00:00:00.000Z', ownerId: 'key_x' }
  check('services', SERVICE_VALIDATOR.$jsonSchema as Schema, [toServiceDocument(record, 1), toServiceDocument(monitored, 2)] as unknown as Array<Record<string, unknown>>)
  const tombstone: TombstoneDocument = { _id: record.id, seq: Long.fromNumber(3), deletedAt: new Date() }
  check('tombstones', TOMBSTONE_VALIDATOR.$jsonSchema as Schema, [tombstone as unknown as Record<string, unknown>])
})

test('filters are values under $eq and a price bound is an Int64', async (t) => {
  t.same(serviceFilter({}), {})
  const filter = serviceFilter({ category: 'weather', status: 'verified', chain: 'eip155:8453', maxPriceAtomic: 1000 }) as Record<string, Record<string, unknown>>
  t.same(filter.category, { $eq: 'weather' })
  t.same(filter.status, { $eq: 'verified' })
  t.same(filter.supportedChains, { $eq: 'eip155:8453' })
  t.ok(filter.priceAtomic?.$lte instanceof Long)
  t.equal((filter.priceAtomic?.$lte as Long).toNumber(), 1000)
  // A value that looks like an operator stays a string compared for equality.
  const hostile = serviceFilter({ category: '{"$ne": null}' }) as Record<string, Record<string, unknown>>
  t.same(hostile.category, { $eq: '{"$ne": null}' })
  t.same(BSON.deserialize(BSON.serialize(hostile)), { category: { $eq: '{"$ne": null}' } })
})

test('every sort ends with _id in the same direction', async (t) => {
  for (const field of SORT_FIELDS) {
    t.same(serviceSort({ field, order: 'asc' }), { [SORT_KEYS[field]]: 1, _id: 1 })
    t.same(serviceSort({ field, order: 'desc' }), { [SORT_KEYS[field]]: -1, _id: -1 })
    t.same(Object.keys(serviceSort({ field, order: 'desc' })), [SORT_KEYS[field], '_id'], 'the sort field comes first')
  }
})

test('each filter × sort of the list endpoint has an index that provides the order', async (t) => {
  const indexes = serviceIndexes()
  const keys = indexes.map((index) => Object.entries(index.key as Record<string, number>))
  const has = (prefix: Array<[string, number]>): boolean => keys.some((key) => prefix.every(([field, dir], i) => key[i]?.[0] === field && key[i]?.[1] === dir) && key.length === prefix.length)
  for (const field of SORT_FIELDS) {
    const sort = SORT_KEYS[field]
    t.ok(has([[sort, 1], ['_id', 1]]), `unfiltered, by ${field}`)
    for (const filter of Object.values(EQUALITY_FILTER_KEYS)) t.ok(has([[filter, 1], [sort, 1], ['_id', 1]]), `${filter} = x, by ${field}`)
  }
  t.ok(indexes.some((index) => index.unique === true && Object.keys(index.key as object).join() === 'endpoint'), 'endpoints are unique')
  t.ok(indexes.some((index) => index.unique === true && Object.keys(index.key as object).join() === 'seq'), 'change sequences are unique')
  t.ok(indexes.length <= 64, 'within MongoDB\'s indexes per collection')
  t.equal(new Set(indexes.map((index) => index.name)).size, indexes.length, 'index names are distinct')
})

test('the change feed merges services and tombstones in sequence order, newest state per id', async (t) => {
  const [a, b, c] = records as [ServiceRecord, ServiceRecord, ServiceRecord]
  const doc = (r: ServiceRecord, seq: number): ServiceDocument => toServiceDocument(r, seq)
  const tomb = (id: string, seq: number): TombstoneDocument => ({ _id: id, seq: Long.fromNumber(seq), deletedAt: new Date() })
  const feed = mergeFeed([doc(a, 2), doc(b, 5)], [tomb('svc_gone', 3), tomb(c.id, 4)], 10)
  t.same(feed.map((e) => [e.seq, e.id, e.service === null ? null : e.service.id]), [[2, a.id, a.id], [3, 'svc_gone', null], [4, c.id, null], [5, b.id, b.id]])
  // Read while a deletion committed: the live state at 2 and the tombstone at 6 → only the tombstone.
  t.same(mergeFeed([doc(a, 2)], [tomb(a.id, 6)], 10).map((e) => [e.seq, e.service]), [[6, null]])
  // Deleted, then registered again: the live document is newer.
  t.same(mergeFeed([doc(a, 9)], [tomb(a.id, 6)], 10).map((e) => [e.seq, e.service?.id]), [[9, a.id]])
  t.same(mergeFeed([doc(a, 1), doc(b, 2)], [tomb('x', 3)], 2).map((e) => e.seq), [1, 2], 'at most limit entries, the oldest')
})

test('writes are majority-acknowledged and journaled; credentials never reach a message', async (t) => {
  t.same(WRITE_CONCERN, { w: 'majority', journal: true })
  t.equal(redactMongoUrl('mongodb://user:secret@mongo:27017/catalog?replicaSet=rs0'), 'mongodb://***@mongo:27017/catalog?replicaSet=rs0')
  t.equal(redactMongoUrl('mongodb+srv://u:p@cluster.example.net/cat'), 'mongodb+srv://***@cluster.example.net/cat')
  t.equal(redactMongoUrl('mongodb://mongo:27017/catalog'), 'mongodb://mongo:27017/catalog')
})

test('the payTo filter: EVM case-insensitive and anchored, Solana exact, never a pattern', async (t) => {
  const evm = serviceFilter({ payTo: '0x6A8607afb7ac96d2c8a3e1b44560ff101b34550B' }) as { paymentAddress: { $regex: string, $options: string } }
  t.same(evm, { paymentAddress: { $regex: '^0x6a8607afb7ac96d2c8a3e1b44560ff101b34550b$', $options: 'i' } })
  const regex = new RegExp(evm.paymentAddress.$regex, evm.paymentAddress.$options)
  t.ok(regex.test('0x6a8607AFB7AC96D2C8A3E1B44560FF101B34550B'))
  t.notOk(regex.test('0x6a8607afb7ac96d2c8a3e1b44560ff101b34550b0'))
  const hostile = serviceFilter({ payTo: '0x.*' }) as { paymentAddress: { $regex: string } }
  t.notOk(new RegExp(hostile.paymentAddress.$regex, 'i').test('0x1111'), 'metacharacters are escaped')
  t.same(serviceFilter({ payTo: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM' }), { paymentAddress: { $eq: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM' } })
})

test('a duplicate-key error is a DuplicateEndpointError only when the endpoint index clashed', async (t) => {
  const [a, b] = records as [ServiceRecord, ServiceRecord]
  const message = 'E11000 duplicate key error collection: catalog.services'
  // A single-document write's error names the index (the server's keyPattern and keyValue).
  const single = (key: string, value: string): MongoServerError => new MongoServerError({ message, code: 11000, keyPattern: { [key]: 1 }, keyValue: { [key]: value } })
  const nobody = async (): Promise<boolean> => { throw new Error('no lookup needed') }
  const onEndpoint = await duplicateEndpointOf(single('endpoint', b.endpoint), [a], nobody)
  t.ok(onEndpoint instanceof DuplicateEndpointError, 'keyPattern endpoint')
  t.match((onEndpoint as Error).message, b.endpoint, 'naming the endpoint the index saw')
  const onId = single('_id', a.id)
  t.equal(await duplicateEndpointOf(onId, [a], nobody), onId, 'keyPattern _id: the error as it is')
  const other = new MongoServerError({ message: 'write conflict', code: 112 })
  t.equal(await duplicateEndpointOf(other, [a], nobody), other, 'another code: as it is')

  // insertMany's bulk error keeps only each write error's index, code and message.
  const bulk = (index: number): MongoBulkWriteError => new MongoBulkWriteError({ message, code: 11000, writeErrors: [{ index, code: 11000, errmsg: message }] as never }, {} as never)
  const held = (endpoint: string) => async (record: ServiceRecord): Promise<boolean> => record.endpoint === endpoint
  const inBatch = await duplicateEndpointOf(bulk(1), [a, b], held(b.endpoint))
  t.ok(inBatch instanceof DuplicateEndpointError, 'the failed record\'s endpoint held by another service')
  t.match((inBatch as Error).message, b.endpoint)
  const idClash = bulk(1)
  t.equal(await duplicateEndpointOf(idClash, [a, b], held('https://nobody.example/')), idClash, 'no other holder: not the endpoint (the id clashed)')
  t.ok(await duplicateEndpointOf(bulk(1), [a, { ...b, endpoint: a.endpoint }], held('https://nobody.example/')) instanceof DuplicateEndpointError,
    'held by an earlier record of the same batch')
  const twice = bulk(1)
  t.equal(await duplicateEndpointOf(twice, [a, a], held('https://nobody.example/')), twice, 'the same record twice: its id clashed')
})
