/** Test helpers: an app on a real SQLite file in a temp DATA_DIR, torn down with the test. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildApp, type AppOptions } from '../src/app.js'
import { loadConfig, type Config } from '../src/config.js'

import type { Test } from 'tap'

export const API_KEY = 'test-key-0123456789abcdef'

/** A fresh DATA_DIR removed when the test ends. */
export function tempDataDir (t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'x402-catalog-test-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Rate limits are off (tests hammer endpoints); the limiter's own tests turn them on through `rateLimit`. */
export function testConfig (dataDir: string, overrides: Partial<Config> = {}): Config {
  // Probing and rate limits off unless a test turns them on: demo and test endpoints point at hosts that never answer.
  // Search on the API thread unless a test asks for threads: a thread per app would load the
  // TypeScript sources again in each (seconds per test); test/search/embedded/engine.test.ts covers threads.
  return { ...loadConfig({ DATA_DIR: dataDir, CATALOG_API_KEYS: API_KEY, LOG_LEVEL: 'silent', CATALOG_RATE_LIMIT: '0', CATALOG_PROBE_INTERVAL_S: '0', CATALOG_SEARCH_THREADS: '0' }), ...overrides }
}

/** Builds the app on a fresh store (demo catalog unless seed is 'none'), closed with the test. */
export async function build (t: Test, overrides: Partial<Config> = {}, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = await buildApp(testConfig(overrides.dataDir ?? tempDataDir(t), overrides), options)
  t.teardown(async () => { await app.close() })
  return app
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

export async function register (app: FastifyInstance, body: unknown, key: string | null = API_KEY): Promise<LightMyRequestResponse> {
  return await app.inject({
    method: 'POST',
    url: '/api/services',
    headers: key === null ? {} : { authorization: `Bearer ${key}` },
    payload: body as Record<string, unknown>
  })
}
