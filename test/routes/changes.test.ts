import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { API_KEY, build, register, validBody } from '../helper.js'

interface Change { cursor: string, op: 'upsert' | 'delete', id: string, service?: Record<string, unknown> }
interface ChangesPage { changes: Change[], next: string }

async function page (app: FastifyInstance, query: string): Promise<ChangesPage> {
  const response = await app.inject(`/api/changes${query}`)
  if (response.statusCode !== 200) throw new Error(`GET /api/changes${query}: ${response.statusCode} ${response.body}`)
  return response.json()
}

/** Follows the feed from `since` to its end the way a follower does, applying each change to `mirror`. */
async function follow (app: FastifyInstance, mirror: Map<string, Record<string, unknown>>, since: string, limit: number): Promise<{ next: string, pages: number, seen: Change[] }> {
  const seen: Change[] = []
  let pages = 0
  for (;;) {
    const answer = await page(app, `?since=${since}&limit=${limit}`)
    pages++
    for (const change of answer.changes) {
      seen.push(change)
      if (change.op === 'upsert' && change.service !== undefined) mirror.set(change.id, change.service)
      else mirror.delete(change.id)
    }
    if (answer.changes.length === 0) return { next: answer.next, pages, seen }
    since = answer.next
  }
}

/** Every listing, test-network ones included: the feed is not filtered, so a follower mirrors them too. */
async function catalog (app: FastifyInstance): Promise<Map<string, Record<string, unknown>>> {
  const all = new Map<string, Record<string, unknown>>()
  for (let offset = 0; ; offset += 100) {
    const items = (await app.inject(`/api/services?limit=100&offset=${offset}&testnet=include`)).json() as Array<Record<string, unknown>>
    for (const item of items) all.set(item.id as string, item)
    if (items.length < 100) return all
  }
}

test('from the beginning, the feed holds every listing once, in cursor order, as the list shows it', async (t) => {
  const app = await build(t)
  const mirror = new Map<string, Record<string, unknown>>()
  const { seen, pages, next } = await follow(app, mirror, '0', 7)
  const listed = await catalog(app)
  t.ok(listed.size > 20, 'the demo catalog')
  t.equal(seen.length, listed.size, 'one change per listing')
  t.ok(pages >= Math.ceil(listed.size / 7), 'paged by limit')
  t.same(mirror, listed, 'a follower holds what GET /api/services lists, field for field')
  const tests = [...mirror.values()].filter((service) => service.testnet === true)
  t.equal(tests.length, 3, 'test-network listings are in the feed, flagged, though the default list leaves them out')
  t.equal(Number((await app.inject('/api/services?limit=1')).headers['x-total-count']), listed.size - tests.length)
  const cursors = seen.map((change) => Number(change.cursor))
  t.same(cursors, [...cursors].sort((a, b) => a - b), 'increasing cursors')
  t.equal(new Set(cursors).size, cursors.length)
  t.equal(next, seen.at(-1)?.cursor, 'at the end, next stays on the last change')
  t.same(await page(app, `?since=${next}`), { changes: [], next }, 'polling at the end: nothing, same cursor')
  t.equal((await page(app, '')).changes.length, Math.min(100, listed.size), 'since defaults to the beginning and limit to 100')
})

test('a follower at its cursor sees registrations, updates and deletions, each listing once as it is now', async (t) => {
  const app = await build(t)
  const mirror = new Map<string, Record<string, unknown>>()
  const { next: start } = await follow(app, mirror, '0', 100)
  t.same(await page(app, `?since=${start}`), { changes: [], next: start }, 'caught up (and cached)')

  const added = (await register(app, validBody({ name: 'Feed Follower Weather' }))).json()
  const changed = (await register(app, validBody({ name: 'Described Twice' }))).json()
  const auth = { authorization: `Bearer ${API_KEY}` }
  t.equal((await app.inject({ method: 'PATCH', url: `/api/services/${changed.id as string}`, headers: auth, payload: { description: 'Daily tide tables for every harbour.' } })).statusCode, 200)
  const demoId = [...mirror.keys()][0] as string
  const owned = (await register(app, validBody({ name: 'Short Lived' }))).json()
  t.equal((await app.inject({ method: 'DELETE', url: `/api/services/${owned.id as string}`, headers: auth })).statusCode, 204)

  const { seen, next } = await follow(app, mirror, start, 2)
  t.same(seen.map((change) => [change.op, change.id]), [['upsert', added.id], ['upsert', changed.id], ['delete', owned.id]],
    'in commit order; the changed listing once, at its last change; the deleted one as a tombstone only')
  t.equal(seen[1]?.service?.description, 'Daily tide tables for every harbour.')
  t.notOk('service' in (seen[2] ?? {}), 'a deletion carries no service')
  t.ok(Number(next) > Number(start))
  t.ok(mirror.has(demoId), 'untouched listings stay')
  t.same(mirror, await catalog(app), 'the follower converged on the catalog')
  t.same(await page(app, `?since=${start}&limit=1`), { changes: [seen[0]], next: seen[0]?.cursor }, 'the same cursor reads the same page again')
})

test('a cursor that is not the feed\'s is a 400 naming since; a bad limit names limit; one ahead of the feed is a 410', async (t) => {
  const app = await build(t)
  for (const since of ['abc', '-1', '1.5', '01', '9999999999999999', '']) {
    const response = await app.inject(`/api/changes?since=${encodeURIComponent(since)}`)
    t.equal(response.statusCode, 400, `since=${since}`)
    t.match(response.json().message, /since/, `since=${since} named`)
  }
  for (const limit of ['0', '501', 'x', '2.5']) {
    const response = await app.inject(`/api/changes?limit=${limit}`)
    t.equal(response.statusCode, 400, `limit=${limit}`)
    t.match(response.json().message, /limit/)
  }
  t.equal((await app.inject('/api/changes?cursor=5')).statusCode, 400, 'an unknown parameter')

  const { next } = await page(app, '?limit=500')
  const ahead = String(Number(next) + 1000)
  const gone = await app.inject(`/api/changes?since=${ahead}`)
  t.equal(gone.statusCode, 410)
  t.match(gone.json(), { code: 'CURSOR_GONE', message: /^since: .*ahead of this catalog's newest change.*since=0/ })
})

test('the OpenAPI document describes the feed', async (t) => {
  const app = await build(t, {}, {})
  const spec = (await app.inject('/openapi.json')).json()
  const get = spec.paths['/api/changes']?.get
  t.ok(get, 'documented')
  t.same(get.parameters.map((p: { name: string }) => p.name).sort(), ['limit', 'since'])
  t.ok(get.responses['410'], 'the 410 is documented')
})
