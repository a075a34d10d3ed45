/**
 * The search page: GET / serves public/index.html, and /assets/ its ES modules and CSS
 * (@fastify/static). No framework and no build step: the page talks to the same JSON API
 * as everyone else. The page's Content-Security-Policy allows scripts, styles and requests
 * to this origin only, and no inline script, so text from the catalog can never run.
 */
import { join } from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyPluginAsync } from 'fastify'
import { NETWORKS } from '../domain/networks.js'
import { PROJECT_ROOT } from '../paths.js'

export const PUBLIC_DIR = join(PROJECT_ROOT, 'public')

export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join('; ')

const SECURITY_HEADERS = {
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer'
}

const pageRoutes: FastifyPluginAsync = async (app) => {
  await app.register(fastifyStatic, {
    root: PUBLIC_DIR,
    prefix: '/assets/',
    index: false,
    // Assets change with releases; a short cache with revalidation keeps a deploy visible.
    maxAge: '5m',
    setHeaders: (reply) => { void reply.headers(SECURITY_HEADERS) }
  })

  app.get('/', { schema: { hide: true } }, async (_request, reply) => {
    // Revalidated on every load, so a release's page never meets an older cached one.
    void reply.headers({ ...SECURITY_HEADERS, 'cache-control': 'no-cache' })
    return await reply.sendFile('index.html', { cacheControl: false })
  })

  // Display names of networks for the page's facets (CAIP-2 id → x402 name), from the same table the API validates with.
  const networkNames = Object.fromEntries(NETWORKS.map((n) => [n.id, n.v1Name ?? n.id]))
  app.get('/assets/networks.json', { schema: { hide: true } }, async (_request, reply) => {
    void reply.header('cache-control', 'public, max-age=300')
    return networkNames
  })
}

export default pageRoutes
