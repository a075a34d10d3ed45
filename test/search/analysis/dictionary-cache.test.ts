/** The prepared dictionary saved for the next process (src/search/analysis/dictionary-cache.ts): the same tokens from it, and never a wrong one from a bad file. */
import { existsSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'tap'
import { DictionaryCache } from '../../../src/search/analysis/dictionary-cache.js'
import { buildTokenizer, type JapaneseTokenizer } from '../../../src/search/analysis/tokenizer.js'
import { DEMO_FIXTURES } from '../../../src/domain/seed.js'
import { tempDataDir } from '../../support/basics.js'

const require = createRequire(import.meta.url)
const DICT = path.join(path.dirname(require.resolve('kuromoji/package.json')), 'dict')
const VERSION = (require('kuromoji/package.json') as { version: string }).version

const build = async (cache?: DictionaryCache): Promise<JapaneseTokenizer> => await new Promise((resolve, reject) => {
  buildTokenizer(DICT, (err, tokenizer) => { if (err !== null) reject(err); else resolve(tokenizer as JapaneseTokenizer) }, cache)
})

/** Waits for the cache file the build saves after it answers. */
async function saved (file: string): Promise<number> {
  for (let i = 0; i < 200 && !existsSync(file); i++) await sleep(50)
  return statSync(file).size
}

const corpus = (JSON.parse(readFileSync(DEMO_FIXTURES, 'utf8')) as Array<{ name: string, description: string }>)
  .flatMap((service) => [service.name, service.description])
  .concat(['すもももももももものうち', '東京都の天気予報を7日分取得できるAPIです', 'ｶﾀｶﾅとＡＢＣ、絵文字🙂も'])
const tokens = (tokenizer: JapaneseTokenizer): string => JSON.stringify(corpus.map((text) => tokenizer.tokenize(text)))

test('the first build saves the prepared dictionary; the next ones read it and tokenize every text alike', async (t) => {
  const dir = tempDataDir(t)
  const cache = new DictionaryCache(DICT, VERSION, path.join(dir, 'cache'))
  t.equal(cache.read(), undefined, 'nothing saved yet')
  const fresh = await build(cache)
  const size = await saved(cache.file)
  t.ok(size > 40_000_000, `the prepared files are saved (${size} bytes)`)
  t.ok(cache.read() !== undefined, 'and read back')
  const expected = tokens(fresh)
  t.equal(tokens(await build(cache)), expected, 'tokens from the saved dictionary equal those of a fresh build, in every field')

  // A damaged file (cut short, or garbage) is ignored and saved again.
  truncateSync(cache.file, size - 1000)
  t.equal(cache.read(), undefined, 'a file cut short is not used')
  const rebuilt = await build(cache)
  t.equal(tokens(rebuilt), expected)
  for (let i = 0; i < 200 && statSync(cache.file).size !== size; i++) await sleep(50)
  t.equal(statSync(cache.file).size, size, 'saved again whole')
  writeFileSync(cache.file, Buffer.alloc(4096, 7))
  t.equal(cache.read(), undefined, 'garbage is not used')

  // Another kuromoji version's file is not this one's.
  t.not(new DictionaryCache(DICT, `${VERSION}-other`, path.join(dir, 'cache')).file, cache.file)
})

test('a file from another dictionary is not used; a folder that cannot be written only means no cache', async (t) => {
  const dir = tempDataDir(t)
  const cache = new DictionaryCache(DICT, VERSION, dir)
  await build(cache)
  await saved(cache.file)
  // The same name made from other dictionary files (their sizes differ): refused.
  const other = new DictionaryCache(path.join(dir, 'no-such-dict'), VERSION, dir)
  t.equal(other.file, cache.file)
  t.equal(other.read(), undefined)

  const blocked = path.join(dir, 'a-file')
  writeFileSync(blocked, 'x')
  const unwritable = new DictionaryCache(DICT, VERSION, path.join(blocked, 'cache'))
  const tokenizer = await build(unwritable)
  t.ok(tokenizer.tokenize('天気').length > 0, 'the tokenizer is built all the same')
  await sleep(200)
  t.notOk(existsSync(unwritable.file))
})
