/**
 * Ownership proofs (x402scan's) in an origin's documents, against a real @x402/express server
 * paid to a wallet whose key the test holds: a valid proof shows on the listings paid to it,
 * another wallet's does not, a re-read without it clears it, and no proof moves a listing.
 */
import { generateKeyPairSync, sign } from 'node:crypto'
import { base58 } from '@scure/base'
import { test } from 'tap'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import type { FastifyInstance } from 'fastify'
import { syncSource } from '../../src/application/sync-source.js'
import { canonicalSourceUrl, newSourceId, type SourceRecord } from '../../src/domain/sources.js'
import { API_KEY, build, register } from '../helper.js'
import { startX402Server } from '../support/x402-servers.js'

const OTHER_KEY = 'other-key-0123456789abcdef'

async function importOrigin (app: FastifyInstance, origin: string, key = API_KEY) {
  return await app.inject({ method: 'POST', url: '/api/origins/import', headers: { authorization: `Bearer ${key}` }, payload: { origin } })
}

async function detail (app: FastifyInstance, id: string): Promise<{ ownershipProof: unknown, paymentAddress: string }> {
  const answer = await app.inject(`/api/services/${id}`)
  return answer.json()
}

/** An OpenAPI document listing GET and POST /paid as paid, with these ownership proofs. */
function openApi (origin: string, proofs: string[] | undefined): string {
  const paid = { 'x-payment-info': { protocols: ['x402'], price: { mode: 'fixed', currency: 'USD', amount: '0.001' } }, responses: { 200: { description: 'ok' } } }
  return JSON.stringify({
    openapi: '3.1.0',
    info: { title: 'paid API', version: '1.0.0' },
    servers: [{ url: origin }],
    paths: { '/paid': { get: paid, post: paid } },
    ...(proofs === undefined ? {} : { 'x-discovery': { ownershipProofs: proofs } })
  })
}

test('a proof in x-discovery.ownershipProofs by the listings\' payTo shows on them; another wallet\'s does not; a re-read without it clears it; no listing moves', async (t) => {
  const wallet = privateKeyToAccount(generatePrivateKey())
  const stranger = privateKeyToAccount(generatePrivateKey())
  let proofs: string[] | undefined = []
  let origin = ''
  const server = await startX402Server({
    payTo: wallet.address,
    also: [{ method: 'POST' }],
    documents: { '/openapi.json': () => openApi(origin, proofs) }
  })
  t.teardown(server.close)
  origin = server.origin
  const app = await build(t, { seed: 'none', probeAllowPrivate: true, apiKeys: [API_KEY, OTHER_KEY] })

  // Another key registered GET /paid first: the import cannot take it, a proof must not either.
  const theirs = await register(app, { endpoint: `${origin}/paid` }, OTHER_KEY)
  t.equal(theirs.statusCode, 201, theirs.body)
  const theirId = theirs.json().id as string
  const before = await app.store.getService(theirId)

  proofs = [await stranger.signMessage({ message: origin })]
  const first = await importOrigin(app, origin)
  t.equal(first.statusCode, 200, first.body)
  const answer = first.json()
  t.same(answer.rows.map((row: { resource: string, result: string }) => [row.resource, row.result]), [['GET /paid', 'refused'], ['POST /paid', 'registered']])
  t.same(answer.ownership, { proofs: 1, proven: [] }, 'a proof by a wallet the resources are not paid to proves nothing')
  const ours = answer.rows[1].serviceId as string
  t.equal((await detail(app, ours)).ownershipProof, null)

  proofs = ['not a signature', await wallet.signMessage({ message: `${origin}/` }), await wallet.signMessage({ message: origin })]
  const proven = (await importOrigin(app, origin)).json()
  t.same(proven.ownership, { proofs: 3, proven: [wallet.address] })
  const shown = await detail(app, ours)
  t.match(shown.ownershipProof, { address: wallet.address, document: `${origin}/openapi.json`, checkedAt: /^\d{4}-\d\d-\d\dT/ }, 'the detail shows it')
  t.same((await detail(app, theirId)).ownershipProof, shown.ownershipProof, 'so does the other key\'s listing paid to the same wallet')
  t.same(await app.store.getService(theirId), before, 'which stays its owner\'s, unclaimed: a proof moves no listing')
  const listed = (await app.inject('/api/services')).json() as Array<Record<string, unknown>>
  t.ok(listed.length > 0 && listed.every((item) => !('ownershipProof' in item)), 'lists stay as they were')

  const checkedAt = (shown.ownershipProof as { checkedAt: string }).checkedAt
  t.equal(((await detail(app, ours)).ownershipProof as { checkedAt: string }).checkedAt, checkedAt)
  await importOrigin(app, origin, OTHER_KEY)
  t.equal(((await detail(app, ours)).ownershipProof as { checkedAt: string }).checkedAt, checkedAt, 'read again by anyone: still the time it was first found valid')

  proofs = undefined
  const cleared = (await importOrigin(app, origin)).json()
  t.same(cleared.ownership, { proofs: 0, proven: [] })
  t.equal((await detail(app, ours)).ownershipProof, null, 'a document re-read without it clears it')
  t.equal((await detail(app, theirId)).ownershipProof, null)
  t.match(await app.store.getService(theirId), { ownerId: before?.ownerId, claimed: false }, 'after every read, still its owner\'s')
})

test('/.well-known/x402\'s ownershipProofs work too, for a Solana payTo', async (t) => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const payTo = base58.encode(Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url'))
  let origin = ''
  const server = await startX402Server({
    payTo,
    network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    wellKnown: () => JSON.stringify({ version: 1, resources: ['GET /paid'], ownershipProofs: [base58.encode(sign(null, Buffer.from(origin), privateKey))] })
  })
  t.teardown(server.close)
  origin = server.origin
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })

  const answer = (await importOrigin(app, origin)).json()
  t.equal(answer.document, `${origin}/.well-known/x402`)
  t.same(answer.ownership, { proofs: 1, proven: [payTo] })
  t.match((await detail(app, answer.rows[0].serviceId as string)).ownershipProof, { address: payTo, document: `${origin}/.well-known/x402` })
})

test('an origin source\'s pass checks the proofs too: shown while the document carries one, cleared when it drops it', async (t) => {
  const wallet = privateKeyToAccount(generatePrivateKey())
  let proofs: string[] | undefined
  let origin = ''
  const server = await startX402Server({ payTo: wallet.address, also: [{ method: 'POST' }], documents: { '/openapi.json': () => openApi(origin, proofs) } })
  t.teardown(server.close)
  origin = server.origin
  proofs = [await wallet.signMessage({ message: origin })]
  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  const source: SourceRecord = { id: newSourceId(), kind: 'origin', url: canonicalSourceUrl(origin, 'origin'), createdAt: new Date().toISOString(), lastSync: null, lastCompleteAt: null }
  await app.store.insertSource(source)
  const pass = async (): Promise<Awaited<ReturnType<typeof syncSource>>> => await syncSource({
    store: app.store,
    readJson: async (url, maxBytes) => await app.prober.fetchOriginDocument(url, maxBytes),
    readEndpoint: async (endpoint, method, options) => await app.prober.read(endpoint, method, options),
    inferCategory: app.inferCategory
  }, await app.store.getSource(source.id) as SourceRecord)

  t.match(await pass(), { complete: true, added: 2, error: null })
  const listing = await app.store.findServiceByResource(`${origin}/paid`, 'GET')
  t.match((await detail(app, listing?.id as string)).ownershipProof, { address: wallet.address, document: `${origin}/openapi.json` })
  t.match(listing, { ownerId: null, claimed: false }, 'a source\'s listing stays unowned')

  proofs = undefined
  t.match(await pass(), { complete: true, unchanged: 2, error: null })
  t.equal((await detail(app, listing?.id as string)).ownershipProof, null)
})
