/** One short sentence, in the query's language, saying which words matched where and how. */
import type { MatchedToken, SearchAttribute } from './search-engine.js'

const ATTRIBUTE_JA: Record<SearchAttribute, string> = { name: '名前', category: 'カテゴリ', description: '説明' }
const ATTRIBUTE_EN: Record<SearchAttribute, string> = { name: 'the name', category: 'the category', description: 'the description' }

function japanese (m: MatchedToken): string {
  const where = ATTRIBUTE_JA[m.attribute]
  switch (m.kind) {
    case 'exact': return `「${m.word}」が${where}に一致`
    case 'alternative': return `「${m.word}」が${where}の「${m.term}」（読み）に一致`
    case 'wordForm': return `「${m.word}」が${where}の「${m.term}」（語形変化）に一致`
    case 'romaji': return `「${m.word}」（ローマ字）が${where}の「${m.term}」に一致`
    case 'synonym': return `「${m.word}」の同義語「${m.term}」が${where}に一致`
    case 'prefix': return `「${m.word}」が${where}の「${m.term}」に前方一致`
    case 'fragment': return `「${m.word}」が${where}の「${m.term}」に部分一致`
    case 'typo': return `「${m.word}」が${where}の「${m.term}」に一致（${m.typos}文字違い）`
  }
}

function english (m: MatchedToken): string {
  const where = ATTRIBUTE_EN[m.attribute]
  switch (m.kind) {
    case 'exact': return `"${m.word}" is in ${where}`
    case 'alternative': return `"${m.word}" matches the reading "${m.term}" in ${where}`
    case 'wordForm': return `"${m.word}" matches "${m.term}", another form of the word, in ${where}`
    case 'romaji': return `"${m.word}" read as Japanese matches "${m.term}" in ${where}`
    case 'synonym': return `"${m.term}", a synonym of "${m.word}", is in ${where}`
    case 'prefix': return `"${m.word}" starts "${m.term}" in ${where}`
    case 'fragment': return `"${m.word}" matches part of "${m.term}" in ${where}`
    case 'typo': return `"${m.word}" matches "${m.term}" in ${where} (${m.typos} typo${m.typos === 1 ? '' : 's'})`
  }
}

export function explainMatch (matches: readonly MatchedToken[], language: 'ja' | 'en'): string {
  if (language === 'ja') return matches.length === 0 ? '一致した語はありません。' : `${matches.map(japanese).join('、')}。`
  if (matches.length === 0) return 'No words matched.'
  const sentence = matches.map(english).join('; ')
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`
}
