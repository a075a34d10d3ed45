/** A CATALOG_SEED file is checked whole: each problem is named by the file, the item and the field (src/domain/seed.ts). */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'tap'
import { DEMO_FIXTURES, loadSeed, SeedError } from '../../src/domain/seed.js'
import { tempDataDir } from '../support/basics.js'

const NOW = '2026-01-01T00:00:00.000Z'

test('a seed file the catalog cannot load is refused with one message naming the file, the item and the field', async (t) => {
  const dir = tempDataDir(t)
  const seedFile = (name: string, content: unknown): string => {
    const path = join(dir, name)
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
    return path
  }
  const refusal = (path: string): string => {
    try {
      loadSeed(path, NOW)
    } catch (err) {
      t.type(err, SeedError, 'a configuration error: the start prints its message on one line')
      return (err as Error).message
    }
    return 'loaded'
  }
  const missing = join(dir, 'missing.json')
  t.equal(refusal(missing), `CATALOG_SEED ${missing}: cannot read it: no such file`)
  t.equal(refusal(dir), `CATALOG_SEED ${dir}: cannot read it: a directory, not a file`)
  const notJson = seedFile('not-json.json', '[{"name": ')
  t.match(refusal(notJson), `CATALOG_SEED ${notJson}: is not JSON: `)
  t.equal(refusal(seedFile('object.json', { services: [] })), `CATALOG_SEED ${join(dir, 'object.json')}: must be a JSON array of services, got {"services":[]}`)

  const demo = JSON.parse(readFileSync(DEMO_FIXTURES, 'utf8')) as Array<Record<string, unknown>>
  const [first, second, third] = demo as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]
  const { name: _name, ...nameless } = second
  const noName = seedFile('no-name.json', [first, nameless])
  t.equal(refusal(noName), `CATALOG_SEED ${noName}: item 1 (name): is required`)
  const badPrice = seedFile('bad-price.json', [first, second, { ...third, pricing: { currency: 'USDC', pricePerRequest: '1.2345678' } }])
  t.match(refusal(badPrice), new RegExp(`^CATALOG_SEED ${badPrice}: item 2 \\(pricing\\.pricePerRequest\\): .*decimal`))
  const twice = seedFile('twice.json', [first, second, first])
  t.equal(refusal(twice), `CATALOG_SEED ${twice}: item 2 (endpoint): is item 0's endpoint too`)
  t.equal(refusal(seedFile('unknown.json', [{ ...first, rating: 5 }])), `CATALOG_SEED ${join(dir, 'unknown.json')}: item 0 (rating): is not a field of a service`)
  t.equal(loadSeed(seedFile('good.json', [first, second]), NOW).length, 2, 'a good file loads')
})

test('a seed file cannot set what only probes and payments measure', async (t) => {
  const [first] = JSON.parse(readFileSync(DEMO_FIXTURES, 'utf8')) as [Record<string, unknown>]
  const dir = tempDataDir(t)
  for (const key of ['status', 'uptimeScore', 'lastChecked', 'trustScore', 'usage']) {
    const path = join(dir, `${key}.json`)
    writeFileSync(path, JSON.stringify([{ ...first, [key]: null }]))
    t.throws(() => loadSeed(path, NOW), { message: new RegExp(`^CATALOG_SEED ${path}: item 0 \\(${key}\\): is not a field of a seed \\(remove it\\)`) }, `a seed file cannot set ${key}`)
  }
})
