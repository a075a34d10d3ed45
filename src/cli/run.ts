/**
 * One shape for every command line of the catalog (npm start, keys, catalog, indexer, prober):
 * - `--help`, `-h` or a first argument `help` prints the help on stdout; exit 0.
 * - A command line the CLI does not take (unknown command or option, missing or malformed
 *   argument: a UsageError) prints `x402-catalog: <problem>` and the usage on stderr; exit 2.
 * - A failure the operator can fix (any CatalogError: configuration, an unreachable server, a
 *   port in use, an unreadable file) prints `x402-catalog: <message>` on stderr; exit 1.
 * - Anything else is a bug and keeps its stack; exit 1.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { CatalogError, UsageError } from '../errors.js'

export const PROGRAM = 'x402-catalog'

type Options = NonNullable<ParseArgsConfig['options']>

export interface CommandLine {
  positionals: string[]
  values: Record<string, string | boolean | undefined>
}

export interface Cli {
  /** The first line of the help and the hint after a usage error: `usage: npm run keys -- …`. */
  usage: string
  /** The rest of the help: commands, options, the variables that matter. */
  help: string
  /** Options beyond --help; anything else on the command line is a usage error. */
  options?: Options
  /** Whether arguments other than options are taken (commands, files). */
  positionals?: boolean
  /** The exit code, or nothing for a process that keeps running (server, watch, prober). */
  main: (line: CommandLine) => Promise<number | undefined>
}

function parse (cli: Cli, argv: string[]): CommandLine {
  try {
    const { positionals, values } = parseArgs({ args: argv, allowPositionals: cli.positionals === true, strict: true, options: { ...cli.options, help: { type: 'boolean', short: 'h' } } })
    return { positionals, values }
  } catch (err) {
    throw new UsageError(parseProblem(err as NodeJS.ErrnoException, cli))
  }
}

/**
 * parseArgs's complaint in the CLIs' own words: its wording ("Option '--name <value>' argument
 * missing", how to pass a positional starting with '-') is about the parser, not the command.
 */
function parseProblem (err: NodeJS.ErrnoException, cli: Cli): string {
  const quoted = /'([^']+)'/.exec(err.message)?.[1] ?? ''
  // "-h, --help" or "--name <value>": the long name is the one people type.
  const option = /--[\w-]+/.exec(quoted)?.[0] ?? quoted
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': return `unknown option ${quoted}`
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL': return `unknown argument "${quoted}" (${cli.usage.replace(/^usage: /, '')} takes none)`
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': return /argument missing/.test(err.message) ? `${option} needs a value` : `${option} takes no value`
    default: return err.message
  }
}

async function run (cli: Cli, argv: string[]): Promise<number | undefined> {
  const line = parse(cli, argv)
  if (line.values.help === true || line.positionals[0] === 'help') {
    console.log(`${cli.usage}\n\n${cli.help}`)
    return 0
  }
  return await cli.main(line)
}

/** Runs a CLI on process.argv and sets the exit code; a failure exits at once (a half-started process may hold handles open). */
export function runCli (cli: Cli, argv: string[] = process.argv.slice(2)): void {
  run(cli, argv).then((code) => {
    if (code !== undefined && code !== 0) process.exitCode = code
  }, (err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`${PROGRAM}: ${err.message}\n${cli.usage}\n(--help for more)`)
      process.exit(2)
    }
    console.error(err instanceof CatalogError ? `${PROGRAM}: ${err.message}` : err)
    process.exit(1)
  })
}
