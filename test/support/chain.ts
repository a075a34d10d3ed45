/** The local chain kit (scripts/local-chain.ts, shared with npm run demo:chain and the benchmark) for tests. */
export * from '../../scripts/local-chain.js'
