/**
 * Takes the README's screenshot of the search page (docs/search-page.png): the demo catalog
 * on a temporary DATA_DIR, as a fresh start shows it (every service unverified and never
 * checked: no figure in the picture that nothing measured), Debian's chromium (CHROMIUM_PATH
 * to point elsewhere). Japanese text needs a CJK font installed (Debian: fonts-noto-cjk).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { PROJECT_ROOT } from '../src/paths.js'

const dataDir = mkdtempSync(join(tmpdir(), 'x402-catalog-screenshot-'))
const app = await buildApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' }))
try {
  await app.searchReady()
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']
  })
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 860 }, locale: 'en-US' })
    await page.goto(`${address}/?q=${encodeURIComponent(process.argv[2] ?? 'wether forcast')}`)
    await page.locator('.result').first().waitFor()
    const out = join(PROJECT_ROOT, 'docs', 'search-page.png')
    await page.screenshot({ path: out })
    console.log(`wrote ${out}`)
  } finally {
    await browser.close()
  }
} finally {
  await app.close()
  rmSync(dataDir, { recursive: true, force: true })
}
