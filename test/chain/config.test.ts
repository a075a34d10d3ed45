/** CATALOG_CHAINS: defaults, the one-line errors naming file and field, local networks becoming registrable. */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'tap'
import { DEFAULT_CONFIRMATIONS, chainNetworks, parseChains } from '../../src/chain/config.js'
import { loadConfig } from '../../src/config.js'
import { registerNetworks, resolveNetwork } from '../../src/domain/networks.js'
import { tempDataDir } from '../support/basics.js'

const RPC = 'https://rpc.example.com/v2/secret-key-123'
const ADDRESS = '0x' + 'ab'.repeat(20)

test('defaults come from the built-in table', async (t) => {
  const [base] = parseChains(JSON.stringify([{ network: 'base', rpcUrl: RPC }]))
  t.same(base, {
    network: 'eip155:8453',
    rpcUrl: RPC,
    usdc: resolveNetwork('base')?.usdc?.toLowerCase(),
    usdcEip712: resolveNetwork('base')?.usdcEip712,
    confirmations: DEFAULT_CONFIRMATIONS,
    startBlock: 0,
    facilitators: []
  })
  const [local] = parseChains(JSON.stringify([{ network: 'eip155:31337', rpcUrl: 'http://127.0.0.1:8545', usdc: ADDRESS.toUpperCase().replace('0X', '0x'), confirmations: 0, startBlock: 7, facilitators: [ADDRESS] }]))
  t.match(local, { network: 'eip155:31337', usdc: ADDRESS, usdcEip712: { name: 'USD Coin', version: '2' }, confirmations: 0, startBlock: 7, facilitators: [ADDRESS] })
  t.same(parseChains('[]'), [], 'an empty list watches nothing')
})

test('each problem is one line naming the field; RPC URLs are never echoed', async (t) => {
  const cases: Array<[unknown, RegExp]> = [
    [{}, /^must be a JSON array of chains/],
    [[1], /^\[0\] must be an object, got 1$/],
    [[{ network: 'base', rpcUrl: RPC, confirmation: 5 }], /^\[0\]\.confirmation is not a field \(fields: network, rpcUrl/],
    [[{ rpcUrl: RPC }], /^\[0\]\.network must be a CAIP-2 id/],
    [[{ network: 'eip155:x', rpcUrl: RPC }], /^\[0\]\.network must be a CAIP-2 id .* got "eip155:x"$/],
    [[{ network: 'solana', rpcUrl: RPC }], /^\[0\]\.network solana:\S+: only EVM \(eip155\) networks are watched so far$/],
    [[{ network: 'base', rpcUrl: 'ftp://x' }], /^\[0\]\.rpcUrl must be an http\(s\) URL$/],
    [[{ network: 'base' }], /^\[0\]\.rpcUrl must be an http\(s\) URL$/],
    [[{ network: 'eip155:31337', rpcUrl: RPC }], /^\[0\]\.usdc is required: the catalog knows no USDC contract on eip155:31337$/],
    [[{ network: 'base', rpcUrl: RPC, usdc: '0x12' }], /^\[0\]\.usdc must be an EVM address .* got "0x12"$/],
    [[{ network: 'base', rpcUrl: RPC, usdcEip712: { name: 'USD Coin' } }], /^\[0\]\.usdcEip712 must be \{ "name": "…", "version": "…" \}/],
    [[{ network: 'base', rpcUrl: RPC, confirmations: -1 }], /^\[0\]\.confirmations must be an integer from 0 to 10000, got -1$/],
    [[{ network: 'base', rpcUrl: RPC, startBlock: 1.5 }], /^\[0\]\.startBlock must be an integer from 0/],
    [[{ network: 'base', rpcUrl: RPC, facilitators: ADDRESS }], /^\[0\]\.facilitators must be an array of EVM addresses/],
    [[{ network: 'base', rpcUrl: RPC, facilitators: [ADDRESS, 'nope'] }], /^\[0\]\.facilitators\[1\] must be an EVM address .* got "nope"$/],
    [[{ network: 'base', rpcUrl: RPC }, { network: 'eip155:8453', rpcUrl: RPC }], /^\[1\]\.network eip155:8453 is listed twice$/]
  ]
  for (const [document, message] of cases) {
    let error: Error | undefined
    try {
      parseChains(JSON.stringify(document))
    } catch (err) {
      error = err as Error
    }
    t.match(error?.message, message, JSON.stringify(document))
    t.notMatch(error?.message ?? '', /secret-key/, 'the RPC URL stays out of it')
    t.notMatch(error?.message ?? '', /\n/, 'one line')
  }
  t.throws(() => parseChains('[{'), /^is not JSON: /)
})

test('loadConfig reads the file CATALOG_CHAINS names and stops on a bad one with one line naming it', async (t) => {
  const dir = tempDataDir(t)
  const file = join(dir, 'chains.json')
  writeFileSync(file, JSON.stringify([{ network: 'base', rpcUrl: RPC, confirmations: 3 }]))
  const config = loadConfig({ DATA_DIR: dir, CATALOG_CHAINS: file, CATALOG_WATCHER: 'external', CATALOG_CHAIN_POLL_MS: '250' })
  t.match(config, { chains: [{ network: 'eip155:8453', confirmations: 3 }], watcher: 'external', chainPollMs: 250 })
  t.match(loadConfig({ DATA_DIR: dir }), { chains: [], watcher: 'embedded', chainPollMs: 4000 }, 'without it nothing is watched')
  t.throws(() => loadConfig({ DATA_DIR: dir, CATALOG_CHAINS: join(dir, 'missing.json') }), { message: `CATALOG_CHAINS: cannot read ${join(dir, 'missing.json')}: ENOENT` })
  writeFileSync(file, JSON.stringify([{ network: 'base', rpcUrl: RPC, confirmations: 'five' }]))
  t.throws(() => loadConfig({ DATA_DIR: dir, CATALOG_CHAINS: file }), { message: `CATALOG_CHAINS file ${file}: [0].confirmations must be an integer from 0 to 10000, got "five"` })
  t.throws(() => loadConfig({ DATA_DIR: dir, CATALOG_WATCHER: 'both' }), { message: 'CATALOG_WATCHER must be embedded or external, got "both"' })
  t.throws(() => loadConfig({ DATA_DIR: dir, CATALOG_CHAIN_POLL_MS: '5' }), { message: /^CATALOG_CHAIN_POLL_MS must be an integer from 100 to 600000, got "5"$/ })
})

test('a watched network the table lacks becomes registrable with its USDC', async (t) => {
  const chains = parseChains(JSON.stringify([{ network: 'eip155:424242', rpcUrl: RPC, usdc: ADDRESS }, { network: 'base', rpcUrl: RPC }]))
  t.same(chainNetworks(chains), [{ id: 'eip155:424242', v1Name: null, family: 'evm', usdc: ADDRESS, usdcEip712: { name: 'USD Coin', version: '2' } }], 'only the unknown one')
  t.equal(resolveNetwork('eip155:424242'), undefined)
  registerNetworks(chainNetworks(chains))
  registerNetworks(chainNetworks(chains))
  t.match(resolveNetwork('eip155:424242'), { id: 'eip155:424242', usdc: ADDRESS })
})
