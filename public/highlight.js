// Highlighting without HTML: the text is split into text nodes and <mark> elements, so
// nothing in a service's name or description is ever parsed as markup.

const KATAKANA = /[\u30a1-\u30f6]/g
const HIRAGANA = /[\u3041-\u3096]/g

const toHiragana = (s) => s.replace(KATAKANA, (c) => String.fromCharCode(c.charCodeAt(0) - 0x60))
const toKatakana = (s) => s.replace(HIRAGANA, (c) => String.fromCharCode(c.charCodeAt(0) + 0x60))

/** The strings to look for: every matched index term and query word, in both kana. */
export function needlesOf (matches) {
  const needles = new Set()
  for (const { word, term } of matches ?? []) {
    for (const s of [term, word]) {
      if (typeof s !== 'string') continue
      const folded = fold(s)
      // A single Latin letter or digit would light up half the text.
      if (folded.length < 2 && /^[\p{Script=Latin}\p{N}]*$/u.test(folded)) continue
      needles.add(folded)
      needles.add(toHiragana(folded))
      needles.add(toKatakana(folded))
    }
  }
  return [...needles].filter((n) => n !== '')
}

function fold (s) {
  return s.normalize('NFKC').toLowerCase()
}

/**
 * The text folded (NFKC, lower case) one character at a time, with where each folded
 * code unit came from, so matches found in the folded text map back to the original.
 */
function foldWithMap (text) {
  let folded = ''
  const origin = []
  let index = 0
  for (const char of text) {
    const f = fold(char)
    folded += f
    for (let k = 0; k < f.length; k++) origin.push(index)
    index += char.length
  }
  origin.push(index)
  return { folded, origin }
}

/** [start, end) ranges of `text` where a needle occurs, merged and in order. */
export function highlightRanges (text, needles) {
  const { folded, origin } = foldWithMap(text)
  const ranges = []
  for (const needle of needles) {
    for (let at = folded.indexOf(needle); at !== -1; at = folded.indexOf(needle, at + needle.length)) {
      ranges.push([origin[at], origin[at + needle.length]])
    }
  }
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1])
  const merged = []
  for (const range of ranges) {
    const last = merged[merged.length - 1]
    if (last !== undefined && range[0] <= last[1]) last[1] = Math.max(last[1], range[1])
    else merged.push([range[0], range[1]])
  }
  return merged
}

/** A fragment of text nodes with the matched parts wrapped in <mark>. */
export function highlighted (text, needles) {
  const fragment = document.createDocumentFragment()
  let from = 0
  for (const [start, end] of highlightRanges(text, needles)) {
    if (start > from) fragment.append(document.createTextNode(text.slice(from, start)))
    const mark = document.createElement('mark')
    mark.textContent = text.slice(start, end)
    fragment.append(mark)
    from = end
  }
  if (from < text.length) fragment.append(document.createTextNode(text.slice(from)))
  return fragment
}
