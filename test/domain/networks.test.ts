/** The network table (src/domain/networks.generated.json, built by scripts/networks.ts, read by src/domain/networks.ts) and payment addresses per family. */
import { test } from 'tap'
import { readFileSync } from 'node:fs'
import { buildNetworkTable, NETWORK_TABLE_PATH } from '../../scripts/networks.js'
import { isTestListing, isTestNetwork, isValidPaymentAddress, registerNetworks, resolveNetwork } from '../../src/domain/networks.js'
import { testnetFilter } from '../../src/domain/catalog-query.js'

test('the committed network table matches the installed x402 packages', async (t) => {
  const committed = JSON.parse(readFileSync(NETWORK_TABLE_PATH, 'utf8'))
  t.same(committed, buildNetworkTable(), 'run `npm run networks:generate` after upgrading @x402/*')
  t.equal(resolveNetwork('base')?.usdc, '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'USDC on Base comes from the packages')
})

test('payment addresses per family', async (t) => {
  t.ok(isValidPaymentAddress('evm', '0x' + 'aB'.repeat(20)))
  t.notOk(isValidPaymentAddress('evm', '0x' + 'a'.repeat(39)))
  t.ok(isValidPaymentAddress('svm', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'), 'USDC mint is a valid 32-byte key')
  t.ok(isValidPaymentAddress('svm', '11111111111111111111111111111111'), 'the system program (32 zero bytes)')
  t.notOk(isValidPaymentAddress('svm', '1111111111111111111111111111111'), '31 zero bytes')
  t.notOk(isValidPaymentAddress('svm', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'.replace('E', '0')), '0 is not base58')
})

test('test networks: from the packages\' sources, by name or id; a listing is one when all its chains are', async (t) => {
  for (const name of ['base-sepolia', 'eip155:84532', 'solana-devnet', 'solana-testnet', 'sepolia', 'polygon-amoy', 'avalanche-fuji']) t.ok(isTestNetwork(name), `${name} is a test network`)
  for (const name of ['base', 'eip155:8453', 'solana', 'polygon', 'ethereum', 'eip155:999999']) t.notOk(isTestNetwork(name), `${name} is not`)
  t.ok(isTestListing(['eip155:84532', 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1']))
  t.notOk(isTestListing(['eip155:84532', 'eip155:8453']), 'one real network makes it real')
  t.notOk(isTestListing([]), 'no network: not a test listing')
  // A local chain CATALOG_CHAINS adds (anvil's, as the chain tests run) stays listed.
  registerNetworks([{ id: 'eip155:31337', v1Name: null, family: 'evm', usdc: '0x' + '1'.repeat(40) }])
  t.equal(resolveNetwork('eip155:31337')?.testnet, false)
  t.notOk(isTestListing(['eip155:31337']))
})

test('the testnet filter of a list: left out by default, unless asked for or a test chain is named', async (t) => {
  t.equal(testnetFilter(undefined, undefined), false)
  t.equal(testnetFilter('exclude', 'eip155:8453'), false)
  t.equal(testnetFilter('include', undefined), undefined)
  t.equal(testnetFilter('only', undefined), true)
  t.equal(testnetFilter(undefined, 'eip155:84532'), undefined, 'a test chain shows its listings')
  t.equal(testnetFilter('exclude', 'eip155:84532'), undefined, 'even beside exclude: naming the chain asks for it')
  t.equal(testnetFilter('only', 'eip155:8453'), true)
})
