/**
 * The process-wide kuromoji tokenizer. Building it reads and inflates the
 * IPA dictionary (~0.7 s, ~300 MB), so it is built once and shared.
 */
import { createRequire } from 'node:module'
import path from 'node:path'
import kuromoji, { type IpadicFeatures, type Tokenizer } from 'kuromoji'

export type JapaneseTokenizer = Tokenizer<IpadicFeatures>
export type JapaneseToken = IpadicFeatures

let pending: Promise<JapaneseTokenizer> | undefined

// Resolved from the installed package so it works whatever the cwd is.
function dictionaryPath(): string {
  const packageJson = createRequire(import.meta.url).resolve('kuromoji/package.json')
  return path.join(path.dirname(packageJson), 'dict')
}

/** Every caller gets the same promise, hence the same tokenizer instance. */
export function loadTokenizer(): Promise<JapaneseTokenizer> {
  pending ??= new Promise<JapaneseTokenizer>((resolve, reject) => {
    kuromoji.builder({ dicPath: dictionaryPath() }).build((err, tokenizer) => {
      if (err) reject(err)
      else resolve(tokenizer)
    })
  }).catch((err: unknown) => {
    // A failed load is not cached, so a later call can try again.
    pending = undefined
    throw err
  })
  return pending
}
