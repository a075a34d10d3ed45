/**
 * The MongoDB store's pure parts, with the driver's own BSON types: document mapping (and
 * what the BSON encoder really writes), the validators against the mapping, which databases
 * opening sets up, opens or refuses (the layout marker), the filter, sort and aggregation
 * builders against the indexes, the change-feed merge. The adapter against a server:
 * test/contract/catalog-store.test.ts and test/store/mongodb/layout.test.ts (MONGO_URL).
 */
import { test } from 'tap'
import { BSON, Decimal128, Long, MongoBulkWriteError, MongoServerError, ObjectId } from 'mongodb'
import { readSeedFile, seedRecords } from '../../../src/domain/seed.js'
import type { ServiceRecord } from '../../../src/domain/service.js'
import { DYNAMIC_PRICE_KEY } from '../../../src/domain/sort-keys.js'
import type { PaymentRecord, ServiceUsage } from '../../../src/domain/payment.js'
import { SORT_FIELDS } from '../../../src/domain/catalog-query.js'
import { CatalogError, DuplicateEndpointError } from '../../../src/errors.js'
import { mergeFeed } from '../../../src/store/mongodb/feed.js'
import {
  decimalString, fromApiKeyDocument, fromAtomicDecimal, fromCheckpointDocument, fromLong, fromPaymentDocument, fromServiceDocument, fromUsageDocument,
  toApiKeyDocument, toAmountLong, toAtomicDecimal, toLong, toPaymentDocument, toServiceDocument, toUsageDocument,
  type CheckpointDocument, type PayToScanDocument, type PaymentDocument, type ServiceDocument, type TombstoneDocument
} from '../../../src/store/mongodb/mapping.js'
import { redactMongoUrl, WRITE_CONCERN } from '../../../src/store/mongodb/connection.js'
import { duplicateEndpointOf } from '../../../src/store/mongodb/services.js'
import { paymentUpserts } from '../../../src/store/mongodb/payments.js'
import { TEST_NETWORK_IDS } from '../../../src/domain/networks.js'
import type { SourceRecord, SyncReport } from '../../../src/domain/sources.js'
import { fromSourceDocument, toSourceDocument } from '../../../src/store/mongodb/sources.js'
import { fromOriginProofDocument, toOriginProofDocument } from '../../../src/store/mongodb/origin-proofs.js'
import { PAYMENT_ORDER, paymentFilter, paymentSummaryPipeline, serviceFilter, serviceSort, toPaymentSummary } from '../../../src/store/mongodb/query.js'
import {
  API_KEY_VALIDATOR, CHECKPOINT_INDEXES, CHECKPOINT_VALIDATOR, COLLECTIONS, EQUALITY_FILTER_KEYS, PAYMENT_INDEXES, PAYMENT_VALIDATOR, PAY_TO_SCAN_INDEXES,
  PAY_TO_SCAN_VALIDATOR, SERVICE_VALIDATOR, SORT_KEYS, STORE_LAYOUT, STORE_META_VALIDATOR, TOMBSTONE_VALIDATOR, VALIDATORS, MongoStoreLayoutError,
  SOURCE_VALIDATOR, ORIGIN_PROOF_INDEXES, ORIGIN_PROOF_VALIDATOR, layoutVerdict, serviceIndexes, type LayoutMarkerDocument, type OriginProofDocument, type SourceDocument
} from '../../../src/store/mongodb/schema.js'

const records = seedRecords(readSeedFile('demo'), '2025-01-02T03:04:05.678Z')
const record = records[0] as ServiceRecord

/** The BSON type name ($jsonSchema `bsonType`) of a value as the driver would encode it. */
function bsonTypeOf (value: unknown): string {
  const [decoded] = Object.values(BSON.deserialize(BSON.serialize({ v: value }), { promoteLongs: false, promoteValues: false }))
  if (decoded === null) return 'null'
  if (Array.isArray(decoded)) return 'array'
  if (decoded instanceof Date) return 'date'
  if (typeof decoded === 'boolean') return 'bool'
  return (decoded as { _bsontype?: string })._bsontype?.replace(/^Int32$/, 'int').replace(/^Double$/, 'double').replace(/^Long$/, 'long')
    .replace(/^Decimal128$/, 'decimal').replace(/^BSONRegExp$/, 'regex').replace(/^ObjectId$/, 'objectId') ?? typeof decoded
}

const usage: ServiceUsage = {
  txCount: 12,
  revenueAtomic: '12000',
  uniquePayers: 3,
  lastPaymentAt: '2025-01-01T10:00:00.000Z',
  txCount30d: 4,
  revenue30dAtomic: '4000',
  uniquePayers30d: 2,
  scope: 'service',
  computedAt: '2025-01-02T00:00:00.000Z'
}

/** Both ways the driver may decode: small Longs promoted to numbers (its default), or every Long kept. */
function decodings<T> (doc: object): T[] {
  const bytes = BSON.serialize(doc)
  return [BSON.deserialize(bytes) as T, BSON.deserialize(bytes, { promoteLongs: false }) as T]
}

test('a record survives the trip through BSON exactly, money as Int64 and Decimal128', async (t) => {
  for (const r of [...records, { ...record, usage }, { ...record, usage: { ...usage, lastPaymentAt: null, scope: 'shared' as const } }, { ...record, priceAtomic: null }]) {
    for (const decoded of decodings<ServiceDocument>(toServiceDocument(r, 7))) t.same(fromServiceDocument(decoded), r)
  }
  const bigUsage: ServiceUsage = { ...usage, txCount: 2 ** 53 - 1, revenueAtomic: '123456789012345678901234567890', uniquePayers30d: 2 ** 40, revenue30dAtomic: '9223372036854775808' }
  const big = { ...record, priceAtomic: 1_000_000_000_000, usage: bigUsage }
  const raw = BSON.deserialize(BSON.serialize(toServiceDocument(big, 1)), { promoteLongs: false })
  t.ok(raw.priceAtomic instanceof Long, 'a price is written as Int64, never as a double')
  t.equal((raw.priceAtomic as Long).toString(), '1000000000000')
  t.ok(raw.usage.txCount instanceof Long, 'usage counts are Int64')
  t.ok(raw.usage.revenueAtomic instanceof Decimal128, 'revenues are Decimal128 (a sum of Int64 amounts may pass Int64)')
  t.ok(raw.usage.computedAt instanceof Date)
  t.same(fromServiceDocument(raw as ServiceDocument), big, 'large values come back exactly')
  t.equal(bsonTypeOf(toServiceDocument(record, 1).priceAtomic), 'long')
  const dynamic = BSON.deserialize(BSON.serialize(toServiceDocument({ ...record, priceAtomic: null }, 1)), { promoteLongs: false })
  t.equal((dynamic.priceAtomic as Long).toString(), String(DYNAMIC_PRICE_KEY), 'a dynamic price is kept as its sort key, an Int64 above every fixed price')
})

test('usage figures: exact atomic revenue, refused rather than rounded', async (t) => {
  t.same(fromUsageDocument(toUsageDocument(usage)), usage)
  const max34 = '9'.repeat(34)
  t.equal(fromAtomicDecimal(toAtomicDecimal(max34, 'r'), 'r'), max34, '34 digits are exact in a Decimal128')
  t.equal(fromAtomicDecimal(toAtomicDecimal('000120', 'r'), 'r'), '120', 'leading zeros do not count as digits')
  t.throws(() => toAtomicDecimal('1'.repeat(35), 'usage.revenueAtomic'), RangeError, '35 digits would be rounded: refused')
  for (const bad of ['-1', '1.5', '1e3', '', ' 1', '0x10']) t.throws(() => toAtomicDecimal(bad, 'r'), RangeError, `${JSON.stringify(bad)} is not an atomic amount`)
  t.throws(() => fromAtomicDecimal(Decimal128.fromString('1.5'), 'r'), RangeError, 'a stored fraction is not read as units')
  t.equal(fromAtomicDecimal(Decimal128.fromString('1.2E+3'), 'r'), '1200')
  t.throws(() => toUsageDocument({ ...usage, txCount: 2 ** 53 }), RangeError)
  t.throws(() => toUsageDocument({ ...usage, computedAt: 'yesterday' }), RangeError)
})

const payment: PaymentRecord = {
  network: 'eip155:8453',
  txHash: '0x' + 'ab'.repeat(32),
  logIndex: 7,
  blockNumber: 23_456_789,
  blockHash: '0x' + 'cd'.repeat(32),
  at: '2025-01-01T10:00:00.000Z',
  payer: '0x' + '11'.repeat(20),
  payTo: '0x' + '22'.repeat(20),
  amount: '10000',
  serviceId: 'svc_aaaaaaaaaaaaaaaaaaaaaaaa'
}

test('payments: amounts exact as Int64 up to its maximum, refused beyond it', async (t) => {
  for (const p of [payment, { ...payment, serviceId: null }, { ...payment, amount: '9223372036854775807' }, { ...payment, amount: '9007199254740993' }, { ...payment, amount: '0' }]) {
    for (const decoded of decodings<PaymentDocument>(toPaymentDocument(p.network, p))) t.same(fromPaymentDocument(decoded), p, `amount ${p.amount}`)
  }
  const raw = BSON.deserialize(BSON.serialize(toPaymentDocument(payment.network, payment)), { promoteLongs: false })
  t.ok(raw.amount instanceof Long, 'an amount is an Int64, never a double')
  t.ok(raw.blockNumber instanceof Long)
  t.equal(toPaymentDocument('eip155:84532', payment).network, 'eip155:84532', 'stored under the commit\'s network')
  t.throws(() => toPaymentDocument(payment.network, { ...payment, amount: '9223372036854775808' }), RangeError, '2^63 is beyond Int64: refused')
  t.throws(() => toAmountLong('99999999999999999999999'), /beyond what the store keeps/)
  for (const bad of ['-1', '1.5', '', '1e6']) t.throws(() => toAmountLong(bad), RangeError, `${JSON.stringify(bad)} refused`)
  t.throws(() => toPaymentDocument(payment.network, { ...payment, blockNumber: -1 }), RangeError)
  const checkpoint: CheckpointDocument = { network: payment.network, blockNumber: Long.fromNumber(100), blockHash: payment.blockHash }
  for (const decoded of decodings<CheckpointDocument>(checkpoint)) t.same(fromCheckpointDocument(decoded), { blockNumber: 100, blockHash: payment.blockHash })
})

test('a scanned range is stored as upserts: new payments inserted whole, stored ones left as they are', async (t) => {
  const second = { ...payment, logIndex: 8, amount: '20000' }
  const ops = paymentUpserts('eip155:8453', { payments: [payment, second] })
  t.equal(ops.length, 2)
  const op = ops[0] as { updateOne: { filter: Record<string, { $eq: unknown }>, update: { $setOnInsert: PaymentDocument }, upsert: boolean } }
  t.equal(op.updateOne.upsert, true)
  t.same(Object.keys(op.updateOne.filter), ['network', 'txHash', 'logIndex'], 'matched on the unique key only')
  t.same(Object.keys(op.updateOne.update), ['$setOnInsert'], 'nothing is changed on a payment already stored')
  t.same(op.updateOne.update.$setOnInsert, toPaymentDocument('eip155:8453', payment))
  t.ok(op.updateOne.filter.logIndex?.$eq instanceof Long, 'the key compares as the stored Int64')
  const unique = PAYMENT_INDEXES.find((index) => index.unique === true)
  t.same(Object.keys(unique?.key as object), Object.keys(op.updateOne.filter), 'the filter is the unique index\'s key')
  t.same(paymentUpserts('eip155:8453', { payments: [] }), [])
  t.throws(() => paymentUpserts('eip155:8453', { payments: [payment, { ...second, amount: '9223372036854775808' }] }), RangeError,
    'an amount beyond Int64 refuses the whole commit before anything is written')
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

type JsonSchema = {
  bsonType?: string | string[]
  enum?: unknown[]
  required?: string[]
  additionalProperties?: boolean
  properties?: Record<string, JsonSchema>
  items?: JsonSchema
  pattern?: string
  minItems?: number
}

/** What a `$jsonSchema` of the keywords schema.ts uses finds wrong with a document as the driver encodes it (MongoDB's rules: type-specific keywords pass other types). */
function violations (schema: JsonSchema, value: unknown, path = 'doc'): string[] {
  const type = bsonTypeOf(value)
  if (schema.enum !== undefined) return schema.enum.includes(value) ? [] : [`${path}: ${String(value)} not in enum`]
  if (schema.bsonType !== undefined && ![schema.bsonType].flat().includes(type)) return [`${path}: ${type} is not ${[schema.bsonType].flat().join('|')}`]
  const found: string[] = []
  if (type === 'object') {
    const doc = value as Record<string, unknown>
    for (const field of schema.required ?? []) if (!(field in doc)) found.push(`${path}.${field}: required`)
    for (const [field, inner] of Object.entries(doc)) {
      const rule = schema.properties?.[field]
      if (rule === undefined) { if (schema.additionalProperties === false) found.push(`${path}.${field}: not allowed`); continue }
      found.push(...violations(rule, inner, `${path}.${field}`))
    }
  }
  if (type === 'string' && schema.pattern !== undefined && !new RegExp(schema.pattern).test(value as string)) found.push(`${path}: does not match ${schema.pattern}`)
  if (type === 'array') {
    const items = value as unknown[]
    if (schema.minItems !== undefined && items.length < schema.minItems) found.push(`${path}: fewer than ${schema.minItems} items`)
    if (schema.items !== undefined) items.forEach((item, i) => found.push(...violations(schema.items as JsonSchema, item, `${path}[${i}]`)))
  }
  return found
}

const jsonSchema = (validator: Record<string, unknown>): JsonSchema => validator.$jsonSchema as JsonSchema

test('the validators describe exactly what the mapping writes', async (t) => {
  const check = (label: string, validator: Record<string, unknown>, docs: object[]): void => {
    const schema = jsonSchema(validator)
    t.equal(schema.additionalProperties, false, `${label}: no unknown fields`)
    for (const doc of docs) {
      // What the server would see: an _id it adds to an insert without one.
      const stored = { _id: new ObjectId(), ...doc }
      t.same([...schema.required ?? []].sort(), Object.keys(stored).sort(), `${label}: every written field is required, and no other`)
      t.same(violations(schema, stored), [], `${label}: admitted`)
    }
  }
  const monitored = { ...record, uptimeScore: 99.5, lastChecked: '2025-01-01T00:00:00.000Z', ownerId: 'key_x', usage }
  const shared = { ...record, trustScore: 55, usage: { ...usage, lastPaymentAt: null, scope: 'shared' as const } }
  check('services', SERVICE_VALIDATOR, [toServiceDocument(record, 1), toServiceDocument(monitored, 2), toServiceDocument(shared, 3), toServiceDocument({ ...record, priceAtomic: null }, 4)])
  t.notSame(violations(jsonSchema(SERVICE_VALIDATOR), { ...toServiceDocument(monitored, 2), usage: { ...toUsageDocument(usage), extra: 1 } }), [], 'usage is strict too')
  t.notSame(violations(jsonSchema(SERVICE_VALIDATOR), { ...toServiceDocument(monitored, 2), usage: { ...toUsageDocument(usage), txCount: 12 } }), [], 'a count as a double or int is refused')
  const tombstone: TombstoneDocument = { _id: record.id, seq: Long.fromNumber(3), deletedAt: new Date() }
  check('tombstones', TOMBSTONE_VALIDATOR, [tombstone])
  check('payments', PAYMENT_VALIDATOR, [toPaymentDocument(payment.network, payment), toPaymentDocument(payment.network, { ...payment, serviceId: null, amount: '9223372036854775807' })])
  const checkpoint: CheckpointDocument = { network: payment.network, blockNumber: Long.fromNumber(100), blockHash: payment.blockHash }
  check('chain checkpoints', CHECKPOINT_VALIDATOR, [checkpoint])
  const scan: PayToScanDocument = { network: payment.network, payTo: payment.payTo, scannedTo: Long.fromNumber(100) }
  check('chain payTos', PAY_TO_SCAN_VALIDATOR, [scan])
  const marker: LayoutMarkerDocument = { _id: 'layout', version: STORE_LAYOUT }
  check('store meta', STORE_META_VALIDATOR, [marker])
  t.notSame(violations(jsonSchema(STORE_META_VALIDATOR), { ...marker, version: 1.5 }), [], 'the layout is an int')
  t.notSame(violations(jsonSchema(STORE_META_VALIDATOR), { ...marker, _id: 'other' }), [], 'the one document is the marker')
  t.equal(VALIDATORS[COLLECTIONS.storeMeta], STORE_META_VALIDATOR, 'set again at every open, as every validator')

  // Sources: a catalog source's report keeps its feed position; other kinds' have none.
  const report: SyncReport = { startedAt: '2026-11-01T00:00:00.000Z', finishedAt: '2026-11-01T00:00:01.000Z', complete: true, seen: 2, added: 1, updated: 0, unchanged: 1, retired: 0, refusedCount: 0, refused: [], error: null }
  const bazaar: SourceRecord = { id: 'src_aaaaaaaaaaaaaaaa', kind: 'bazaar', url: 'https://f.example.com', createdAt: '2026-10-01T00:00:00.000Z', lastSync: report, lastCompleteAt: report.startedAt }
  const followed: SourceRecord = { ...bazaar, id: 'src_bbbbbbbbbbbbbbbb', kind: 'catalog', lastSync: { ...report, feed: { since: '0', next: '41', wholeAt: report.startedAt } } }
  const caughtUp: SourceRecord = { ...followed, lastSync: { ...report, feed: { since: '41', next: '41', wholeAt: null } } }
  const fresh: SourceRecord = { ...bazaar, lastSync: null, lastCompleteAt: null }
  check('sources', SOURCE_VALIDATOR, [bazaar, followed, caughtUp, fresh].map(toSourceDocument))
  for (const source of [bazaar, followed, caughtUp, fresh]) {
    t.same(fromSourceDocument(BSON.deserialize(BSON.serialize(toSourceDocument(source))) as SourceDocument), source, `${source.kind} source survives BSON`)
  }

  // Ownership proofs: one document per origin and address, its check time a date.
  const proof = { address: '0xAbCdEf0000000000000000000000000000000001', document: 'https://api.example.com/openapi.json', checkedAt: '2026-11-01T00:00:00.000Z' }
  check('origin proofs', ORIGIN_PROOF_VALIDATOR, [toOriginProofDocument('https://api.example.com', proof)])
  t.same(fromOriginProofDocument(BSON.deserialize(BSON.serialize(toOriginProofDocument('https://api.example.com', proof))) as OriginProofDocument), proof, 'a proof survives BSON')
  t.notSame(violations(jsonSchema(ORIGIN_PROOF_VALIDATOR), { _id: new ObjectId(), ...toOriginProofDocument('https://api.example.com', proof), checkedAt: proof.checkedAt }), [], 'the check time is a date, not a string')
  t.equal(VALIDATORS[COLLECTIONS.originProofs], ORIGIN_PROOF_VALIDATOR)
  t.same(ORIGIN_PROOF_INDEXES.map((index) => [index.key, index.unique]), [[{ origin: 1, address: 1 }, true]], 'one proof per origin and address')
})

test('opening a database: a new one is set up, one of this layout opened, any other refused with one line', async (t) => {
  const ours = Object.values(COLLECTIONS)
  const marker = { _id: 'layout', version: STORE_LAYOUT }
  t.same(layoutVerdict('catalog', [], null), { action: 'create' }, 'an empty database is set up')
  t.same(layoutVerdict('catalog', ['other_app', 'system.views'], null), { action: 'create' }, 'collections that are not the catalog\'s do not count')
  t.same(layoutVerdict('catalog', [COLLECTIONS.storeMeta], null), { action: 'create' },
    'store_meta without its marker: a first start stopped before writing it (nothing else is created before the marker)')
  t.same(layoutVerdict('catalog', ours, marker), { action: 'open' }, 'marked with this layout: opened')
  t.same(layoutVerdict('catalog', [COLLECTIONS.storeMeta], marker), { action: 'open' }, 'marked, the rest not created yet (a first start stopped after the marker): opened and completed')
  t.same(layoutVerdict('catalog', [], { ...marker, version: STORE_LAYOUT }), { action: 'open' })

  const refusal = (collections: readonly string[], found: { version?: unknown } | null): MongoStoreLayoutError | undefined => {
    const verdict = layoutVerdict('catalog', collections, found)
    return verdict.action === 'refuse' ? verdict.error : undefined
  }
  const earlier = refusal([COLLECTIONS.services, COLLECTIONS.counters, COLLECTIONS.apiKeys], null)
  t.ok(earlier instanceof MongoStoreLayoutError, 'the catalog\'s collections without a marker (an earlier build, which wrote none): refused')
  t.equal(earlier?.message, `MongoDB database catalog was made by another build (store layout none, this build reads ${STORE_LAYOUT}): ` +
    'drop it or point MONGO_URL at an empty database, then re-seed or re-import')
  t.equal(earlier?.code, 'STORE_LAYOUT')
  t.ok(earlier instanceof CatalogError, 'a CatalogError: the CLIs and the server print its message as one line and exit 1 (src/cli/run.ts)')
  t.notMatch(earlier?.message ?? '', /\n/, 'one line')
  for (const name of ours.filter((collection) => collection !== COLLECTIONS.storeMeta)) {
    t.equal(refusal([name], null)?.code, 'STORE_LAYOUT', `${name} alone, unmarked: refused`)
  }
  t.match(refusal(ours, { ...marker, version: STORE_LAYOUT + 1 })?.message, `(store layout ${STORE_LAYOUT + 1}, this build reads ${STORE_LAYOUT})`, 'a later layout: refused, naming it')
  t.match(refusal([], { ...marker, version: 0 })?.message, '(store layout 0, ', 'another layout\'s marker alone: refused too')
  t.match(new MongoStoreLayoutError('catalog_eu', 'none').message, /^MongoDB database catalog_eu was made by another build/, 'names the database')
})

test('payment filters: values under $eq, amounts as Int64, times as dates', async (t) => {
  const base = { network: 'eip155:8453', payTo: payment.payTo }
  t.same(paymentFilter(base), { network: { $eq: base.network }, payTo: { $eq: base.payTo } })
  const full = paymentFilter({ ...base, since: '2025-01-01T00:00:00.000Z', amount: '10000', excludeAmounts: ['1', '9223372036854775807'] }) as Record<string, Record<string, unknown>>
  t.same(full.at, { $gte: new Date('2025-01-01T00:00:00.000Z') })
  t.ok(full.amount?.$eq instanceof Long)
  t.equal((full.amount?.$eq as Long).toString(), '10000')
  t.same((full.amount?.$nin as Long[]).map(String), ['1', '9223372036854775807'], 'excluded amounts exact as Int64')
  t.same(Object.keys(paymentFilter({ ...base, excludeAmounts: [] })), ['network', 'payTo'], 'nothing excluded: no condition')
  t.same(Object.keys((paymentFilter({ ...base, excludeAmounts: ['5'] }) as Record<string, object>).amount ?? {}), ['$nin'])
  const hostile = paymentFilter({ network: '{"$ne": null}', payTo: '$where' }) as Record<string, unknown>
  t.same(BSON.deserialize(BSON.serialize(hostile)), { network: { $eq: '{"$ne": null}' }, payTo: { $eq: '$where' } }, 'operator-looking values stay strings')
  t.throws(() => paymentFilter({ ...base, since: 'last week' }), RangeError)
  t.throws(() => paymentFilter({ ...base, amount: '9223372036854775808' }), RangeError)

  // The list order is the index's, after its (network, payTo) prefix.
  const listIndex = PAYMENT_INDEXES.find((index) => index.name === 'network_payTo_blockNumber_logIndex')
  t.same(listIndex?.key, { network: 1, payTo: 1, ...PAYMENT_ORDER as object }, 'newest first, served by the index')
  t.same(PAYMENT_ORDER, { blockNumber: -1, logIndex: -1 })
  t.ok(PAYMENT_INDEXES.some((index) => index.unique === true && Object.keys(index.key as object).join() === 'network,txHash,logIndex'))
  t.ok(PAYMENT_INDEXES.some((index) => Object.keys(index.key as object).join() === 'network,blockNumber'), 'a rewind finds the payments above a block by index')
  t.ok(CHECKPOINT_INDEXES.some((index) => index.unique === true && Object.keys(index.key as object).join() === 'network,blockNumber'))
  t.ok(PAY_TO_SCAN_INDEXES.some((index) => index.unique === true && Object.keys(index.key as object).join() === 'network,payTo'))
})

test('a payment summary: grouped by payer first, summed as Decimal128, exact as a string', async (t) => {
  const filter = { network: 'eip155:8453', payTo: payment.payTo, since: '2025-01-01T00:00:00.000Z', excludeAmounts: ['1'] }
  const pipeline = paymentSummaryPipeline(filter)
  t.same(pipeline[0], { $match: paymentFilter(filter) }, 'the same match as listPayments')
  t.same(pipeline.map((stage) => Object.keys(stage)[0]), ['$match', '$group', '$group'])
  const [, perPayer, total] = pipeline as [unknown, { $group: Record<string, unknown> }, { $group: Record<string, unknown> }]
  t.equal(perPayer.$group._id, '$payer', 'one small entry per payer, not one set of every payer in a document (16 MB)')
  t.same(perPayer.$group.total, { $sum: { $toDecimal: '$amount' } }, 'an Int64 $sum past 2^63 would turn into a double')
  t.equal(total.$group._id, null)
  t.same(total.$group.uniquePayers, { $sum: 1 }, 'distinct payers: one per first-stage entry')
  t.same(total.$group.count, { $sum: '$count' })
  t.same(Object.keys(perPayer.$group).filter((key) => JSON.stringify(perPayer.$group[key]).includes('$addToSet')), [], 'no set grows with the payers')

  t.same(toPaymentSummary(undefined), { count: 0, totalAtomic: '0', uniquePayers: 0, lastAt: null }, 'nothing matched: no document')
  // What the server answers, through BSON: a sum past Int64 stays exact.
  const answer = { _id: null, count: Long.fromNumber(3), total: Decimal128.fromString('18446744073709551614'), uniquePayers: 2, lastAt: new Date('2025-01-03T00:00:00.000Z') }
  for (const decoded of decodings<Parameters<typeof toPaymentSummary>[0]>(answer)) {
    t.same(toPaymentSummary(decoded), { count: 3, totalAtomic: '18446744073709551614', uniquePayers: 2, lastAt: '2025-01-03T00:00:00.000Z' })
  }
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
  t.ok(serviceIndexes().some((index) => Object.keys(index.key as object).join() === 'origin,_id'), 'a proof finds an origin\'s listings by equality on an index, in id order')
  const indexes = serviceIndexes()
  const keys = indexes.map((index) => Object.entries(index.key as Record<string, number>))
  const has = (prefix: Array<[string, number]>): boolean => keys.some((key) => prefix.every(([field, dir], i) => key[i]?.[0] === field && key[i]?.[1] === dir) && key.length === prefix.length)
  for (const field of SORT_FIELDS) {
    const sort = SORT_KEYS[field]
    t.ok(has([[sort, 1], ['_id', 1]]), `unfiltered, by ${field}`)
    for (const filter of Object.values(EQUALITY_FILTER_KEYS)) t.ok(has([[filter, 1], [sort, 1], ['_id', 1]]), `${filter} = x, by ${field}`)
  }
  t.ok(indexes.some((index) => index.unique === true && Object.keys(index.key as object).join() === 'resource,method'), 'identities (resource, method) are unique')
  t.notOk(indexes.some((index) => index.unique === true && Object.keys(index.key as object).join() === 'endpoint'), 'the endpoint alone is not: GET and POST of one URL are two listings')
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

test('the payTo filter: an exact match on the stored payToKey, EVM lower-cased, Solana as it is', async (t) => {
  const address = '0x6A8607afb7ac96d2c8a3e1b44560ff101b34550B'
  t.same(serviceFilter({ payTo: address }), { payToKey: { $eq: '0x6a8607afb7ac96d2c8a3e1b44560ff101b34550b' } })
  t.equal(toServiceDocument({ ...record, paymentAddress: address }, 1).payToKey, '0x6a8607afb7ac96d2c8a3e1b44560ff101b34550b', 'the document keeps the same key')
  t.same(serviceFilter({ payTo: '0x.*' }), { payToKey: { $eq: '0x.*' } }, 'never a pattern')
  t.same(serviceFilter({ payTo: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM' }), { payToKey: { $eq: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM' } })
  const keys = serviceIndexes().map((index) => Object.keys(index.key as object).join())
  t.ok(keys.includes('payToKey,_id'), 'the Bazaar payTo filter is served by an index')
  t.ok(keys.includes('network,payToKey,createdAt,_id'), 'payTosOn and servicesByPayTo (oldest first) are served by an index')
})

test('the testnet filter: an expression over supportedChains, never an index bound on it', async (t) => {
  const test = { $eq: [{ $size: { $setDifference: ['$supportedChains', { $literal: TEST_NETWORK_IDS }] } }, 0] }
  t.same(serviceFilter({ testnet: true }), { $expr: test }, 'a test-network listing: no chain outside the test networks')
  t.same(serviceFilter({ testnet: false, chain: 'eip155:8453' }), { supportedChains: { $eq: 'eip155:8453' }, $expr: { $not: [test] } }, 'beside a chain equality on the same field')
  t.ok(TEST_NETWORK_IDS.includes('eip155:84532') && !TEST_NETWORK_IDS.includes('eip155:8453'), 'base-sepolia is one, base is not')
})

test('the extension filter: the declaration field present, served by a partial index on the discovery order', async (t) => {
  t.same(serviceFilter({ extension: 'bazaar' }), { bazaarExtension: { $exists: true } })
  t.same(serviceFilter({ extension: 'bazaar', status: 'verified' }), { status: { $eq: 'verified' }, bazaarExtension: { $exists: true } })
  // A probe declaring none removes the field ($unset), so its presence is the declaration.
  t.notOk('bazaarExtension' in toServiceDocument(record, 1), 'a service declaring nothing has no such field')
  t.ok('bazaarExtension' in toServiceDocument({ ...record, bazaarExtension: { info: {} } }, 1), 'a declaring one has')
  const partial = serviceIndexes().find((index) => index.name === 'bazaar_trustScore_id')
  t.same(partial?.key, { trustScore: 1, _id: 1 }, 'walked backwards for the discovery order (trust, then id, descending)')
  t.same(partial?.partialFilterExpression, { bazaarExtension: { $exists: true } }, 'holding only the declaring services: the same expression as the filter')
})

test('a duplicate-key error is a DuplicateEndpointError only when the endpoint index clashed', async (t) => {
  const [a, b] = records as [ServiceRecord, ServiceRecord]
  const message = 'E11000 duplicate key error collection: catalog.services'
  // A single-document write's error names the index (the server's keyPattern and keyValue).
  const single = (key: string, value: string): MongoServerError => new MongoServerError({ message, code: 11000, keyPattern: { [key]: 1 }, keyValue: { [key]: value } })
  const nobody = async (): Promise<boolean> => { throw new Error('no lookup needed') }
  const onEndpoint = await duplicateEndpointOf(single('resource', b.resource), [a], nobody)
  t.ok(onEndpoint instanceof DuplicateEndpointError, 'keyPattern resource (with method): the identity index')
  t.match((onEndpoint as Error).message, b.resource, 'naming the resource the index saw')
  const onOldIndex = single('endpoint', b.endpoint)
  t.equal(await duplicateEndpointOf(onOldIndex, [a], nobody), onOldIndex, 'the endpoint alone is no identity')
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
  t.ok(await duplicateEndpointOf(bulk(1), [a, { ...b, endpoint: a.endpoint, resource: a.resource, method: a.method }], held('https://nobody.example/')) instanceof DuplicateEndpointError,
    'held by an earlier record of the same batch')
  const twice = bulk(1)
  t.equal(await duplicateEndpointOf(twice, [a, a], held('https://nobody.example/')), twice, 'the same record twice: its id clashed')
})
