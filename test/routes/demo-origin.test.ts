/**
 * The demo origin (scripts/x402-demo-server.ts, npm run demo:x402) on 127.0.0.1: its paid routes
 * answer 402, /.well-known/x402 and /openapi.json list exactly those routes, and the catalog's
 * origin import (POST /api/origins/import) registers every one of them, verified by its probe.
 * The command line takes its port from DEMO_X402_PORT (the built script, as npm runs it).
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'tap'
import { decodePaymentRequiredHeader } from '@x402/core/http'
import { PROJECT_ROOT } from '../../src/paths.js'
import { startDemoServer, type DemoRoute } from '../../scripts/x402-demo-server.js'
import { API_KEY, build } from '../helper.js'

const PAY_TO = '0x1111111111111111111111111111111111111111'
const ROUTES: DemoRoute[] = [
  { method: 'GET', path: '/paid', price: '0.001', description: '市区町村ごとの1時間ごとの天気予報', serviceName: 'Tenki', tags: ['weather', 'forecast'] },
  { method: 'POST', path: '/translate', price: '0.002', description: 'Translate text between 100 languages' },
  { method: 'GET', path: '/v1/quotes', price: '0.0005', description: 'Stock prices and FX rates, delayed 15 minutes' }
]

interface OpenApiOperation { 'x-payment-info': { protocols: string[], price: { mode: string, currency: string, amount: string } }, responses: Record<string, unknown> }

test('the demo origin lists exactly what it serves, and an origin import registers every route, verified', async (t) => {
  const demo = await startDemoServer({ payTo: PAY_TO, routes: ROUTES })
  t.teardown(demo.close)
  t.match(demo.origin, /^http:\/\/127\.0\.0\.1:\d+$/)

  for (const route of ROUTES) {
    const res = await fetch(demo.origin + route.path, { method: route.method })
    t.equal(res.status, 402, `${route.method} ${route.path} asks for payment`)
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required') as string)
    t.match(required.accepts[0], { scheme: 'exact', network: 'eip155:8453', payTo: PAY_TO, amount: String(Math.round(Number(route.price) * 1e6)) })
  }
  t.equal((await fetch(`${demo.origin}/unlisted`)).status, 404, 'nothing else is served')

  const wellKnown = await (await fetch(`${demo.origin}/.well-known/x402`)).json() as { version: number, resources: string[] }
  t.equal(wellKnown.version, 1)
  t.same(wellKnown.resources, ROUTES.map((route) => `${route.method} ${route.path}`), '/.well-known/x402: every route, nothing else')

  const openapi = await (await fetch(`${demo.origin}/openapi.json`)).json() as { openapi: string, info: { title: string, version: string }, servers: Array<{ url: string }>, paths: Record<string, Record<string, OpenApiOperation>> }
  t.match(openapi, { openapi: /^3\./, info: { title: String, version: String }, servers: [{ url: demo.origin }] })
  const operations = Object.entries(openapi.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation })))
  t.same(operations.map((o) => o.key).sort(), wellKnown.resources.slice().sort(), '/openapi.json: the same operations')
  for (const { key, operation } of operations) {
    const route = ROUTES.find((r) => `${r.method} ${r.path}` === key) as DemoRoute
    t.same(operation['x-payment-info'], { protocols: ['x402'], price: { mode: 'fixed', currency: 'USD', amount: route.price } }, `${key}: its price`)
    t.ok('402' in operation.responses, `${key}: documents its 402 answer`)
  }

  const app = await build(t, { seed: 'none', probeAllowPrivate: true })
  const res = await app.inject({ method: 'POST', url: '/api/origins/import', headers: { authorization: `Bearer ${API_KEY}` }, payload: { origin: demo.origin } })
  t.equal(res.statusCode, 200, res.body)
  const answer = res.json() as { document: string, rows: Array<{ resource: string, result: string, method: string, endpoint: string, serviceId: string, status: string, reason: string }>, inactive: unknown[] }
  t.equal(answer.document, `${demo.origin}/openapi.json`, 'its OpenAPI document, read first (it serves /.well-known/x402 too)')
  t.same(answer.rows.map((row) => [row.resource, row.result, row.method, row.endpoint, row.status]),
    ROUTES.map((route) => [`${route.method} ${route.path}`, 'registered', route.method, demo.origin + route.path, 'verified']), 'one row per route, each registered and verified')
  t.same(answer.inactive, [])
  for (const [index, row] of answer.rows.entries()) {
    const route = ROUTES[index] as DemoRoute
    const listing = (await app.inject(`/api/services/${row.serviceId}`)).json()
    t.match(listing, { method: route.method, description: route.description, pricing: { currency: 'USDC', pricePerRequest: route.price }, x402Config: { paymentAddress: PAY_TO, network: 'eip155:8453' }, status: 'verified' }, `${row.resource}: filled from its 402 answer`)
    const status = (await app.inject(`/api/services/${row.serviceId}/status`)).json()
    t.match(status, { status: 'verified', uptimeScore: 100, lastChecked: String, lastProbe: { reason: /matches/ } }, `${row.resource}: its import was its first probe`)
  }
  t.match((await app.inject(`/api/services/${answer.rows[0]?.serviceId ?? ''}`)).json(), { name: 'Tenki', tags: ['weather', 'forecast'] }, 'Bazaar serviceName and tags')
})

const SCRIPT = join(PROJECT_ROOT, 'dist', 'scripts', 'x402-demo-server.js')

test('npm run demo:x402 takes its port from DEMO_X402_PORT and says where it lists its routes', { skip: existsSync(SCRIPT) ? false : `${SCRIPT} is missing: npm run build first` }, async (t) => {
  const script = SCRIPT
  const run = (args: string[], port: string): { output: Promise<string>, stop: () => void, exited: Promise<number | null> } => {
    const child = spawn(process.execPath, [script, ...args], { env: { PATH: process.env.PATH ?? '', DEMO_X402_PORT: port }, stdio: ['ignore', 'pipe', 'pipe'] })
    let text = ''
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    const output = new Promise<string>((resolve) => {
      const onData = (chunk: Buffer): void => {
        text += chunk.toString()
        if (/lists them at/.test(text)) resolve(text)
      }
      child.stdout.on('data', onData)
      child.stderr.on('data', onData)
      void exited.then(() => resolve(text))
    })
    return { output, stop: () => child.kill('SIGTERM'), exited }
  }
  const first = run(['--pay-to', PAY_TO, '--route', 'POST /translate 0.002 Translate text'], '0')
  t.teardown(first.stop)
  const said = await first.output
  const origin = /origin (http:\/\/127\.0\.0\.1:(\d+)) lists them at/.exec(said)
  t.ok(origin !== null, said)
  t.match(said, /GET http:\/\/127\.0\.0\.1:\d+\/paid asks 0\.001 USDC on eip155:8453/)
  t.match(said, /POST http:\/\/127\.0\.0\.1:\d+\/translate asks 0\.002 USDC/)
  const port = origin?.[2] as string
  t.same((await (await fetch(`${origin?.[1] as string}/.well-known/x402`)).json() as { resources: string[] }).resources, ['GET /paid', 'POST /translate'])

  const second = run(['--pay-to', PAY_TO], port)
  t.equal(await second.exited, 1, 'a taken port stops the second one')
  t.match(await second.output, new RegExp(`port ${port} is already in use`))
  const bad = run(['--pay-to', PAY_TO], 'http')
  t.equal(await bad.exited, 2)
  t.match(await bad.output, /port http is not a port number \(--port or DEMO_X402_PORT\)/)
})
