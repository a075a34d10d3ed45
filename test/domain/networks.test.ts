/** The network table (src/domain/networks.generated.json, built by scripts/networks.ts, read by src/domain/networks.ts) and payment addresses per family. */
import { test } from 'tap'
import { readFileSync } from 'node:fs'
import { buildNetworkTable, NETWORK_TABLE_PATH } from '../../scripts/networks.js'
import { isValidPaymentAddress, resolveNetwork } from '../../src/domain/networks.js'

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
