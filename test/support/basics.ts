/**
 * What tests need without building an app: test/helper.ts imports the whole app (some 400
 * modules), which a test that only spawns processes or opens a store should not pay for.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'

export const API_KEY = 'test-key-0123456789abcdef'

/** A fresh DATA_DIR removed when the test ends. */
export function tempDataDir (t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'x402-catalog-test-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

export function validBody (overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Test Weather API',
    description: 'Hourly weather forecasts for any city.',
    endpoint: `https://api.example.com/v1/weather/${Math.random().toString(36).slice(2)}`,
    category: 'weather',
    pricing: { currency: 'USDC', pricePerRequest: '0.001' },
    x402Config: { paymentAddress: '0x1111111111111111111111111111111111111111', network: 'base' },
    ...overrides
  }
}
