import {
  AGENT_TAPE_VERSION,
  closestName,
  formatMessage,
  isAgentTapeError,
  isStackOverflow,
  maskForPrinting,
} from '@agent-tape/core/internal'
import { useCodecLabels } from '@agent-tape/http/internal'
import { quoteShell } from '@agent-tape/runner-kit'
import { parseCommandArgs, renderCommandHelp } from './args.js'
import type { CliIo, Command } from './command.js'
import { diffCli } from './commands/diff.js'
import { driftCli } from './commands/drift.js'
import { migrateCli } from './commands/migrate.js'
import { promoteCli } from './commands/promote.js'
import { pruneCli } from './commands/prune.js'
import { recordCli } from './commands/record.js'
import { replayCli } from './commands/replay.js'
import { setupGitCli } from './commands/setup-git.js'
import { showCli } from './commands/show.js'
import { textconvCli } from './commands/textconv.js'
import { verifyCli } from './commands/verify.js'
import { viewCli } from './commands/view.js'

export const COMMANDS: readonly Command[] = [
  recordCli,
  replayCli,
  showCli,
  diffCli,
  viewCli,
  verifyCli,
  pruneCli,
  migrateCli,
  promoteCli,
  textconvCli,
  setupGitCli,
  driftCli,
]

/** Exit codes: 0 success, 1 a finding (problems, differences), 2 a usage error or an unreadable input. */
export const EXIT = { ok: 0, findings: 1, usage: 2 } as const

export function renderHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => `${c.spec.name} ${c.spec.args}`.length))
  const rows = COMMANDS.map((c) => `  ${`${c.spec.name} ${c.spec.args}`.padEnd(width)}  ${c.spec.summary}`)
  return [
    'Usage: agent-tape <command> [options]',
    '',
    'Record and replay commands, and inspect and maintain the cassettes of recorded LLM agent runs.',
    '',
    'Commands:',
    ...rows,
    '',
    'Options:',
    '  -h, --help     Show help (also: agent-tape <command> --help)',
    '  -v, --version  Print the version',
    '',
    'Exit codes: 0 success, 1 problems or differences found, 2 bad arguments or an unreadable file;',
    "record and replay exit with the command's own code.",
    '',
  ].join('\n')
}

/**
 * Runs the CLI with `argv` (without `node` and the script) and returns the exit code: the whole
 * command line but for the process, which the bin plugs in (see `createCliIo`). Everything a
 * command prints passes through the secret masking, so no command shows more than a key's prefix.
 * A bug in agent-tape is reported on stderr with exit code 2, not thrown.
 *
 * @example
 * const code = await main(['verify', '--strict'], createCliIo(process, process.env, process.cwd()))
 */
export async function main(argv: readonly string[], rawIo: CliIo): Promise<number> {
  useCodecLabels()
  const io: CliIo = {
    ...rawIo,
    stdout: (text) => rawIo.stdout(maskForPrinting(text, rawIo.env)),
    stderr: (text) => rawIo.stderr(maskForPrinting(text, rawIo.env)),
  }
  try {
    return await run(argv, io)
  } catch (error) {
    const message = formatMessage({
      what: 'Unexpected error',
      why: error instanceof Error ? error.message : String(error),
      fix: 'This is a bug in agent-tape: please report it with the command you ran and this output',
      details: error instanceof Error && error.stack ? [error.stack] : [],
    })
    rawIo.stderr(`${message}\n`)
    return EXIT.usage
  }
}

async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv
  if (first === undefined) {
    // A usage error: the usage goes where errors go, and stdout stays empty for scripts.
    io.stderr(renderHelp())
    return EXIT.usage
  }
  if (first === '--help' || first === '-h') {
    io.stdout(renderHelp())
    return EXIT.ok
  }
  if (first === '--version' || first === '-v') {
    io.stdout(`${AGENT_TAPE_VERSION}\n`)
    return EXIT.ok
  }
  if (first === 'help') {
    const command = COMMANDS.find((c) => c.spec.name === rest[0])
    io.stdout(command ? renderCommandHelp(command.spec) : renderHelp())
    return EXIT.ok
  }
  const command = COMMANDS.find((c) => c.spec.name === first)
  if (!command) {
    const names = COMMANDS.map((c) => c.spec.name)
    const near = first.startsWith('-') ? undefined : closestName(first, names)
    const what = first.startsWith('-')
      ? `unknown option ${first}`
      : `unknown command ${JSON.stringify(first)}${near ? ` (did you mean ${near}?)` : ''}`
    const fix = near
      ? `Run ${['agent-tape', near, ...rest].map(quoteShell).join(' ')}, or agent-tape --help for usage`
      : 'Run agent-tape --help for usage'
    io.stderr(`${formatMessage({ what, why: `the commands are ${names.join(', ')}`, fix })}\n`)
    return EXIT.usage
  }
  try {
    const args = parseCommandArgs(command.spec, rest)
    if (args.values.help) {
      io.stdout(renderCommandHelp(command.spec))
      return EXIT.ok
    }
    return await command.run(args, io)
  } catch (error) {
    // A bad command line (see `usageError`), or a damaged cassette named on it: core's message
    // names file, line and the fix.
    if (isAgentTapeError(error)) {
      io.stderr(`${error.message}\n`)
      return EXIT.usage
    }
    if (isStackOverflow(error)) {
      const what = `agent-tape ${command.spec.name} cannot read its input`
      const why = `a decision in it is nested deeper than agent-tape can walk (the JavaScript stack overflowed: ${error.message})`
      io.stderr(
        `${formatMessage({ what, why, fix: 'Restore the cassette from version control, or re-record its test' })}\n`,
      )
      return EXIT.usage
    }
    throw error
  }
}
