/**
 * The search page in a real browser: Debian's chromium driven by playwright-core against a
 * real server on 127.0.0.1. Without /usr/bin/chromium the browser part skips, loudly.
 */
import { existsSync } from 'node:fs'
import { test } from 'tap'
import type { Browser, Page } from 'playwright-core'
import { PAGE_CSP } from '../../src/routes/page.js'
import { readSeedFile } from '../../src/domain/seed.js'
import { newServiceId } from '../../src/domain/ids.js'
import { buildServiceRecord, type RegistrationBody } from '../../src/domain/registration.js'
import { build, demoIds, probeDemo, register, validBody, verify } from '../helper.js'
import { startX402Server } from '../support/x402-servers.js'
import { WEATHER } from '../support/discovery-declarations.js'

/** Debian's chromium; CHROMIUM_PATH points elsewhere (never a downloaded browser). */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']

test('the page and its assets are served with a Content-Security-Policy', async (t) => {
  const app = await build(t, { seed: 'none' })
  const page = await app.inject('/')
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /text\/html/)
  t.equal(page.headers['content-security-policy'], PAGE_CSP)
  t.equal(page.headers['cache-control'], 'no-cache', 'the page is revalidated on every load')
  t.match(PAGE_CSP, /script-src 'self'/)
  t.notMatch(PAGE_CSP, /unsafe-inline|unsafe-eval/, 'no inline script, no eval')
  t.match(page.body, /<input id="q" name="q" type="search"/)
  t.match(page.body, /<label for="q"/, 'the search box has a label')
  t.notMatch(page.body, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script in the page')
  const script = await app.inject('/assets/app.js')
  t.equal(script.statusCode, 200)
  t.match(script.headers['content-type'], /javascript/)
  t.equal(script.headers['x-content-type-options'], 'nosniff')
  t.notMatch(script.body, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/, 'the page never parses strings as HTML')
  const networks = (await app.inject('/assets/networks.json')).json() as Record<string, string>
  t.equal(networks['eip155:8453'], 'base')
  t.equal((await app.inject('/assets/nope.js')).statusCode, 404)
  t.equal((await app.inject('/assets/../package.json')).statusCode, 404, 'no way out of public/')
})

test('the search page in chromium', { skip: existsSync(CHROMIUM) ? false : loudSkip() }, async (t) => {
  const { chromium } = await import('playwright-core')
  const app = await build(t)
  const evil = await register(app, validBody({
    name: '<img src=x onerror="window.__pwned=1">Evil Quokka API',
    description: 'Quokka facts. <script>window.__pwned=2</script><b>bold</b>'
  }))
  t.equal(evil.statusCode, 201)
  // The demo starts unverified and never checked; a round of recorded probes gives it a mix.
  const statuses = await probeDemo(app)
  // The kana query below weighs two translation services on relevance: both answered their probe.
  const seeded = readSeedFile('demo')
  await verify(app, [demoIds()[seeded.findIndex((s) => s.name === 'ほんやくゲート 翻訳 API')] as string])
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  t.teardown(async () => { await browser.close() })

  /** searches: the page's requests for a typed query; browses: its listings of the catalog (no q). */
  async function open (path = '/', locale = 'en-US'): Promise<{ page: Page, searches: string[], browses: string[], problems: string[] }> {
    const context = await browser.newContext({ locale, viewport: { width: 1200, height: 900 } })
    const page = await context.newPage()
    const searches: string[] = []
    const browses: string[] = []
    const problems: string[] = []
    page.on('request', (request) => {
      const url = new URL(request.url())
      if (url.pathname === '/api/catalog/search') ((url.searchParams.get('q') ?? '') !== '' ? searches : browses).push(request.url())
    })
    page.on('pageerror', (err) => problems.push(err.message))
    page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()) })
    await page.goto(address + path)
    return { page, searches, browses, problems }
  }
  const firstName = async (page: Page): Promise<string | null> => await page.locator('.result-link').first().textContent()
  const summary = (page: Page): ReturnType<Page['locator']> => page.locator('#summary')

  await t.test('a misspelt English query finds the weather forecast first, highlighted', async (t) => {
    const { page, problems } = await open()
    t.match(await page.locator('#state').textContent(), /Find a paid API/, 'the empty state says what to try')
    await page.locator('#q').pressSequentially('wether forcast', { delay: 20 })
    await summary(page).filter({ hasText: 'wether forcast' }).waitFor()
    t.equal(await firstName(page), 'StormTrack Weather Forecast')
    t.same(await page.locator('.result').first().locator('.result-name mark').allTextContents(), ['Weather', 'Forecast'], 'matched words are marked')
    t.match(await page.locator('.result').first().locator('.result-meta').textContent(), /0\.0015 USDC.*Weather & Climate.*Base.*Trust \d+.*Uptime [\d.]+%/)
    t.match(page.url(), /\?q=wether\+forcast$/, 'the URL holds the query')
    t.same(problems, [], 'no script error or CSP violation')
  })

  await t.test('an empty query lists the catalog, verified first, with its facets; typing asks once per settled query', async (t) => {
    const { page, searches, browses, problems } = await open()
    await summary(page).filter({ hasText: /in the catalog, most trusted first/ }).waitFor()
    t.match(await page.locator('#state').textContent(), /Find a paid API/, 'the examples stay above the listing')
    const listed = (await app.inject('/api/catalog/search?q=&limit=10')).json() as { total: number, results: Array<{ service: { name: string, status: string } }> }
    t.match(await summary(page).textContent(), new RegExp(`^${listed.total} services`))
    t.same(await page.locator('.result-link').allTextContents(), listed.results.map((r) => r.service.name), 'the first page of the listing')
    t.equal(listed.results[0]?.service.status, 'verified')
    t.match(await page.locator('.result').first().locator('.badge').textContent(), /Verified/, 'verified services first')
    const weather = page.locator('#facet-category .facet-option').filter({ hasText: 'Weather & Climate' })
    const count = Number(await weather.locator('.count').textContent())
    t.ok(count > 0, `the category facet counts the catalog (weather: ${count})`)
    t.ok(await page.locator('#facet-status .facet-option').count() > 1 && await page.locator('#facet-chain .facet-option').count() > 1, 'status and network facets too')
    await weather.locator('label').click()
    await summary(page).filter({ hasText: new RegExp(`^${count} services`) }).waitFor()
    t.equal(browses.length, 2, 'one listing on load, one for the facet')

    // Keystrokes with no pause between them (dispatched at once): one search, for the settled text.
    await page.evaluate(() => {
      const box = document.getElementById('q') as HTMLInputElement
      for (const text of ['w', 'we', 'wea', 'weat', 'weath', 'weathe', 'weather']) {
        box.value = text
        box.dispatchEvent(new Event('input', { bubbles: true }))
      }
    })
    await summary(page).filter({ hasText: '“weather”' }).waitFor()
    t.same(searches.map((url) => new URL(url).searchParams.get('q')), ['weather'], 'one search per settled query')
    t.same(problems, [])
  })

  await t.test('a newer search cancels the one in flight', async (t) => {
    const { page } = await open()
    let delayed = false
    await page.route('**/api/catalog/search?*', async (route) => {
      if (!delayed && new URL(route.request().url()).searchParams.has('q')) {
        delayed = true
        await new Promise((resolve) => setTimeout(resolve, 1500))
      }
      await route.continue().catch(() => {})
    })
    const failed: Array<string | null> = []
    page.on('requestfailed', (request) => { const q = new URL(request.url()).searchParams.get('q'); if (q !== null) failed.push(q) })
    await page.locator('#q').fill('weather')
    await page.waitForTimeout(500)
    await page.locator('#q').fill('translation')
    await summary(page).filter({ hasText: 'translation' }).waitFor()
    t.same(failed, ['weather'], 'the stale request was aborted')
    await page.waitForTimeout(1500)
    t.match(await summary(page).textContent(), /“translation”/, 'a late answer never replaces the newer one')
  })

  await t.test('a kana query typed through an input method finds the Japanese service first', async (t) => {
    const { page, searches } = await open('/', 'ja-JP')
    t.equal(await page.locator('.search-label').textContent(), '有料 API を検索', 'Japanese UI for a Japanese browser')
    await page.locator('#q').focus()
    const cdp = await page.context().newCDPSession(page)
    for (const text of ['h', 'ほ', 'ほn', 'ほん', 'ほんy', 'ほんや', 'ほんやk', 'ほんやく']) {
      await cdp.send('Input.imeSetComposition', { text, selectionStart: text.length, selectionEnd: text.length })
      await page.waitForTimeout(60)
    }
    await page.waitForTimeout(500)
    t.same(searches, [], 'no search while the composition is open')
    await cdp.send('Input.insertText', { text: 'ほんやく' })
    await summary(page).filter({ hasText: 'ほんやく' }).waitFor()
    t.equal(await firstName(page), 'ほんやくゲート 翻訳 API')
    t.equal(searches.length, 1, 'one search for the committed word')
    t.match(await page.locator('.result').first().locator('.badge').textContent(), /検証済み|未検証|停止中/)
    await page.locator('#lang-toggle').click()
    t.equal(await page.locator('.search-label').textContent(), 'Search paid APIs', 'the toggle switches to English')
    t.match(await summary(page).textContent(), /services? match/, 'results re-render in the new language')
  })

  await t.test('a facet filters the results, with counts, and the back button undoes it', async (t) => {
    const { page } = await open('/?q=api')
    await summary(page).filter({ hasText: '“api”' }).waitFor()
    const total = Number((await summary(page).textContent())?.match(/^\d+/)?.[0])
    const option = page.locator('#facet-category .facet-option').filter({ hasText: 'Weather & Climate' })
    const count = Number(await option.locator('.count').textContent())
    t.ok(count > 0 && count < total, `weather: ${count} of ${total}`)
    await option.locator('label').click()
    await summary(page).filter({ hasText: new RegExp(`^${count} `) }).waitFor()
    t.match(page.url(), /category=weather/)
    const categories = await page.locator('.result-meta li:nth-child(2)').allTextContents()
    t.ok(categories.length > 0 && categories.every((c) => c === 'Weather & Climate'), 'every result is a weather service')
    t.ok(await page.locator('#facet-category input[value="weather"]').isChecked())
    await page.goBack()
    await summary(page).filter({ hasText: new RegExp(`^${total} `) }).waitFor()
    t.notOk(await page.locator('#facet-category input[value="weather"]').isChecked(), 'back: the filter is off again')

    await page.locator('#max-price').fill('abc')
    await page.locator('#max-price-error').waitFor()
    t.match(await page.locator('#max-price-error').textContent(), /number/, 'a bad price is explained, not sent')
    await page.locator('#max-price').fill('0.001')
    await page.waitForURL(/maxPricePerRequest=0\.001/)
    // The max-price results are on screen until the sorted answer is rendered: wait for that
    // answer, then for the page to have rendered it (aria-busy is cleared just before).
    const sorted = page.waitForResponse((response) => response.url().includes('/api/catalog/search') && response.url().includes('sortBy=price'))
    await page.locator('#sort').selectOption('price')
    await page.waitForURL(/sortBy=price/)
    await sorted
    await page.waitForFunction(() => document.getElementById('results')?.getAttribute('aria-busy') === 'false')
    await page.locator('.result').first().waitFor()
    const prices = (await page.locator('.result-meta .price strong').allTextContents()).map((p) => Number.parseFloat(p))
    t.ok(prices.length > 0 && prices.every((p) => p <= 0.001), 'under the max price')
    t.same(prices, [...prices].sort((a, b) => a - b), 'cheapest first')
  })

  await t.test('paging, by keyboard', async (t) => {
    const { page } = await open('/?q=api')
    await summary(page).filter({ hasText: '“api”' }).waitFor()
    const pageOne = await page.locator('.result-link').allTextContents()
    t.equal(pageOne.length, 10)
    t.match(await page.locator('#page-info').textContent(), /^Page 1 of \d+$/)
    t.ok(await page.locator('#prev-page').isDisabled())
    await page.locator('#next-page').focus()
    await page.keyboard.press('Enter')
    await page.waitForURL(/page=2/)
    await page.locator('#page-info').filter({ hasText: /^Page 2 of/ }).waitFor()
    const pageTwo = await page.locator('.result-link').allTextContents()
    t.ok(pageTwo.length > 0 && pageTwo.every((name) => !pageOne.includes(name)), 'page 2 holds other services')
    await page.goBack()
    await page.locator('#page-info').filter({ hasText: /^Page 1 of/ }).waitFor()
    t.same(await page.locator('.result-link').allTextContents(), pageOne, 'back to page 1')
  })

  await t.test('the detail view shows the status and a copyable call', async (t) => {
    const { page, problems } = await open('/?q=stormtrack')
    const link = page.locator('.result-link').first()
    await link.waitFor()
    await link.focus()
    await page.keyboard.press('Enter')
    await page.locator('#curl-example').waitFor()
    t.match(page.url(), /service=svc_/)
    const id = new URL(page.url()).searchParams.get('service') as string
    const service = (await app.inject(`/api/services/${id}`)).json() as { endpoint: string }
    const status = (await app.inject(`/api/services/${id}/status`)).json() as { trustScore: number, txCount: number }
    t.equal(await page.locator('#detail-title').textContent(), 'StormTrack Weather Forecast')
    t.equal(await page.locator('#curl-example').textContent(), `curl -i '${service.endpoint}'`)
    const facts = await page.locator('#detail-body').textContent()
    t.match(facts, new RegExp(`Trust score${status.trustScore}`))
    t.match(facts, new RegExp(`Paid calls${status.txCount.toLocaleString('en-US')}`))
    await page.locator('#detail .copy').click()
    await page.locator('#detail .copy').filter({ hasText: /Copied/ }).waitFor()
    await page.keyboard.press('Escape')
    await page.waitForURL((url) => !url.search.includes('service='))
    t.notOk(await page.locator('#detail').evaluate((d: HTMLDialogElement) => d.open), 'Escape closes it')
    t.equal(await page.evaluate(() => document.activeElement?.className), 'result-link', 'focus returns to the result')
    await page.goForward()
    await page.locator('#curl-example').waitFor()
    t.ok(await page.locator('#detail').evaluate((d: HTMLDialogElement) => d.open), 'forward reopens it: the URL names the service')

    const direct = await open(`/?service=${id}`)
    await direct.page.locator('#curl-example').waitFor()
    t.equal(await direct.page.locator('#detail-title').textContent(), 'StormTrack Weather Forecast', 'a shared link opens the service')
    t.match(await direct.page.locator('#detail-body').textContent(), /Last probematches the registration \(.+\)/, 'the recorded probe\'s verdict, with its time')

    // The prober adds its last verdict to the status object; the page shows it when present.
    const probed = await open()
    await probed.page.route('**/api/services/*/status', async (route) => {
      const upstream = await route.fetch()
      await route.fulfill({ response: upstream, json: { ...(await upstream.json()), lastProbe: { at: '2026-11-20T06:00:00.000Z', ok: false, reason: 'answered 500 instead of 402' } } })
    })
    await probed.page.goto(`${address}/?service=${id}`)
    await probed.page.locator('#curl-example').waitFor()
    t.match(await probed.page.locator('#detail-body').textContent(), /Last probeanswered 500 instead of 402 \(.*2026.*\)/)
    t.same(problems, [])
  })

  await t.test('a service no probe has checked says so plainly: unverified, uptime not checked, never checked', async (t) => {
    const id = demoIds()[1] as string
    t.equal(statuses.get(id), 'unverified')
    const service = (await app.inject(`/api/services/${id}`)).json() as { name: string }
    t.match((await app.inject(`/api/services/${id}/status`)).json(), { status: 'unverified', uptimeScore: null, lastChecked: null, lastProbe: null })
    const { page, problems } = await open(`/?q=${encodeURIComponent(service.name)}`)
    const card = page.locator('.result').filter({ hasText: service.name }).first()
    await card.waitFor()
    t.equal(await card.locator('.badge').textContent(), 'Unverified')
    const meta = await card.locator('.result-meta').textContent() ?? ''
    t.match(meta, /Trust 10.*Uptime not checked yet$/, 'a new listing\'s trust, and no uptime figure')
    t.notMatch(meta, /%/, 'no percentage nothing measured')
    await card.locator('.result-link').click()
    await page.locator('#curl-example').waitFor()
    const facts = await page.locator('#detail-body').textContent() ?? ''
    t.match(facts, /StatusUnverified/)
    t.match(facts, /Uptimenot checked yet/)
    t.match(facts, /Last checkednever/)
    t.notMatch(facts, /Last probe/, 'no probe, no probe line')
    const ja = await open(`/?service=${id}`, 'ja-JP')
    await ja.page.locator('#curl-example').waitFor()
    const jaFacts = await ja.page.locator('#detail-body').textContent() ?? ''
    t.match(jaFacts, /未検証/)
    t.match(jaFacts, /稼働率未計測/)
    t.match(jaFacts, /最終確認なし/)
    t.same(problems, [])
    t.same(ja.problems, [])
  })

  await t.test('the detail view shows usage measured from payments and the latest ones, with their transactions', async (t) => {
    const [storm] = (await app.inject('/api/services?query=stormtrack&limit=1')).json() as Array<{ id: string, x402Config: { paymentAddress: string, network: string } }>
    const { id, x402Config } = storm as NonNullable<typeof storm>
    const payments = Array.from({ length: 7 }, (_, i) => ({
      network: x402Config.network,
      txHash: `0x${'c'.repeat(60)}${String(i).padStart(4, '0')}`,
      logIndex: i,
      blockNumber: 500 + i,
      blockHash: `0x${'d'.repeat(64)}`,
      at: new Date(Date.now() - (7 - i) * 3_600_000).toISOString(),
      payer: `0x${String(i % 2).repeat(40)}`,
      payTo: x402Config.paymentAddress.toLowerCase(),
      amount: '1500',
      serviceId: id
    }))
    await app.store.commitChainScan(x402Config.network, { payments })
    const { page, problems } = await open(`/?service=${id}`)
    await page.locator('#curl-example').waitFor()
    const facts = await page.locator('#detail-body').textContent() ?? ''
    t.match(facts, /Paid calls7/)
    t.match(facts, /Revenue \(USDC\)0\.0105/)
    t.match(facts, /Distinct payers2/)
    t.match(facts, /Usage measurednot measured on this network/, 'an unwatched network says its figures are not measured')
    t.match(facts, /Figures coverthis service/)
    t.equal(await page.locator('#detail h3', { hasText: 'Latest payments' }).count(), 1)
    const rows = await page.locator('#detail table.payments tbody tr').allTextContents()
    t.equal(rows.length, 5, 'the newest five')
    t.match(rows[0], new RegExp(`0\\.0015.*${payments[6]?.txHash as string}`), 'newest first, amount in USDC and the transaction hash')
    t.same(problems, [])
  })

  await t.test('injected markup in a service renders as text', async (t) => {
    const { page, problems } = await open()
    await page.locator('#q').fill('evil quokka')
    await summary(page).filter({ hasText: 'evil quokka' }).waitFor()
    const result = page.locator('.result').first()
    t.equal(await result.locator('.result-link').textContent(), '<img src=x onerror="window.__pwned=1">Evil Quokka API')
    t.match(await result.locator('.result-description').textContent(), '<script>window.__pwned=2</script><b>bold</b>')
    t.equal(await result.locator('.unclaimed').count(), 0, 'the registrant-text warning is not on every card')
    t.equal(await page.locator('#results img, #results script, #results b').count(), 0, 'no element was made from the text')
    await result.locator('.result-link').click()
    await page.locator('#curl-example').waitFor()
    t.equal(await page.locator('#detail-title').textContent(), '<img src=x onerror="window.__pwned=1">Evil Quokka API')
    t.equal(await page.locator('#detail img').count(), 0)
    t.equal(await page.locator('#detail .unclaimed').textContent(), 'Text by the registrant, not confirmed by the provider', 'an unclaimed listing\'s text is labelled as the registrant\'s in its detail')
    t.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined, 'nothing ran')
    t.same(problems, [])
  })

  await t.test('the detail view shows the input fields and the example call the endpoint declares', async (t) => {
    const provider = '0x6a8607afb7ac96d2c8a3e1b44560ff101b34550b'
    const server = await startX402Server({ payTo: provider, extensions: WEATHER })
    t.teardown(server.close)
    const declaring = await build(t, { seed: 'none', probeAllowPrivate: true })
    const created = await register(declaring, validBody({ name: 'Sky Oracle', endpoint: server.url, x402Config: { paymentAddress: provider, network: 'base' } }))
    const id = created.json().id as string
    t.match(await declaring.prober.probeService(id), { matched: true })
    const origin = await declaring.listen({ port: 0, host: '127.0.0.1' })
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1200, height: 900 } })
    const page = await context.newPage()
    const problems: string[] = []
    page.on('pageerror', (err) => problems.push(err.message))
    await page.goto(`${origin}/?service=${id}`)
    await page.locator('#input-fields').waitFor()
    t.match(await page.locator('#detail h3', { hasText: 'Input' }).textContent(), /query string/)
    t.same(await page.locator('#input-fields tbody tr').evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent))),
      [['city', 'string', 'required', 'City to forecast'], ['units', 'string', '', '']], 'each declared field: name, type, required, description')
    t.equal(await page.locator('#curl-example').textContent(), `curl -X GET '${server.url}?city=Tokyo&units=metric'`, 'the example call, with the declared example input')
    t.same(problems, [])
    // Before this app closes: its close waits for the browser's open keep-alive connection.
    await context.close()
  })

  await t.test('test-network listings: left out until the box is ticked, then shown with a badge', async (t) => {
    const { page, problems } = await open('/?q=しゅくじつ')
    await page.locator('#state h2').waitFor()
    t.match(await page.locator('#state').textContent(), /No services match/, 'the holiday calendar takes test payments only: not listed')
    t.notOk(await page.locator('#testnet').isChecked())
    await page.locator('label[for="testnet"]').click()
    await page.waitForURL(/testnet=include/)
    await page.locator('.result').first().waitFor()
    t.equal(await firstName(page), '祝日カレンダー API')
    t.equal(await page.locator('.result').first().locator('.badge-testnet').textContent(), 'Test network')
    await page.goBack()
    await page.locator('#state h2').waitFor()
    t.notOk(await page.locator('#testnet').isChecked(), 'back: the box is clear again')
    t.same(problems, [])
  })

  await t.test('a dynamic price (a source listed no fixed amount) reads as such, in the results and the detail, in both languages', async (t) => {
    const record = buildServiceRecord({ ...validBody({ name: 'Wombatly Metered Search', description: 'Billed by the query.' }) as unknown as RegistrationBody, pricing: { currency: 'USDC', pricePerRequest: null } }, { id: newServiceId(), ownerId: null, now: new Date().toISOString() })
    await app.store.insertService(record)
    await app.searchReady()
    const { page, problems } = await open('/?q=wombatly')
    await page.locator('.result').first().waitFor()
    t.equal(await page.locator('.result .price').first().textContent(), 'Dynamic price')
    await page.goto(`${address}/?service=${record.id}`)
    await page.locator('#detail .facts').first().waitFor()
    t.match(await page.locator('#detail .facts').first().textContent(), /Dynamic price/)
    const ja = await open(`/?service=${record.id}`, 'ja-JP')
    await ja.page.locator('#detail .facts').first().waitFor()
    t.match(await ja.page.locator('#detail .facts').first().textContent(), /変動価格/)
    t.same([...problems, ...ja.problems], [])
  })

  await t.test('no results, and a phone-sized screen', async (t) => {
    const { page } = await open('/?q=zzqxjv&status=inactive')
    await page.setViewportSize({ width: 375, height: 812 })
    await page.locator('#state h2').waitFor()
    t.match(await page.locator('#state').textContent(), /No services match “zzqxjv”.*spelling.*Filters are on/s, 'says what to try')
    t.notOk(await page.locator('#filters').evaluate((d: HTMLDetailsElement) => d.open), 'filters fold away on a phone')
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
    t.equal(overflow, 0, 'no sideways scrolling')
    await page.locator('#state .link-button').click()
    await page.waitForURL((url) => !url.search.includes('status='))
    // The URL changes before the new answer renders: wait for the state without the filter hint
    // (it never comes if the hint stays), then read it.
    await page.locator('#state', { hasNotText: 'Filters are on' }).locator('h2').waitFor()
    const state = await page.locator('#state').textContent() ?? ''
    t.match(state, /No services match “zzqxjv”/, 'still nothing without the filter')
    t.notMatch(state, /null|Filters are on/, 'no filter hint, and no stray "null", once the filters are cleared')
    t.equal(await page.locator('#summary').textContent(), '', 'the empty state is said once, not also in the summary')
  })
})

function loudSkip (): string {
  const message = `BROWSER TESTS SKIPPED: ${CHROMIUM} is missing. Install Debian's chromium (as root: apt-get update && apt-get install -y chromium) to run them.`
  console.error(`\n${'!'.repeat(message.length)}\n${message}\n${'!'.repeat(message.length)}\n`)
  return message
}
