/** Client input that once reached a look-up table or the store unchecked: always a 4xx or a normal answer, never a 5xx. */
import { test } from 'tap'
import { buildServiceRecord, type RegistrationBody } from '../../src/domain/registration.js'
import { findCurrency } from '../../src/domain/money.js'
import { build, register, validBody } from '../helper.js'

// Names of Object.prototype members and the prototype itself: a plain-object table finds them all.
const PROTOTYPE_WORDS = ['__proto__', 'toString', 'constructor', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'prototype', 'isPrototypeOf']
const ADDRESS = '0x1111111111111111111111111111111111111111'

test('registration fields that reach a look-up table', async (t) => {
  const app = await build(t, { seed: 'none' })
  for (const word of PROTOTYPE_WORDS) {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['pricing.currency', { pricing: { currency: word, pricePerRequest: '0.001' } }],
      ['category', { category: word }],
      ['x402Config.network', { x402Config: { paymentAddress: ADDRESS, network: word } }],
      ['supportedChains.1', { supportedChains: ['base', word] }]
    ]
    for (const [field, overrides] of cases) {
      const res = await register(app, validBody(overrides))
      t.equal(res.statusCode, 400, `${field} = "${word}" is a 400`)
      t.equal(res.json().field, field, `and names ${field}`)
    }
  }
  t.equal((await app.inject('/api/services')).headers['x-total-count'], '0', 'nothing was stored')
})

test('the currency table only knows its own entries', async (t) => {
  t.equal(findCurrency('USDC')?.decimals, 6)
  for (const word of PROTOTYPE_WORDS) t.equal(findCurrency(word), undefined, word)
  t.throws(() => buildServiceRecord(validBody({ pricing: { currency: 'toString', pricePerRequest: '1' } }) as RegistrationBody, { id: 'svc_x', ownerId: null, now: new Date().toISOString() }),
    { code: 'VALIDATION_ERROR', field: 'pricing.currency' })
})

test('list filters and sorting with prototype names', async (t) => {
  const app = await build(t)
  for (const word of PROTOTYPE_WORDS) {
    for (const param of ['category', 'chain', 'sortBy', 'sortOrder', 'status']) {
      const res = await app.inject({ url: '/api/services', query: { [param]: word, ...(param === 'sortOrder' ? { sortBy: 'price' } : {}) } })
      t.equal(res.statusCode, 400, `${param}=${word} is a 400`)
      t.equal(res.json().field, param)
    }
    const unknown = await app.inject(`/api/services?${word}=1`)
    t.equal(unknown.statusCode, 400, `an unknown parameter named ${word} is a 400`)
    t.equal(unknown.json().field, word)
  }
})

test('routes without parameters refuse unknown ones too, naming them', async (t) => {
  const app = await build(t)
  const [someone] = (await app.store.listServices({}, { field: 'name', order: 'asc' }, { limit: 1, offset: 0 })).items
  const id = (someone as { id: string }).id
  for (const url of [`/api/services/${id}`, `/api/services/${id}/status`, '/api/categories', '/.well-known/x402']) {
    t.equal((await app.inject(url)).statusCode, 200, url)
    for (const word of ['foo', ...PROTOTYPE_WORDS]) {
      const res = await app.inject(`${url}?${word}=1`)
      t.equal(res.statusCode, 400, `${url}?${word}=1`)
      t.equal(res.json().field, word)
    }
  }
})

test('search words with prototype names are ordinary words', async (t) => {
  const app = await build(t)
  await app.searchReady()
  for (const word of PROTOTYPE_WORDS) {
    for (const [url, param] of [['/api/catalog/search', 'q'], ['/api/services/search/intent', 'q'], ['/api/services', 'query']] as const) {
      for (const text of [word, `${word} weather`, `weather ${word}`, `${word}の天気を教えて`]) {
        const res = await app.inject({ url, query: { [param]: text } })
        t.equal(res.statusCode, 200, `${url}?${param}=${text}`)
      }
    }
  }
  const weather = await app.inject({ url: '/api/catalog/search', query: { q: 'constructor weather' } })
  t.ok(weather.json().total > 0, 'the other words still find services')
})

test('search text that kuromoji cannot tokenize (NUL, control characters) is searched, never a 5xx', async (t) => {
  const app = await build(t)
  await app.searchReady()
  for (const [url, param] of [['/api/catalog/search', 'q'], ['/api/services/search/intent', 'q'], ['/api/services', 'query']] as const) {
    for (const text of ['\u0000', '天気\u0000予報', 'weather\u0000', '\u0001\u001f天気']) {
      const res = await app.inject({ url, query: { [param]: text } })
      t.equal(res.statusCode, 200, `${url}?${param}=${JSON.stringify(text)}`)
    }
  }
  const weather = await app.inject({ url: '/api/services/search/intent', query: { q: '天気\u0000予報' } })
  t.same(weather.json().tokens, ['天気', '予報'], 'NUL separates words like a space')
  t.equal(weather.json().results[0]?.service.endpoint, 'https://api.tenki-x402.jp/v1/forecast')
})

test('lone surrogates are refused in every text field, naming it', async (t) => {
  const app = await build(t, { seed: 'none' })
  const lone = ['\ud800', 'abc\udfff', 'x\ud83dy']
  const fields: Array<[string, (s: string) => Record<string, unknown>]> = [
    ['name', (s) => ({ name: `Weather ${s}` })],
    ['description', (s) => ({ description: `Forecasts ${s}` })],
    ['endpoint', (s) => ({ endpoint: `https://api.example.com/${s}` })],
    ['category', (s) => ({ category: s })],
    ['pricing.currency', (s) => ({ pricing: { currency: s, pricePerRequest: '0.001' } })],
    ['pricing.pricePerRequest', (s) => ({ pricing: { currency: 'USDC', pricePerRequest: s } })],
    ['x402Config.paymentAddress', (s) => ({ x402Config: { paymentAddress: s, network: 'base' } })],
    ['x402Config.network', (s) => ({ x402Config: { paymentAddress: ADDRESS, network: s } })],
    ['supportedChains.0', (s) => ({ supportedChains: [s] })]
  ]
  for (const [field, make] of fields) {
    for (const text of lone) {
      // JSON.stringify writes a lone surrogate as the escape \udXXX, which is what a client sends.
      const res = await register(app, validBody(make(text)))
      t.equal(res.statusCode, 400, `${field} with ${JSON.stringify(text)}`)
      t.equal(res.json().field, field)
      t.match(res.json().message, field === 'name' || field === 'description' || field === 'endpoint' ? /surrogate/ : /./)
    }
  }
  const paired = await register(app, validBody({ name: 'Weather 🌦 API', description: '𠮷野家 の天気 😀' }))
  t.equal(paired.statusCode, 201, 'astral characters (proper surrogate pairs) are fine')
  const stored = (await app.inject(`/api/services/${paired.json().id as string}`)).json()
  t.equal(stored.name, 'Weather 🌦 API', 'and stored exactly as answered')
  t.equal(stored.description, '𠮷野家 の天気 😀')
  t.equal((await app.inject('/api/services')).headers['x-total-count'], '1', 'nothing else was stored')
})

test('names of only invisible characters and bidi overrides are refused', async (t) => {
  const app = await build(t, { seed: 'none' })
  const invisible = {
    'zero-width space': '\u200b\u200b',
    'zero-width joiner and non-joiner': '\u200d\u200c',
    'word joiner and BOM': '\u2060\ufeff',
    'Hangul filler U+3164': '\u3164',
    'Hangul choseong filler U+115F': '\u115f\u1160',
    'half-width Hangul filler': '\uffa0',
    'variation selectors': '\ufe0f\ufe0e',
    'soft hyphen': '\u00ad',
    'braille blank': '\u2800',
    'ideographic space and NBSP': '\u3000\u00a0',
    'combining grapheme joiner': '\u034f',
    'mixed with spaces': ' \u200b \u3164 '
  }
  for (const [label, text] of Object.entries(invisible)) {
    const name = await register(app, validBody({ name: text }))
    t.equal(name.statusCode, 400, `name of ${label}`)
    t.equal(name.json().field, 'name')
    t.match(name.json().message, /blank/)
    const description = await register(app, validBody({ description: text }))
    t.equal(description.json().field, 'description', `description of ${label}`)
  }
  const bidi = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069']
  for (const char of bidi) {
    const code = `U+${char.codePointAt(0)?.toString(16).toUpperCase() ?? ''}`
    const name = await register(app, validBody({ name: `Weather ${char}IPA` }))
    t.equal(name.statusCode, 400, `name with ${code}`)
    t.equal(name.json().field, 'name')
    t.match(name.json().message, /bidirectional/)
    t.equal((await register(app, validBody({ description: `Forecasts ${char}reversed` }))).json().field, 'description', `description with ${code}`)
  }
  // Legitimate uses of format characters stay valid.
  for (const name of ['👨\u200d👩\u200d👧 Family API', 'ערבית \u200fAPI', '❤\ufe0f Heart API', 'Weather\u00adForecast']) {
    t.equal((await register(app, validBody({ name }))).statusCode, 201, JSON.stringify(name))
  }
})
