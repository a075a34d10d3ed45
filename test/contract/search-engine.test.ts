/**
 * Runs the SearchEngine contract against every engine: the embedded SQLite engine
 * always; Meilisearch when MEILI_URL and MEILI_MASTER_KEY are set (each subtest gets its own
 * index, dropped afterwards).
 */
import { randomBytes } from 'node:crypto'
import { test } from 'tap'
import { loadTokenizer } from '../../src/search/analysis/tokenizer.js'
import { MeilisearchEngine } from '../../src/search/meilisearch/meili-engine.js'
import { EmbeddedSearchEngine } from '../../src/search/embedded/engine.js'
import { tempDataDir } from '../support/basics.js'
import { searchEngineContract } from './search-engine.contract.js'

const tokenizer = await loadTokenizer()

test('EmbeddedSearchEngine', async (t) => {
  searchEngineContract(t, {
    tokenizer,
    open: async (t) => {
      const engine = new EmbeddedSearchEngine(tempDataDir(t))
      t.teardown(() => engine.close())
      return engine
    }
  })
})

test('MeilisearchEngine', async (t) => {
  const url = process.env.MEILI_URL
  const apiKey = process.env.MEILI_MASTER_KEY
  if (url === undefined || url === '' || apiKey === undefined || apiKey === '') {
    t.pass('MeilisearchEngine contract', { skip: 'NOT RUN: set MEILI_URL and MEILI_MASTER_KEY (e.g. http://127.0.0.1:7700) to run it' })
    return
  }
  searchEngineContract(t, {
    tokenizer,
    open: async (t) => {
      const engine = await MeilisearchEngine.open({ url, apiKey, indexUid: `contract_${randomBytes(6).toString('hex')}` })
      t.teardown(async () => { await engine.drop() })
      return engine
    }
  })
})
