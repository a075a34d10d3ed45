/** npm run catalog -- sources add|list|sync|remove: the operator's sources, as real processes on a real store. */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { test } from 'tap'
import { PROJECT_ROOT } from '../../src/paths.js'
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js'
import { tempDataDir } from '../support/basics.js'
import { startHttpServer } from '../support/x402-servers.js'

const exec = promisify(execFile)
const CLI = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'catalog.js')

interface Run { code: number, stdout: string, stderr: string }

async function catalog (dataDir: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [CLI, ...args], { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env } })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const failed = err as { code: number, stdout: string, stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

const item = (path: string): Record<string, unknown> => ({
  resource: `https://api.example.com${path}`,
  type: 'http',
  x402Version: 2,
  accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: '0x3333333333333333333333333333333333333333', maxTimeoutSeconds: 60 }],
  lastUpdated: '2026-11-01T00:00:00.000Z',
  description: `Forecasts for ${path}`
})

test('add, list, sync and remove a Bazaar source; every output with --json is one JSON value', async (t) => {
  let items = [item('/a'), item('/b'), { ...item('/tools'), type: 'mcp' }]
  let failing = false
  const upstream = await startHttpServer((_req, res) => {
    if (failing) { res.writeHead(500).end(); return }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ x402Version: 2, items, pagination: { limit: 100, offset: 0, total: items.length } }))
  })
  t.teardown(upstream.close)
  const dataDir = tempDataDir(t)
  const allow = { CATALOG_PROBE_ALLOW_PRIVATE: '1' }

  const added = await catalog(dataDir, ['sources', 'add', `${upstream.origin}/`, '--kind', 'bazaar', '--json'])
  t.equal(added.code, 0, added.stderr)
  const source = JSON.parse(added.stdout)
  t.match(source, { id: /^src_/, kind: 'bazaar', url: upstream.origin, lastSync: null })
  const again = await catalog(dataDir, ['sources', 'add', upstream.origin, '--kind', 'bazaar'])
  t.equal(again.code, 1)
  t.match(again.stderr, `a bazaar source at ${upstream.origin} is already added`)

  const synced = await catalog(dataDir, ['sources', 'sync', source.id, '--json'], allow)
  t.equal(synced.code, 0, synced.stderr)
  t.match(JSON.parse(synced.stdout), { source: { id: source.id }, complete: true, seen: 3, added: 2, refusedCount: 1, refused: [{ item: 'https://api.example.com/tools', reason: /not an HTTP resource/ }] })

  failing = true
  const failed = await catalog(dataDir, ['sources', 'sync', source.id], allow)
  t.equal(failed.code, 1, 'a pass that could not read the list')
  t.match(failed.stdout, 'incomplete pass')
  t.match(failed.stderr, `${upstream.origin}: the page at offset 0 failed: answered 500`)

  const listed = await catalog(dataDir, ['sources', 'list', '--json'])
  t.match(JSON.parse(listed.stdout), [{ id: source.id, lastSync: { complete: false }, lastCompleteAt: String }])
  t.match((await catalog(dataDir, ['sources', 'list'])).stdout, `${source.id}  bazaar  ${upstream.origin}  incomplete pass`)

  failing = false
  items = [item('/a')]
  t.match((await catalog(dataDir, ['sources', 'sync', source.id], allow)).stdout, 'complete pass at')
  const removed = await catalog(dataDir, ['sources', 'remove', source.id])
  t.equal(removed.code, 0, removed.stderr)
  t.match(removed.stdout, `removed ${source.id} (${upstream.origin}): 1 listings lost it, 1 left without a source became inactive`)
  t.match((await catalog(dataDir, ['sources', 'list'])).stdout, 'no sources')

  const store = new SqliteCatalogStore(dataDir)
  t.teardown(async () => { await store.close() })
  const statuses = (await store.getServices((await store.listServices({}, { field: 'createdAt', order: 'asc' }, { limit: 10, offset: 0 })).items.map((s) => s.id))).map((s) => [s.endpoint, s.status])
  t.same(statuses.sort(), [['https://api.example.com/a', 'inactive'], ['https://api.example.com/b', 'inactive']], 'kept, inactive: one dropped by a pass, one by the removal')
})

test('bad sources command lines are usage errors naming what is wrong (exit 2); an unknown id exits 1', async (t) => {
  const dataDir = tempDataDir(t)
  const cases: Array<[string[], RegExp]> = [
    [['sources'], /sources needs a command/],
    [['sources', 'add', 'https://f.example.com'], /needs --kind \(bazaar, catalog, origin\)/],
    [['sources', 'add', 'https://f.example.com', '--kind', 'ftp'], /--kind must be one of bazaar, catalog, origin, got "ftp"/],
    [['sources', 'sync'], /needs the source's ID/]
  ]
  for (const [args, message] of cases) {
    const run = await catalog(dataDir, args)
    t.equal(run.code, 2, args.join(' '))
    t.match(run.stderr, message)
  }
  const badUrl = await catalog(dataDir, ['sources', 'add', 'https://f.example.com/?page=2', '--kind', 'bazaar'])
  t.equal(badUrl.code, 1)
  t.match(badUrl.stderr, /url: a source URL has no query or fragment/)
  const unknown = await catalog(dataDir, ['sources', 'remove', 'src_0000000000000000'])
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, 'no source src_0000000000000000')
})
