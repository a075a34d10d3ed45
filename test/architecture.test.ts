/**
 * The layering docs/adapters.md describes, checked on the import graph of src/ and indexer/:
 * no cycle, no adapter importing another adapter, the ports free of adapters and of the
 * analyzer, no route or MCP tool reaching into the analyzer (they go through the search
 * application entry; the search plugin is where the process loads kuromoji once), and the
 * indexer working through the ports.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { test } from 'tap'
import ts from 'typescript'
import { PROJECT_ROOT } from '../src/paths.js'

const ROOTS = ['src', 'indexer'].map((dir) => join(PROJECT_ROOT, dir))

function sourceFiles (dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** Each file of src/ and indexer/ (relative to the project, e.g. 'src/store/sqlite/store.ts') with the files it imports, type-only imports included. */
function importGraph (): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of ROOTS.flatMap(sourceFiles)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(PROJECT_ROOT, normalize(join(dirname(file), name))).replace(/\.js$/, '.ts'))
      .filter((name) => name.endsWith('.ts'))
    graph.set(relative(PROJECT_ROOT, file), targets)
  }
  return graph
}

/** Every cycle's files, found by a depth-first walk (each cycle reported once per entry point). */
function cycles (graph: Map<string, string[]>): string[][] {
  const found: string[][] = []
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (file: string): void => {
    state.set(file, 'open')
    stack.push(file)
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next])
      else if (!state.has(next) && graph.has(next)) visit(next)
    }
    stack.pop()
    state.set(file, 'done')
  }
  for (const file of graph.keys()) if (!state.has(file)) visit(file)
  return found
}

const ADAPTERS = ['src/store/sqlite/', 'src/store/mongodb/', 'src/search/embedded/', 'src/search/meilisearch/']
const adapterOf = (file: string): string | undefined => ADAPTERS.find((dir) => file.startsWith(dir))

function arrows (graph: Map<string, string[]>, from: (file: string) => boolean, to: (file: string) => boolean): string[] {
  return [...graph].flatMap(([file, targets]) => from(file) ? targets.filter(to).map((target) => `${file} -> ${target}`) : [])
}

test('the import graph of src/ has no cycle', async (t) => {
  t.same(cycles(importGraph()).map((cycle) => cycle.join(' -> ')), [])
})

test('no adapter imports another adapter', async (t) => {
  const graph = importGraph()
  const crossing = [...graph].flatMap(([file, targets]) => {
    const own = adapterOf(file)
    if (own === undefined) return []
    return targets.filter((target) => adapterOf(target) !== undefined && adapterOf(target) !== own).map((target) => `${file} -> ${target}`)
  })
  t.same(crossing, [])
})

test('the ports import no adapter and no analyzer internals', async (t) => {
  const graph = importGraph()
  const ports = new Set(['src/store/catalog-store.ts', 'src/search/search-engine.ts'])
  t.same(arrows(graph, (file) => ports.has(file), (target) => adapterOf(target) !== undefined || target.startsWith('src/search/analysis/')), [])
})

test('routes and MCP reach the analyzer only through the search application entry', async (t) => {
  const graph = importGraph()
  const serving = (file: string): boolean => file.startsWith('src/routes/') || file.startsWith('src/mcp/')
  t.same(arrows(graph, serving, (target) => target.startsWith('src/search/analysis/')), [])
})

test('the indexer reaches stores and engines through the ports; the API runs its loop, never its CLI', async (t) => {
  const graph = importGraph()
  t.same(arrows(graph, (file) => file.startsWith('indexer/'), (target) => adapterOf(target) !== undefined), [], 'adapters are chosen by src/adapters.ts')
  t.same(arrows(graph, (file) => file.startsWith('src/'), (target) => target.startsWith('indexer/') && target !== 'indexer/indexer.ts'), [])
  t.ok(graph.get('src/plugins/search.ts')?.includes('indexer/indexer.ts'), 'the API process runs the tail loop in-process')
})

test('the checks see the graph: the store adapter imports the port, the composition root imports adapters', async (t) => {
  const graph = importGraph()
  t.ok(graph.get('src/store/sqlite/services.ts')?.includes('src/store/catalog-store.ts'), 'an import the checks rely on is seen')
  t.ok((graph.get('src/adapters.ts') ?? []).some((target) => adapterOf(target) !== undefined), 'adapters.ts is where adapters are chosen')
  t.same(cycles(new Map([['a.ts', ['b.ts']], ['b.ts', ['a.ts']]])), [['a.ts', 'b.ts', 'a.ts']], 'a two-file cycle is found')
})
