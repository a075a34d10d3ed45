/** Starts the built server (dist/) as a real process for black-box tests. */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../src/paths.js'

export const SERVER_ENTRY = join(PROJECT_ROOT, 'dist', 'src', 'server.js')

export interface RunningServer {
  child: ChildProcess
  url: string
  output: () => string
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>
}

export async function startServer (env: Record<string, string>): Promise<RunningServer> {
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    // Rate limits off unless a test sets CATALOG_RATE_LIMIT itself.
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', CATALOG_RATE_LIMIT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)))
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString()
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (match !== null) resolve(match[1] as string)
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    void exited.then((code) => reject(new Error(`server exited (${code}) before listening:\n${output}`)))
  })
  return { child, url, output: () => output, exited }
}
