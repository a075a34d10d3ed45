/** Logs on a terminal: a start line and one text line per request; JSON everywhere else. */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'tap'
import { formatLogLine, startLine, terminalDestination } from '../../src/lib/terminal-log.js'
import { tempDataDir } from '../support/basics.js'
import { SERVER_ENTRY } from '../server-process.js'

const at = new Date(2026, 0, 2, 16, 40, 2).getTime()
const line = (entry: Record<string, unknown>): string => JSON.stringify({ level: 30, time: at, pid: 1, hostname: 'h', ...entry })

test('a request is one line: method, URL, status and time; its "incoming" line is dropped', async (t) => {
  t.equal(formatLogLine(line({ reqId: 'req-1', req: { method: 'GET', url: '/api/services?limit=5' }, msg: 'incoming request' })), null)
  t.equal(formatLogLine(line({ reqId: 'req-1', res: { statusCode: 200, method: 'GET', url: '/api/services?limit=5' }, responseTime: 3.4, msg: 'request completed' })),
    '16:40:02 GET /api/services?limit=5 200 3 ms')
})

test('other lines: time, level when not info, message, fields, the error', async (t) => {
  t.equal(formatLogLine(line({ msg: 'closing', signal: 'SIGINT' })), '16:40:02 closing (signal=SIGINT)')
  t.equal(formatLogLine(line({ level: 40, msg: 'warming the list index failed', err: { message: 'disk full', stack: 'Error: disk full\n    at x' } })),
    '16:40:02 WARN warming the list index failed: disk full')
  t.equal(formatLogLine(line({ level: 50, msg: 'request failed', reqId: 'req-9', err: { message: 'boom', stack: 'Error: boom\n    at f (a.js:1:1)' } })),
    '16:40:02 ERROR request failed: boom\n    at f (a.js:1:1)', 'a failure keeps its stack')
  t.equal(formatLogLine('not json'), 'not json', 'what is not JSON passes unchanged')
})

test('the destination writes formatted lines, skipping dropped ones', async (t) => {
  const written: string[] = []
  const destination = terminalDestination({ write: (chunk: string) => { written.push(chunk); return true } })
  destination.write(`${line({ msg: 'incoming request', req: {} })}\n`)
  destination.write(`${line({ msg: 'hello' })}\n`)
  t.same(written, ['16:40:02 hello\n'])
})

test('the start line says where the catalog, its page and its docs are', async (t) => {
  t.equal(startLine('http://127.0.0.1:3000', 'SQLite in ./data', 56),
    'x402 catalog at http://127.0.0.1:3000 (SQLite in ./data, 56 services): search page http://127.0.0.1:3000/, API docs http://127.0.0.1:3000/docs')
})

// A real pseudo-terminal through util-linux's script(1), when the machine has it.
test('npm start on a terminal: the start line, then one line per request', { skip: existsSync('/usr/bin/script') ? false : 'no /usr/bin/script to give the server a terminal' }, async (t) => {
  const dataDir = join(tempDataDir(t), 'data')
  const child = spawn('/usr/bin/script', ['-qec', `${process.execPath} ${SERVER_ENTRY}`, '/dev/null'], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', DATA_DIR: dataDir, CATALOG_RATE_LIMIT: '0', CATALOG_PROBE_INTERVAL_S: '0' },
    stdio: ['pipe', 'pipe', 'pipe']
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  t.teardown(async () => { child.kill('SIGTERM'); await exited })
  const waitFor = async (pattern: RegExp): Promise<RegExpExecArray> => {
    const deadline = Date.now() + 60_000
    for (;;) {
      const match = pattern.exec(output)
      if (match !== null) return match
      if (Date.now() > deadline) throw new Error(`no ${String(pattern)} in:\n${output}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  const [, url] = await waitFor(/x402 catalog at (http:\/\/127\.0\.0\.1:\d+) \(SQLite in .*, 56 services\): search page .*\/, API docs .*\/docs/)
  t.notMatch(output, /Server listening|"level"/, 'no JSON on a terminal')
  await fetch(`${url as string}/api/services?limit=1`)
  await waitFor(/GET \/api\/services\?limit=1 200 \d+ ms/)
  t.equal(output.split('\n').filter((l) => l.includes('/api/services?limit=1')).length, 1, 'one line per request')
})
