import neostandard from 'neostandard'

// One style for src/, test/, bench/ and scripts/: standard's rules, TypeScript-aware.
export default [
  ...neostandard({
    ts: true,
    ignores: ['dist/**', 'coverage/**', 'data/**', 'public/**', 'test/x402-v1/**', '.tap/**']
  }),
  {
    rules: {
      // `void promise` marks a deliberate fire-and-forget call (Fastify's reply.send, timers).
      'no-void': ['error', { allowAsStatement: true }],
      // x402's resource server class is spelled in lower case by its library.
      'new-cap': ['error', { newIsCap: true, capIsNew: false, properties: true, newIsCapExceptions: ['x402ResourceServer'] }]
    }
  }
]
