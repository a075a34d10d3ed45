/**
 * Search relevance on the demo catalog: every case of relevance-cases.ts goes
 * through its endpoint, and the suite reports hit@3 (overall and per kind),
 * MRR and the misses. Only aggregates are asserted; per-case detail is
 * reported as comments.
 */
import { randomBytes } from 'node:crypto'
import { test, type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../src/config.js'
import { readSeedFile } from '../../src/domain/seed.js'
import { MeilisearchEngine } from '../../src/search/meilisearch/meili-engine.js'
import { build } from '../helper.js'
import { RELEVANCE_KINDS, relevanceCases as cases, type RelevanceCase } from './relevance-cases.js'

const LIMIT = 10
const TOP = 3
const MIN_HIT_AT_3 = 0.9

/** Endpoints compared as the store keeps them (absolute, normalized URLs). */
function canonical (url: string): string {
  try {
    return new URL(url).href
  } catch {
    return url
  }
}

const fixtureEndpoints = new Set(readSeedFile('demo').map((s) => canonical(s.endpoint)))

interface Ranked {
  /** Endpoints of the returned services, best first. */
  endpoints: string[]
  names: string[]
  /** Why the response is not the documented shape, if it is not. */
  problem?: string
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string')

function serviceProblem (service: unknown): string | undefined {
  if (!isRecord(service)) return 'service is not an object'
  for (const field of ['id', 'name', 'endpoint']) {
    if (typeof service[field] !== 'string') return `service.${field} is not a string`
  }
  return undefined
}

function resultProblem (result: unknown, withReason: boolean): string | undefined {
  if (!isRecord(result)) return 'result is not an object'
  const service = serviceProblem(result.service)
  if (service !== undefined) return service
  if (typeof result.score !== 'number' || !Number.isFinite(result.score)) return 'score is not a finite number'
  if (!isStringArray(result.matchedTokens)) return 'matchedTokens is not an array of strings'
  if (withReason && typeof result.reason !== 'string') return 'reason is not a string'
  return undefined
}

/**
 * Ranking is measured over the whole demo catalog: its test-network listings (which lists
 * leave out by default, as test/routes/listing.test.ts checks) are included.
 */
function urlFor (c: RelevanceCase): string {
  switch (c.endpoint) {
    case 'catalog': return `/api/catalog/search?${new URLSearchParams({ q: c.q, limit: String(LIMIT), testnet: 'include' }).toString()}`
    case 'intent': return `/api/services/search/intent?${new URLSearchParams({ q: c.q, limit: String(LIMIT), testnet: 'include' }).toString()}`
    case 'list': return `/api/services?${new URLSearchParams({ query: c.q, limit: String(LIMIT), testnet: 'include' }).toString()}`
  }
}

/** The services of a response, in order, or the reason the response is not the documented one. */
function servicesOf (c: RelevanceCase, body: unknown): { services: unknown[], problem?: string } {
  if (c.endpoint === 'list') {
    if (!Array.isArray(body)) return { services: [], problem: 'body is not an array' }
    const problem = body.map(serviceProblem).find((p) => p !== undefined)
    return problem === undefined ? { services: body } : { services: body, problem }
  }
  if (!isRecord(body)) return { services: [], problem: 'body is not an object' }
  if (typeof body.query !== 'string') return { services: [], problem: 'query is not a string' }
  if (c.endpoint === 'catalog' && (typeof body.total !== 'number' || !Number.isInteger(body.total))) {
    return { services: [], problem: 'total is not an integer' }
  }
  if (c.endpoint === 'intent' && !Array.isArray(body.tokens)) return { services: [], problem: 'tokens is not an array' }
  if (!Array.isArray(body.results)) return { services: [], problem: 'results is not an array' }
  const results: unknown[] = body.results
  const problem = results.map((r) => resultProblem(r, c.endpoint === 'intent')).find((p) => p !== undefined)
  const services = results.map((r) => (isRecord(r) ? r.service : undefined))
  return problem === undefined ? { services } : { services, problem }
}

async function runCase (app: FastifyInstance, c: RelevanceCase): Promise<Ranked> {
  const res = await app.inject({ method: 'GET', url: urlFor(c) })
  if (res.statusCode !== 200) return { endpoints: [], names: [], problem: `status ${res.statusCode}: ${res.body.slice(0, 200)}` }
  let body: unknown
  try {
    body = res.json()
  } catch {
    return { endpoints: [], names: [], problem: 'body is not JSON' }
  }
  const { services, problem } = servicesOf(c, body)
  const records = services.filter(isRecord)
  return {
    endpoints: records.map((s) => canonical(String(s.endpoint))),
    names: records.map((s) => String(s.name)),
    ...(problem === undefined ? {} : { problem })
  }
}

/** 1-based rank of the first acceptable service, or 0 when none was returned. */
function rankOf (c: RelevanceCase, endpoints: string[]): number {
  const acceptable = new Set(c.expect.map(canonical))
  return endpoints.findIndex((e) => acceptable.has(e)) + 1
}

const pct = (n: number): string => `${(n * 100).toFixed(1)}%`
const describe = (c: RelevanceCase): string => `[${c.kind}] ${c.endpoint} ${JSON.stringify(c.q)}`

test('relevance cases are well-formed and name services of the demo catalog', async (t) => {
  t.ok(cases.length >= 40, `${cases.length} cases`)

  const unknown = cases.flatMap((c) => c.expect.filter((e) => !fixtureEndpoints.has(canonical(e))).map((e) => `${describe(c)}: ${e}`))
  t.same(unknown, [], 'every expected endpoint is a service of fixtures/services.json')

  t.same(cases.filter((c) => c.expect.length === 0 || c.q.trim() === '').map(describe), [], 'every case has a query and an expected answer')

  const keys = cases.map((c) => `${c.endpoint}\u0000${c.q}`)
  t.equal(new Set(keys).size, keys.length, 'no case is listed twice')

  const thinKinds = RELEVANCE_KINDS.filter((kind) => cases.filter((c) => c.kind === kind).length < 3)
  t.same(thinKinds, [], 'every kind has at least 3 cases')

  const endpoints = new Set(cases.map((c) => c.endpoint))
  t.same([...endpoints].sort(), ['catalog', 'intent', 'list'], 'every endpoint is exercised')
})

/** Runs every case against the app built with `overrides` (the engine under test) and reports. */
async function measure (t: Test, overrides: Partial<Config> = {}): Promise<void> {
  const app = await build(t, overrides)
  const searchReady = (app as unknown as { searchReady?: () => Promise<unknown> }).searchReady
  if (typeof searchReady === 'function') await searchReady.call(app)

  const outcomes: { c: RelevanceCase, rank: number, top: string[] }[] = []
  const badResponses: string[] = []
  for (const c of cases) {
    const ranked = await runCase(app, c)
    if (ranked.problem !== undefined) badResponses.push(`${describe(c)}: ${ranked.problem}`)
    outcomes.push({ c, rank: rankOf(c, ranked.endpoints.slice(0, LIMIT)), top: ranked.names.slice(0, TOP) })
  }

  const isHit = (rank: number): boolean => rank >= 1 && rank <= TOP
  const hits = outcomes.filter((o) => isHit(o.rank)).length
  const hitAt3 = hits / outcomes.length
  const mrr = outcomes.reduce((sum, o) => sum + (o.rank > 0 ? 1 / o.rank : 0), 0) / outcomes.length

  t.comment(`hit@${TOP}: ${hits}/${outcomes.length} = ${pct(hitAt3)}, MRR@${LIMIT}: ${mrr.toFixed(3)}`)
  for (const kind of RELEVANCE_KINDS) {
    const ofKind = outcomes.filter((o) => o.c.kind === kind)
    if (ofKind.length === 0) continue
    const kindHits = ofKind.filter((o) => isHit(o.rank)).length
    const kindMrr = ofKind.reduce((sum, o) => sum + (o.rank > 0 ? 1 / o.rank : 0), 0) / ofKind.length
    t.comment(`  ${kind.padEnd(18)} hit@${TOP} ${kindHits}/${ofKind.length} = ${pct(kindHits / ofKind.length)}, MRR ${kindMrr.toFixed(3)}`)
  }
  for (const endpoint of ['catalog', 'intent', 'list'] as const) {
    const ofEndpoint = outcomes.filter((o) => o.c.endpoint === endpoint)
    const endpointHits = ofEndpoint.filter((o) => isHit(o.rank)).length
    t.comment(`  endpoint ${endpoint.padEnd(9)} hit@${TOP} ${endpointHits}/${ofEndpoint.length}`)
  }
  for (const o of outcomes.filter((x) => !isHit(x.rank))) {
    const where = o.rank > 0 ? `first acceptable at rank ${o.rank}` : `no acceptable result in the top ${LIMIT}`
    t.comment(`miss ${describe(o.c)}: ${where}; top ${TOP}: ${o.top.length > 0 ? o.top.join(' | ') : '(none)'}`)
  }

  t.same(badResponses, [], 'every response is 200 with the documented shape')
  t.ok(hitAt3 >= MIN_HIT_AT_3, `hit@${TOP} ${pct(hitAt3)} is at least ${pct(MIN_HIT_AT_3)}`)
}

test('search relevance on the demo catalog: hit@3 and MRR', async (t) => {
  await measure(t)
})

// The same cases and thresholds against Meilisearch, in an index of its own, when MEILI_URL is set.
test('search relevance on Meilisearch', async (t) => {
  const url = process.env.MEILI_URL
  const apiKey = process.env.MEILI_MASTER_KEY
  if (url === undefined || url === '' || apiKey === undefined || apiKey === '') {
    t.pass('Meilisearch relevance', { skip: 'NOT RUN: set MEILI_URL and MEILI_MASTER_KEY to measure relevance on Meilisearch' })
    return
  }
  const indexUid = `relevance_${randomBytes(6).toString('hex')}`
  t.teardown(async () => { await (await MeilisearchEngine.open({ url, apiKey, indexUid })).drop() })
  await measure(t, { search: { kind: 'meilisearch', url, apiKey, searchKey: undefined, indexUid } })
})
