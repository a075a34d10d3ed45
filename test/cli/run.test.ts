/** Every command line answers alike (src/cli/run.ts): help, usage errors and failures, run from dist/. */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { test, type Test } from 'tap'
import { PROJECT_ROOT } from '../../src/paths.js'
import { tempDataDir } from '../support/basics.js'

const run = promisify(execFile)
const DIST = join(PROJECT_ROOT, 'dist', 'src')
const CLIS: Array<[string, string, RegExp]> = [
  ['server', join(DIST, 'server.js'), /^usage: npm start/],
  ['keys', join(DIST, 'cli', 'keys.js'), /^usage: npm run keys -- /],
  ['catalog', join(DIST, 'cli', 'catalog.js'), /^usage: npm run catalog -- import FILE/],
  ['prober', join(DIST, 'cli', 'prober.js'), /^usage: npm run prober/],
  ['indexer', join(PROJECT_ROOT, 'dist', 'indexer', 'cli.js'), /^usage: npm run indexer -- watch \| reindex \| status/],
  ['watcher', join(DIST, 'cli', 'watcher.js'), /^usage: npm run watcher/]
]

interface Result { code: number, stdout: string, stderr: string }

async function cli (t: Test, entry: string, args: string[], env: Record<string, string> = {}): Promise<Result> {
  // A CLI that ignored its arguments would start serving: the timeout ends it, and the test fails.
  const options = { env: { PATH: process.env.PATH ?? '', DATA_DIR: join(tempDataDir(t), 'data'), PORT: '0', LOG_LEVEL: 'silent', ...env }, timeout: 30_000 }
  return await run(process.execPath, [entry, ...args], options).then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }), (err: Result) => err)
}

for (const [name, entry, usage] of CLIS) {
  test(`${name}: --help prints the usage on stdout and exits 0; an unknown command is a usage error: exit 2, the problem and the usage on stderr`, async (t) => {
    const help = await cli(t, entry, ['--help'])
    t.equal(help.code, 0, `exit 0 ${help.stderr}`)
    t.match(help.stdout, usage, 'the usage first')
    t.equal(help.stderr, '', 'nothing on stderr')
    const result = await cli(t, entry, ['bogus'])
    t.equal(result.code, 2)
    t.equal(result.stdout, '')
    const [problem, hint] = result.stderr.split('\n')
    t.equal(problem, name === 'server' ? 'x402-catalog: unknown argument "bogus" (npm start takes none)' : 'x402-catalog: unknown command "bogus"')
    t.match(hint, usage)
  })
}

// Options are parsed once for every CLI (src/cli/run.ts): one CLI shows it.
test('-h is --help; an unknown option is a usage error in plain words, not the argument parser\'s', async (t) => {
  const [, entry, usage] = CLIS[1] as [string, string, RegExp]
  const short = await cli(t, entry, ['-h'])
  t.equal(short.code, 0)
  t.match(short.stdout, usage)
  const result = await cli(t, entry, ['--bogus'])
  t.equal(result.code, 2)
  t.equal(result.stdout, '')
  const [problem, hint] = result.stderr.split('\n')
  t.equal(problem, 'x402-catalog: unknown option --bogus')
  t.match(hint, usage)
})

test('an option without its value says which, in plain words', async (t) => {
  const result = await cli(t, join(DIST, 'cli', 'keys.js'), ['create', '--name'])
  t.equal(result.code, 2)
  t.equal(result.stderr.split('\n')[0], 'x402-catalog: --name needs a value')
  const flag = await cli(t, join(DIST, 'cli', 'keys.js'), ['--help=yes'])
  t.equal(flag.stderr.split('\n')[0], 'x402-catalog: --help takes no value')
})

// The other CLIs' failures are covered where they fail: test/server.test.ts, test/unreachable-servers.test.ts.
test('catalog: a configuration problem is one line on stderr, exit 1', async (t) => {
  const result = await cli(t, join(DIST, 'cli', 'catalog.js'), ['import', 'x.json'], { CATALOG_STORE: 'postgres' })
  t.equal(result.code, 1)
  t.equal(result.stderr, 'x402-catalog: CATALOG_STORE must be sqlite or mongodb, got "postgres"\n')
})
