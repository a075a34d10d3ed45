import { generateKeyPairSync, sign } from 'node:crypto'
import { base58 } from '@scure/base'
import { test } from 'tap'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import {
  MAX_OWNERSHIP_PROOFS, mergedProofs, openApiOwnershipProofs, proofFor, provenPayTos, verifyOwnershipProof, wellKnownOwnershipProofs
} from '../../src/domain/ownership-proof.js'

const ORIGIN = 'https://api.example.com'

function solanaWallet (): { address: string, sign: (message: string) => Buffer } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url')
  return { address: base58.encode(raw), sign: (message) => sign(null, Buffer.from(message, 'utf8'), privateKey) }
}

test('EVM: a personal_sign signature of the origin by the payTo proves it, nothing else does', async (t) => {
  const wallet = privateKeyToAccount(generatePrivateKey())
  const other = privateKeyToAccount(generatePrivateKey())
  const proof = await wallet.signMessage({ message: ORIGIN })
  t.equal(await verifyOwnershipProof(ORIGIN, proof, wallet.address), true)
  t.equal(await verifyOwnershipProof(ORIGIN, proof, wallet.address.toLowerCase()), true, 'the address compares case-insensitively')
  t.equal(await verifyOwnershipProof(ORIGIN, proof.slice(2), wallet.address), true, 'without 0x, as x402scan adds it')
  t.equal(await verifyOwnershipProof(ORIGIN, await other.signMessage({ message: ORIGIN }), wallet.address), false, 'signed by another wallet')
  t.equal(await verifyOwnershipProof(`${ORIGIN}/`, proof, wallet.address), false, 'a trailing slash is another message')
  t.equal(await verifyOwnershipProof('https://api.example.com:8443', proof, wallet.address), false, 'another port is another origin')
  t.equal(await verifyOwnershipProof('https://other.example.com', proof, wallet.address), false)
  for (const garbage of ['', '0x', 'not a signature', '0x1234', `0x${'ff'.repeat(65)}`, proof.replace(/.$/, 'z')]) {
    t.equal(await verifyOwnershipProof(ORIGIN, garbage, wallet.address), false, `garbage ${JSON.stringify(garbage.slice(0, 12))} is not valid`)
  }
  t.equal(await verifyOwnershipProof(ORIGIN, proof, '0x1234'), false, 'a malformed address is not proven')
  t.equal(await verifyOwnershipProof(ORIGIN, proof, 'not an address'), false)
})

test('Solana: an ed25519 signature of the origin by the base58 payTo, base58 or hex', async (t) => {
  const wallet = solanaWallet()
  const other = solanaWallet()
  const signature = wallet.sign(ORIGIN)
  t.equal(await verifyOwnershipProof(ORIGIN, base58.encode(signature), wallet.address), true, 'base58')
  t.equal(await verifyOwnershipProof(ORIGIN, signature.toString('hex'), wallet.address), true, 'hex')
  t.equal(await verifyOwnershipProof(ORIGIN, `0x${signature.toString('hex')}`, wallet.address), true, 'hex with 0x')
  t.equal(await verifyOwnershipProof(ORIGIN, base58.encode(other.sign(ORIGIN)), wallet.address), false, 'signed by another wallet')
  t.equal(await verifyOwnershipProof(ORIGIN, base58.encode(signature), other.address), false, 'checked against another wallet')
  t.equal(await verifyOwnershipProof(`${ORIGIN}/`, base58.encode(signature), wallet.address), false, 'a trailing slash is another message')
  t.equal(await verifyOwnershipProof('https://api.example.com:8443', base58.encode(signature), wallet.address), false, 'another port')
  t.equal(await verifyOwnershipProof(ORIGIN, base58.encode(signature), wallet.address.toLowerCase()), false, 'base58 addresses compare exactly')
  for (const garbage of ['', 'O0Il', base58.encode(signature.subarray(0, 63)), 'zz'.repeat(64)]) {
    t.equal(await verifyOwnershipProof(ORIGIN, garbage, wallet.address), false, `garbage ${JSON.stringify(garbage.slice(0, 12))} is not valid`)
  }
  t.equal(await verifyOwnershipProof(ORIGIN, base58.encode(signature), '1111111111111111111111111111111111'), false, 'an address that is no 32-byte key')
})

test('provenPayTos: each payTo once, by any proof; an EVM proof checked against every EVM payTo', async (t) => {
  const evm = privateKeyToAccount(generatePrivateKey())
  const sol = solanaWallet()
  const stranger = privateKeyToAccount(generatePrivateKey())
  const proofs = ['garbage', await evm.signMessage({ message: ORIGIN }), base58.encode(sol.sign(ORIGIN))]
  t.same(await provenPayTos(ORIGIN, proofs, [evm.address, evm.address.toLowerCase(), sol.address, stranger.address]), [evm.address, sol.address])
  t.same(await provenPayTos(ORIGIN, [], [evm.address]), [])
  t.same(await provenPayTos('https://other.example.com', proofs, [evm.address, sol.address]), [])
})

test('proofs are read from where x402scan reads them, bounded; anything else is ignored', async (t) => {
  t.same(openApiOwnershipProofs({ 'x-discovery': { ownershipProofs: ['0xab', ' 0xcd ', 7, null, '', 'x'.repeat(301), '0xab'] } }), ['0xab', '0xcd'])
  t.same(openApiOwnershipProofs({ ownershipProofs: ['0xab'] }), [], 'an OpenAPI document\'s are under x-discovery')
  t.same(openApiOwnershipProofs({ 'x-discovery': { ownershipProofs: '0xab' } }), [])
  t.same(openApiOwnershipProofs({ 'x-discovery': ['0xab'] }), [])
  t.same(openApiOwnershipProofs(null), [])
  t.same(wellKnownOwnershipProofs({ version: 1, resources: [], ownershipProofs: ['0xab'] }), ['0xab'])
  t.same(wellKnownOwnershipProofs([]), [])
  const many = Array.from({ length: 50 }, (_, i) => `0x${i}`)
  t.same(wellKnownOwnershipProofs({ ownershipProofs: many }), many.slice(0, MAX_OWNERSHIP_PROOFS), `the first ${MAX_OWNERSHIP_PROOFS}`)
  t.equal(openApiOwnershipProofs({ 'x-discovery': { ownershipProofs: ['x'.repeat(300)] } }).length, 1, '300 characters is within bounds')
})

test('a listing shows the proof by its own payTo; a re-read keeps the first check time of an unchanged proof', async (t) => {
  const evm = { address: '0xAbCdEf0000000000000000000000000000000001', document: `${ORIGIN}/openapi.json`, checkedAt: '2026-11-01T00:00:00.000Z' }
  const sol = { address: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV', document: `${ORIGIN}/openapi.json`, checkedAt: '2026-11-01T00:00:00.000Z' }
  t.same(proofFor([sol, evm], evm.address.toLowerCase()), evm, 'EVM case-insensitively')
  t.same(proofFor([sol, evm], sol.address), sol)
  t.equal(proofFor([sol, evm], sol.address.toLowerCase()), null, 'Solana exactly')
  t.equal(proofFor([], evm.address), null)

  const later = '2026-11-02T00:00:00.000Z'
  t.same(mergedProofs([evm], [{ ...evm, address: evm.address.toLowerCase(), checkedAt: later }]), { proofs: [{ ...evm, address: evm.address.toLowerCase() }], changed: false })
  t.same(mergedProofs([evm], [{ ...evm, document: `${ORIGIN}/.well-known/x402`, checkedAt: later }]).changed, true, 'another document is a change')
  t.same(mergedProofs([evm], [evm, { ...sol, checkedAt: later }]), { proofs: [evm, { ...sol, checkedAt: later }], changed: true })
  t.same(mergedProofs([evm], []), { proofs: [], changed: true })
  t.same(mergedProofs([], []), { proofs: [], changed: false })
})
