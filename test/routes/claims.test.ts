/** Claims against squatting: a token published by the origin moves its listings to the prover's key. */
import { test } from 'tap'
import { encodePaymentRequiredHeader } from '@x402/core/http'
import { API_KEY, build, register, validBody } from '../helper.js'
import { startHttpServer, startX402Server } from '../support/x402-servers.js'

const SQUATTER_KEY = 'squatter-key-0123456789abcdef'
const PROVIDER = '0x6a8607afb7ac96d2c8a3e1b44560ff101b34550b'
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'

const auth = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` })

test('a proven owner takes over every listing of its origin; unproven listings say so', async (t) => {
  const claims: string[] = []
  const server = await startX402Server({ payTo: PROVIDER, claims })
  t.teardown(server.close)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true, apiKeys: [API_KEY, SQUATTER_KEY] })

  // The squatter lists the provider's endpoint with the provider's own payTo (public in the 402) and its own words.
  const squat = await register(app, validBody({ endpoint: server.url, description: 'Official! Send payments to 0x2222', x402Config: { paymentAddress: PROVIDER, network: 'base' } }), SQUATTER_KEY)
  t.equal(squat.statusCode, 201)
  const id = squat.json().id as string
  t.equal(squat.json().claimed, false, 'nobody proved control of the origin')
  t.equal((await register(app, validBody({ endpoint: server.url, x402Config: { paymentAddress: PROVIDER, network: 'base' } }))).statusCode, 409, 'the provider cannot register its own endpoint')
  const exported = (await app.inject('/api/export')).json()
  t.equal(exported.items[0].metadata.claimed, false, 'export metadata says the text is the registrant\'s')

  const issued = await app.inject({ method: 'POST', url: '/api/claims', headers: auth(API_KEY), payload: { origin: `${server.url}?x=1` } })
  t.equal(issued.statusCode, 200)
  const { token, origin, instructions, wellKnownUrl } = issued.json()
  t.equal(origin, server.origin, 'any URL of the origin names the origin')
  t.match(token, /^x402c_[A-Za-z0-9_-]{43}$/)
  t.match(instructions, `${server.origin}/.well-known/x402-catalog`)
  t.equal(wellKnownUrl, `${server.origin}/.well-known/x402-catalog`)
  const again = await app.inject({ method: 'POST', url: '/api/claims', headers: auth(API_KEY), payload: { origin: server.origin } })
  t.equal(again.json().token, token, 'asking again gives the same token')

  const early = await app.inject({ method: 'POST', url: '/api/claims/verify', headers: auth(API_KEY), payload: { origin: server.origin } })
  t.equal(early.statusCode, 422, 'not published yet')
  t.equal(early.json().code, 'CLAIM_NOT_PROVEN')
  t.equal(early.json().field, 'origin')
  t.match(early.json().message, /does not list the token/)
  // The squatter's own token proves nothing for the provider, nor the provider's for the squatter.
  const squatterToken = (await app.inject({ method: 'POST', url: '/api/claims', headers: auth(SQUATTER_KEY), payload: { origin: server.origin } })).json().token as string
  t.not(squatterToken, token, 'each key has its own token')

  claims.push(token)
  t.equal((await app.inject({ method: 'POST', url: '/api/claims/verify', headers: auth(SQUATTER_KEY), payload: { origin: server.origin } })).statusCode, 422, 'the squatter\'s token is not published')
  const verified = await app.inject({ method: 'POST', url: '/api/claims/verify', headers: auth(API_KEY), payload: { origin: server.origin } })
  t.equal(verified.statusCode, 200)
  t.same(verified.json().moved, [id], 'the squatted listing moves to the prover\'s key')

  const listing = (await app.inject(`/api/services/${id}`)).json()
  t.equal(listing.claimed, true)
  const patch = await app.inject({ method: 'PATCH', url: `/api/services/${id}`, headers: auth(API_KEY), payload: { description: 'The real forecast API' } })
  t.equal(patch.statusCode, 200, 'the proven owner rewrites the squatter\'s text')
  const lost = await app.inject({ method: 'PATCH', url: `/api/services/${id}`, headers: auth(SQUATTER_KEY), payload: { description: 'Official!' } })
  t.equal(lost.statusCode, 403)
  t.match(lost.json().message, new RegExp(`moved to another key .*the owner of ${server.origin.replace(/[.]/g, '\\.')} proved control`), 'the former registrant learns why')

  const elsewhere = await register(app, validBody({ endpoint: `${server.origin}/other`, x402Config: { paymentAddress: PROVIDER, network: 'base' } }), SQUATTER_KEY)
  t.equal(elsewhere.statusCode, 409, 'a claimed origin is listed by its owner\'s key only')
  t.equal(elsewhere.json().code, 'ORIGIN_CLAIMED')
  t.equal(elsewhere.json().field, 'endpoint')
  const own = await register(app, validBody({ endpoint: `${server.origin}/other`, x402Config: { paymentAddress: PROVIDER, network: 'base' } }))
  t.equal(own.statusCode, 201)
  t.equal(own.json().claimed, true, 'the owner\'s new listings are claimed')
  const after = (await app.inject('/api/export')).json()
  t.same(after.items.map((item: { metadata: { claimed: boolean } }) => item.metadata.claimed), [true, true])
})

test('a token in the 402 answer\'s extensions proves control too', async (t) => {
  let token = ''
  const paymentRequired = (): string => encodePaymentRequiredHeader({
    x402Version: 2,
    resource: { url: 'http://127.0.0.1/paid', description: '', mimeType: '' },
    accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: BASE_USDC, payTo: PROVIDER, maxTimeoutSeconds: 60, extra: {} }],
    extensions: { 'x402-catalog': { claims: [token] } }
  } as never)
  const server = await startHttpServer((_req, res) => { res.writeHead(402, { 'payment-required': paymentRequired() }).end('{}') })
  t.teardown(server.close)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true, apiKeys: [API_KEY, SQUATTER_KEY] })
  const squat = await register(app, validBody({ endpoint: `${server.origin}/paid`, x402Config: { paymentAddress: PROVIDER, network: 'base' } }), SQUATTER_KEY)
  t.equal(squat.statusCode, 201)
  token = (await app.inject({ method: 'POST', url: '/api/claims', headers: auth(API_KEY), payload: { origin: server.origin } })).json().token as string
  const noEndpoint = await app.inject({ method: 'POST', url: '/api/claims/verify', headers: auth(API_KEY), payload: { origin: server.origin } })
  t.equal(noEndpoint.statusCode, 422, 'the well-known document is absent (the server answers 402 there)')
  const offOrigin = await app.inject({ method: 'POST', url: '/api/claims/verify', headers: auth(API_KEY), payload: { origin: server.origin, endpoint: 'https://elsewhere.example/paid' } })
  t.equal(offOrigin.statusCode, 400)
  t.equal(offOrigin.json().field, 'endpoint')
  const verified = await app.inject({ method: 'POST', url: '/api/claims/verify', headers: auth(API_KEY), payload: { origin: server.origin, endpoint: `${server.origin}/paid` } })
  t.equal(verified.statusCode, 200)
  t.match(verified.json().proof, /extensions\["x402-catalog"\]/)
  t.same(verified.json().moved, [squat.json().id])
})

test('claims: bad input is a 4xx naming the field and changes nothing', async (t) => {
  const app = await build(t, { seed: 'none', apiKeys: [API_KEY] })
  const post = async (url: string, payload: unknown, key: string | null = API_KEY) =>
    await app.inject({ method: 'POST', url, headers: key === null ? {} : auth(key), payload: payload as Record<string, unknown> })
  t.equal((await post('/api/claims', { origin: 'https://a.example' }, null)).statusCode, 401)
  for (const [payload, field] of [[{ origin: 'ftp://a.example' }, 'origin'], [{ origin: 'not a url' }, 'origin'], [{}, 'origin'], [{ origin: 'https://u:p@a.example' }, 'origin']] as const) {
    const res = await post('/api/claims', payload)
    t.equal(res.statusCode, 400, JSON.stringify(payload))
    t.equal(res.json().field, field, JSON.stringify(payload))
  }
  const unknown = await post('/api/claims/verify', { origin: 'https://a.example' })
  t.equal(unknown.statusCode, 400, 'no token issued for that origin')
  t.equal(unknown.json().field, 'origin')
  t.match(unknown.json().message, /POST \/api\/claims first/)
})

test('a proof landing while a squatter\'s registration probes the endpoint: the registration is refused, nothing is left to the squatter', async (t) => {
  let token = ''
  let probed: () => void = () => {}
  const arrived = new Promise<void>((resolve) => { probed = resolve })
  let release: () => void = () => {}
  const released = new Promise<void>((resolve) => { release = resolve })
  const answer402 = encodePaymentRequiredHeader({
    x402Version: 2,
    resource: { url: 'http://127.0.0.1/paid', description: '', mimeType: '' },
    accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: BASE_USDC, payTo: PROVIDER, maxTimeoutSeconds: 60, extra: {} }]
  } as never)
  const server = await startHttpServer((req, res) => {
    if (req.url === '/.well-known/x402-catalog') { res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ claims: [token] })); return }
    // The registration's probe waits here until the proof is done: the race, forced.
    probed()
    void released.then(() => { res.writeHead(402, { 'payment-required': answer402 }).end('{}') })
  })
  t.teardown(server.close)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true, apiKeys: [API_KEY, SQUATTER_KEY] })
  token = (await app.inject({ method: 'POST', url: '/api/claims', headers: auth(API_KEY), payload: { origin: server.origin } })).json().token as string

  const registration = register(app, validBody({ endpoint: `${server.origin}/paid`, x402Config: { paymentAddress: PROVIDER, network: 'base' } }), SQUATTER_KEY)
  await arrived
  const verified = await app.inject({ method: 'POST', url: '/api/claims/verify', headers: auth(API_KEY), payload: { origin: server.origin } })
  t.equal(verified.statusCode, 200, 'the proof lands after the registration checked the origin')
  t.same(verified.json().moved, [], 'nothing listed yet')
  release()
  const squat = await registration
  t.equal(squat.statusCode, 409, 'the registration, checked again as it is stored, is refused')
  t.equal(squat.json().code, 'ORIGIN_CLAIMED')
  t.same((await app.inject('/api/export')).json().items, [], 'no listing of the origin the squatter holds')
})

test('a proof counts only when the origin itself serves it: a redirect to another origin proves nothing', async (t) => {
  let token = ''
  const tokenDocument = (): string => JSON.stringify({ claims: [token] })
  const answer402 = (extensions: Record<string, unknown>): string => encodePaymentRequiredHeader({
    x402Version: 2,
    resource: { url: 'http://127.0.0.1/paid', description: '', mimeType: '' },
    accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: BASE_USDC, payTo: PROVIDER, maxTimeoutSeconds: 60, extra: {} }],
    extensions
  } as never)
  // The attacker's server: it serves the attacker's token both as a document and in a 402's extensions.
  const attacker = await startHttpServer((req, res) => {
    if (req.url === '/token') { res.writeHead(200, { 'content-type': 'application/json' }).end(tokenDocument()); return }
    res.writeHead(402, { 'payment-required': answer402({ 'x402-catalog': { claims: [token] } }) }).end('{}')
  })
  t.teardown(attacker.close)
  // The victim's origin: an open redirect, and a same-origin redirect to its real document.
  let wellKnownTo = ''
  const victim = await startHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname === '/.well-known/x402-catalog' && wellKnownTo !== '') { res.writeHead(302, { location: wellKnownTo }).end(); return }
    if (url.pathname === '/redir') { res.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end(); return }
    if (url.pathname === '/own-token') { res.writeHead(200, { 'content-type': 'application/json' }).end(tokenDocument()); return }
    if (url.pathname === '/listed') { res.writeHead(402, { 'payment-required': answer402({}) }).end('{}'); return }
    res.writeHead(404).end()
  })
  t.teardown(victim.close)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true, apiKeys: [API_KEY, SQUATTER_KEY] })
  const held = await register(app, validBody({ endpoint: `${victim.origin}/listed`, x402Config: { paymentAddress: PROVIDER, network: 'base' } }))
  t.equal(held.statusCode, 201, held.body)
  const id = held.json().id as string
  token = (await app.inject({ method: 'POST', url: '/api/claims', headers: auth(SQUATTER_KEY), payload: { origin: victim.origin } })).json().token as string

  const verify = async (payload: Record<string, unknown>) => await app.inject({ method: 'POST', url: '/api/claims/verify', headers: auth(SQUATTER_KEY), payload })
  wellKnownTo = `${attacker.origin}/token`
  const viaDocument = await verify({ origin: victim.origin })
  t.equal(viaDocument.statusCode, 422, 'the well-known document redirected to another origin')
  t.equal(viaDocument.json().code, 'CLAIM_NOT_PROVEN')
  t.match(viaDocument.json().message, `redirected to ${attacker.origin}`, 'the reason says where the read was sent')

  const viaEndpoint = await verify({ origin: victim.origin, endpoint: `${victim.origin}/redir?to=${encodeURIComponent(`${attacker.origin}/paid`)}` })
  t.equal(viaEndpoint.statusCode, 422, 'the endpoint redirected to another origin\'s 402')
  t.match(viaEndpoint.json().message, `redirected to ${attacker.origin}`)
  const otherScheme = `https://127.0.0.1:${victim.port}`
  const viaScheme = await verify({ origin: victim.origin, endpoint: `${victim.origin}/redir?to=${encodeURIComponent(`${otherScheme}/paid`)}` })
  t.match(viaScheme.json().message, `redirected to ${otherScheme}`, 'another scheme is another origin')

  const listing = (await app.inject(`/api/services/${id}`)).json()
  t.equal(listing.claimed, false, 'nothing moved')
  const patch = await app.inject({ method: 'PATCH', url: `/api/services/${id}`, headers: auth(API_KEY), payload: { description: 'still mine' } })
  t.equal(patch.statusCode, 200, 'the holder still writes its listing')

  // A redirect within the origin is followed, and the answer names the URL that served the token.
  wellKnownTo = '/own-token'
  const sameOrigin = await verify({ origin: victim.origin })
  t.equal(sameOrigin.statusCode, 200, sameOrigin.body)
  t.equal(sameOrigin.json().proof, `${victim.origin}/own-token`, 'proof: the URL that actually served the token')
  t.same(sameOrigin.json().moved, [id])
})

test('an origin has one canonical form: an IPv4-mapped host is its IPv4 address for claims and endpoints alike', async (t) => {
  const claims: string[] = []
  const server = await startX402Server({ payTo: PROVIDER, claims })
  t.teardown(server.close)
  const app = await build(t, { seed: 'none', probeAllowPrivate: true, apiKeys: [API_KEY] })
  const mapped = `http://[::ffff:127.0.0.1]:${server.port}`
  const issued = await app.inject({ method: 'POST', url: '/api/claims', headers: auth(API_KEY), payload: { origin: mapped } })
  t.equal(issued.statusCode, 200)
  t.equal(issued.json().origin, server.origin, 'stored as the IPv4 origin its endpoints have')
  claims.push(issued.json().token as string)
  const verified = await app.inject({ method: 'POST', url: '/api/claims/verify', headers: auth(API_KEY), payload: { origin: mapped, endpoint: `http://[::ffff:7f00:1]:${server.port}/paid` } })
  t.equal(verified.statusCode, 200, verified.body)
  t.equal(verified.json().origin, server.origin)
})
