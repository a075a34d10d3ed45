/**
 * The documentation as reference: README.md and docs/ stay within their sizes, and every path
 * they name, every path a code comment names and every relative Markdown link leads to
 * something that exists in the working tree (a link's #anchor to a heading of its file).
 * A path is a word starting with one of the project's top-level folders (src/, test/, …) or
 * one of its root files; words holding a wildcard or placeholder (*, {, <, …) are patterns,
 * not paths. Code is read through TypeScript's parser so that only comments are scanned:
 * strings in tests are data, not references.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { test } from 'tap'
import ts from 'typescript'
import { PROJECT_ROOT } from '../src/paths.js'

const README_MAX_LINES = 400
const BENCHMARKS_MAX_LINES = 400
const DOC_MAX_LINES = 600

const CODE_ROOTS = ['src', 'indexer', 'test', 'bench', 'scripts']
const FOLDERS = ['src', 'indexer', 'test', 'bench', 'scripts', 'docs', 'public', 'fixtures', '.ci', '.github']
const ROOT_FILES = ['README.md', 'package.json', 'Dockerfile', 'docker-compose.yml']

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * A path reference: one of the folders followed by a slash, or a root file, not glued to a
 * longer path (`dist/src/server.js`, `../src/paths.js`) or word. Characters of placeholders
 * are matched too, so that the whole word can be recognised as a pattern and skipped.
 */
const PATH_REFERENCE = new RegExp(
  `(?<![\\w./\\\\@-])(?:(?:${FOLDERS.map(escape).join('|')})/[\\w./*{}<>…-]*|(?:${ROOT_FILES.map(escape).join('|')})(?![\\w-]))`,
  'g'
)

interface Reference { file: string, line: number, text: string }

/** The path a reference names, without trailing punctuation (or Markdown emphasis); undefined for a pattern. */
function pathOf (word: string): string | undefined {
  const path = word.replace(/[.,;:*]+$/, '')
  return /[*{}<>…]/.test(path) ? undefined : path
}

const lineAt = (text: string, offset: number): number => text.slice(0, offset).split('\n').length

/** Every path reference in a stretch of text, with its line in the whole file. */
function referencesIn (file: string, text: string, start: number, whole: string): Reference[] {
  return [...text.matchAll(PATH_REFERENCE)].flatMap((match) => {
    const path = pathOf(match[0])
    return path === undefined ? [] : [{ file, line: lineAt(whole, start + match.index), text: path }]
  })
}

/** A file, or a folder holding at least one file (an emptied folder left behind is not a path to name). */
function exists (path: string): boolean {
  const full = join(PROJECT_ROOT, path)
  if (!existsSync(full)) return false
  if (!statSync(full).isDirectory()) return true
  return readdirSync(full, { withFileTypes: true }).some((entry) => !entry.isDirectory() || exists(join(path, entry.name)))
}

function filesUnder (dir: string, keep: (name: string) => boolean): string[] {
  if (!existsSync(join(PROJECT_ROOT, dir))) return []
  return readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return []
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) return filesUnder(path, keep)
    return keep(entry.name) ? [path] : []
  })
}

const markdownFiles = (): string[] => ['README.md', ...filesUnder('docs', (name) => name.endsWith('.md'))]
const codeFiles = (): string[] => CODE_ROOTS.flatMap((dir) => filesUnder(dir, (name) => /\.(ts|mjs)$/.test(name)))

/**
 * The comments of a source file, each with its offset. Every comment is trivia before some
 * token (the end of the file included), so the leading and trailing comment ranges at every
 * token's full start cover them all; JSDoc nodes are comments themselves and not walked.
 */
function commentsOf (path: string, text: string): Array<{ start: number, text: string }> {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('.mjs') ? ts.ScriptKind.JS : ts.ScriptKind.TS)
  const found = new Map<number, string>()
  const collect = (position: number): void => {
    const ranges = [...ts.getLeadingCommentRanges(text, position) ?? [], ...ts.getTrailingCommentRanges(text, position) ?? []]
    for (const range of ranges) found.set(range.pos, text.slice(range.pos, range.end))
  }
  const visit = (node: ts.Node): void => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return
    const children = node.getChildren(source)
    if (children.length === 0) collect(node.pos)
    else children.forEach(visit)
  }
  visit(source)
  return [...found].sort(([a], [b]) => a - b).map(([start, comment]) => ({ start, text: comment }))
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slugOf (heading: string): string {
  return heading
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** The anchors of a Markdown file's headings (outside code blocks), numbered as GitHub numbers repeats. */
function anchorsOf (path: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fenced = false
  for (const line of readFileSync(join(PROJECT_ROOT, path), 'utf8').split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (heading?.[1] === undefined) continue
    const slug = slugOf(heading[1])
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

/** Each relative link of a Markdown file (outside code blocks) that leads nowhere. */
function deadLinksOf (path: string): Reference[] {
  const dead: Reference[] = []
  let fenced = false
  readFileSync(join(PROJECT_ROOT, path), 'utf8').split('\n').forEach((line, index) => {
    if (/^\s*```/.test(line)) fenced = !fenced
    if (fenced) return
    for (const match of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] as string
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
      const [file = '', anchor] = target.split('#')
      const linked = file === '' ? path : relative(PROJECT_ROOT, normalize(join(PROJECT_ROOT, dirname(path), file)))
      const missing = !exists(linked)
        ? 'no such file'
        : anchor !== undefined && linked.endsWith('.md') && !anchorsOf(linked).has(anchor)
          ? `no heading #${anchor} in ${linked}`
          : undefined
      if (missing !== undefined) dead.push({ file: path, line: index + 1, text: `${target} (${missing})` })
    }
  })
  return dead
}

const report = (references: Reference[]): string => references.map(({ file, line, text }) => `${file}:${line}: ${text}`).join('\n')
const lineCount = (path: string): number => readFileSync(join(PROJECT_ROOT, path), 'utf8').replace(/\n$/, '').split('\n').length

test('README.md and every doc stay within their length', async (t) => {
  t.ok(lineCount('README.md') <= README_MAX_LINES, `README.md: ${lineCount('README.md')} lines, at most ${README_MAX_LINES}`)
  for (const path of markdownFiles().filter((file) => file.startsWith('docs/'))) {
    const max = path === 'docs/benchmarks.md' ? BENCHMARKS_MAX_LINES : DOC_MAX_LINES
    t.ok(lineCount(path) <= max, `${path}: ${lineCount(path)} lines, at most ${max}`)
  }
})

test('every path README.md and the docs name exists', async (t) => {
  const references = markdownFiles().flatMap((path) => {
    const text = readFileSync(join(PROJECT_ROOT, path), 'utf8')
    return referencesIn(path, text, 0, text)
  })
  t.ok(references.length > 50, `the docs name paths (${references.length} found): the scan works`)
  const dead = references.filter(({ text }) => !exists(text))
  t.same(dead, [], `paths that do not exist:\n${report(dead)}`)
})

test('the README\'s Layout names every folder of src/ and every file directly in it', async (t) => {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8')
  const layout = /^## Layout\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(readme)?.[1] ?? ''
  t.ok(layout.length > 0, 'README.md has a Layout section')
  const named = new Set(referencesIn('README.md', layout, 0, layout).map(({ text }) => text.replace(/\/$/, '')))
  const folders = (dir: string): string[] => readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && exists(`${dir}/${entry.name}`))
    .flatMap((entry) => [`${dir}/${entry.name}`, ...folders(`${dir}/${entry.name}`)])
  const wanted = [
    ...folders('src'),
    ...readdirSync(join(PROJECT_ROOT, 'src')).filter((name) => name.endsWith('.ts')).map((name) => `src/${name}`),
    ...['indexer', 'public', 'fixtures', 'scripts', 'bench', 'test', 'docs']
  ]
  const missing = wanted.filter((path) => !named.has(path))
  t.same(missing, [], `README.md, Layout: not named:\n${missing.join('\n')}`)
})

test('every relative Markdown link leads to an existing file and heading', async (t) => {
  const dead = markdownFiles().flatMap(deadLinksOf)
  t.same(dead, [], `dead links:\n${report(dead)}`)
})

test('every path a code comment names exists', async (t) => {
  const references = codeFiles().flatMap((path) => {
    const text = readFileSync(join(PROJECT_ROOT, path), 'utf8')
    return commentsOf(path, text).flatMap((comment) => referencesIn(path, comment.text, comment.start, text))
  })
  t.ok(references.length > 20, `comments name paths (${references.length} found): the scan works`)
  const dead = references.filter(({ text }) => !exists(text))
  t.same(dead, [], `paths named in comments that do not exist:\n${report(dead)}`)
})

test('the scan reads comments only, and recognises paths and patterns', async (t) => {
  const code = [
    '// see src/a.ts:12.',
    "const data = 'src/not-a-comment.ts'",
    '/* block: bench/b.ts, test/**/x.ts */',
    // A template literal holding `//` and a path: text, not a comment.
    'const template = `$' + '{data} // not a comment src/c.ts`',
    '/** doc: indexer/d.ts#anchor */',
    'function f () { return 1 } // trailing: docs/e.md)',
    '// glued: dist/src/server.js, ../src/paths.js, src/store/<engine>/; in bold: **public/f.js**',
    '// end'
  ].join('\n')
  const found = commentsOf('sample.ts', code).flatMap((comment) => referencesIn('sample.ts', comment.text, comment.start, code))
  t.same(found.map(({ line, text }) => `${line} ${text}`), ['1 src/a.ts', '3 bench/b.ts', '5 indexer/d.ts', '6 docs/e.md', '7 public/f.js'])
  t.equal(slugOf('Rate limits (`CATALOG_RATE_LIMIT_*`) and CORS'), 'rate-limits-catalog_rate_limit_-and-cors')
  t.equal(slugOf('Search (`npm run bench:search`)'), 'search-npm-run-benchsearch')
})
