import { test } from 'tap'
import { canonicalEndpoint, canonicalOrigin, normalizePercentEncoding, originOf, MAX_ENDPOINT_LENGTH } from '../../src/domain/endpoint-url.js'
import { API_KEY, build, register, validBody } from '../helper.js'

test('spellings of one endpoint share one canonical form', async (t) => {
  const same: Array<[string, string]> = [
    ['HTTPS://API.Example.COM/v1/x', 'https://api.example.com/v1/x'],
    ['https://api.example.com./v1/x', 'https://api.example.com/v1/x'],
    ['https://api.example.com../v1/x', 'https://api.example.com/v1/x'],
    ['https://api.example.com:443/v1/x', 'https://api.example.com/v1/x'],
    ['http://api.example.com:80/v1/x', 'http://api.example.com/v1/x'],
    ['https://api.example.com/v1/x?', 'https://api.example.com/v1/x'],
    ['https://api.example.com/v1/x#', 'https://api.example.com/v1/x'],
    ['https://api.example.com', 'https://api.example.com/'],
    ['https://api.example.com/v1/%78', 'https://api.example.com/v1/x'],
    ['https://api.example.com/%7euser/a%2db%2E%5f', 'https://api.example.com/~user/a-b._'],
    ['https://api.example.com/a/./b/../x', 'https://api.example.com/a/x'],
    ['https://api.example.com/a/%2e%2E/x', 'https://api.example.com/x'],
    ['https://api.example.com/v1/x?city=%7eTokyo', 'https://api.example.com/v1/x?city=~Tokyo'],
    ['https://例え.jp/天気', 'https://xn--r8jz45g.jp/%E5%A4%A9%E6%B0%97'],
    ['https://xn--r8jz45g.jp/%e5%a4%a9%e6%b0%97', 'https://xn--r8jz45g.jp/%E5%A4%A9%E6%B0%97'],
    ['https://api.example.com/a b', 'https://api.example.com/a%20b'],
    ['https://[0:0:0:0:0:0:0:1]:443/x', 'https://[::1]/x'],
    ['http://0x7f000001/x', 'http://127.0.0.1/x']
  ]
  for (const [input, canonical] of same) t.equal(canonicalEndpoint(input), canonical, input)
})

test('an origin is the origin of its canonical endpoints, whatever URL of it is given', async (t) => {
  for (const input of ['http://[::ffff:127.0.0.1]:8080/x', 'http://[::ffff:7f00:1]:8080', 'http://127.0.0.1.:8080/y?z#f', 'HTTP://0x7f000001:8080']) {
    t.equal(canonicalOrigin('origin', input), 'http://127.0.0.1:8080', input)
    t.equal(canonicalOrigin('origin', input), originOf(canonicalEndpoint(input.replace(/#.*$/, ''))), `${input}: the same as its endpoints'`)
  }
  t.equal(canonicalOrigin('origin', 'https://API.example.com.:443/a'), 'https://api.example.com')
  for (const bad of ['ftp://a.example', 'not a url', 'https://u:p@a.example']) t.throws(() => canonicalOrigin('origin', bad), { name: 'ValidationError', field: 'origin' }, bad)
})

test('what stays distinct', async (t) => {
  const pairs: Array<[string, string]> = [
    ['https://api.example.com/x/', 'https://api.example.com/x'],
    ['https://api.example.com/X', 'https://api.example.com/x'],
    ['https://api.example.com/x?a=1&b=2', 'https://api.example.com/x?b=2&a=1'],
    ['https://api.example.com/a%2Fb', 'https://api.example.com/a/b'],
    ['https://api.example.com/x?q=a%26b', 'https://api.example.com/x?q=a&b'],
    ['http://api.example.com/x', 'https://api.example.com/x'],
    ['https://api.example.com:8443/x', 'https://api.example.com/x']
  ]
  for (const [a, b] of pairs) t.not(canonicalEndpoint(a), canonicalEndpoint(b), `${a} ≠ ${b}`)
  t.equal(canonicalEndpoint('https://api.example.com/a%2fb'), 'https://api.example.com/a%2Fb', 'reserved escapes stay encoded, upper case')
  t.equal(canonicalEndpoint('https://api.example.com/100%zz'), 'https://api.example.com/100%zz', 'a stray % is left alone')
})

test('percent-encoding normalisation on its own', async (t) => {
  t.equal(normalizePercentEncoding('%41%7a%30%2d%2e%5F%7E'), 'Az0-._~')
  t.equal(normalizePercentEncoding('%2f%3a%e3%81%82'), '%2F%3A%E3%81%82')
  t.equal(normalizePercentEncoding('%'), '%')
  t.equal(normalizePercentEncoding('%4'), '%4')
})

test('refused endpoints name the field', async (t) => {
  for (const bad of ['not a url', '/relative', 'ftp://example.com/x', 'https://u:p@example.com/x', 'https://u@example.com/x',
    'https://example.com/x#frag', 'javascript:alert(1)', 'https://./x', 'https://../x']) {
    t.throws(() => canonicalEndpoint(bad), { name: 'ValidationError', field: 'endpoint' }, bad)
  }
})

test('the length limit applies to the canonical form', async (t) => {
  const base = 'https://api.example.com/'
  const exact = base + 'a'.repeat(MAX_ENDPOINT_LENGTH - base.length)
  t.equal(canonicalEndpoint(exact).length, MAX_ENDPOINT_LENGTH)
  t.throws(() => canonicalEndpoint(exact + 'a'), /2048 characters in canonical form/)
  // Longer as sent, short enough once %7E is decoded.
  t.equal(canonicalEndpoint(base + '%7E'.repeat(1000)).length, base.length + 1000)
  // Short as sent, too long once the non-ASCII path is encoded (9 characters each).
  t.throws(() => canonicalEndpoint(base + '天'.repeat(230)), { name: 'ValidationError', field: 'endpoint' })
})

test('registration stores and compares canonical endpoints', async (t) => {
  const app = await build(t, { seed: 'none' })
  // localhost: a duplicate's ownership probe is refused by the address guard, with no traffic.
  const first = await register(app, validBody({ endpoint: 'HTTPS://LocalHost.:443/v1/%7eforecast?' }))
  t.equal(first.statusCode, 201)
  t.equal(first.json().endpoint, 'https://localhost/v1/~forecast')
  for (const spelling of ['https://localhost/v1/~forecast', 'https://localhost/v1/%7Eforecast#', 'https://LOCALHOST/v1/%7eforecast']) {
    const dup = await register(app, validBody({ endpoint: spelling }))
    t.equal(dup.statusCode, 409, `${spelling} is the same endpoint`)
    t.equal(dup.json().field, 'endpoint')
    t.match(dup.json().message, /is listed by svc_.*cannot decide ownership \(blocked/)
  }
  t.equal((await register(app, validBody({ endpoint: 'https://localhost/v1/~forecast/' }))).statusCode, 201, 'a trailing slash is another endpoint')
  const long = await register(app, validBody({ endpoint: 'https://api.example.com/' + '天'.repeat(300) }))
  t.equal(long.statusCode, 400)
  t.equal(long.json().field, 'endpoint')
  t.match(long.json().message, /canonical form/)
  t.equal((await app.inject({ url: '/api/services', headers: { authorization: `Bearer ${API_KEY}` } })).json().length, 2, 'nothing else was stored')
})
