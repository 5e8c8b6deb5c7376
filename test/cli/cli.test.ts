import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createCliIo, main } from '@agent-tape/cli'
import { expect, it } from 'vitest'
import { runBin } from './support/bin.js'
import { runCli } from './support/cli.js'

const cwd = tmpdir()

it('runs as the built bin: prints the version of the package on stdout and exits 0', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../packages/cli/package.json', import.meta.url), 'utf8'))
  expect(runBin(['--version'], cwd)).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' })
})

it('prints the list of commands with --help, and exits 2 without a command', async () => {
  const help = await runCli(['--help'], cwd)
  expect(help.code).toBe(0)
  expect(help.stdout).toBe(`Usage: agent-tape <command> [options]

Record and replay commands, and inspect and maintain the cassettes of recorded LLM agent runs.

Commands:
  record <cassette> -- <command> [args…]    Run a command with every Node process it starts recorded into one cassette, to replay it offline.
  replay <cassette> [-- <command> [args…]]  Run a recorded command again with every decision answered from its cassette: no network, no API key.
  show <cassette>                           Print the timeline of a recorded run: every decision in order, with what was asked and answered.
  diff <a> <b>                              Show what changed between two recordings of the same test (before and after a re-record).
  view <cassette> [<after>]                 Write a self-contained HTML page of a recorded run, of two recordings side by side, or of a run that diverged from its recording.
  verify [paths…]                           Check every cassette under the paths: format, versions, secrets and harness freshness. For CI.
  prune [paths…]                            Delete cassettes whose tests no longer exist (--dry-run only lists them).
  migrate [paths…]                          Rewrite cassettes of older formats in format 2 (--check only says which). For CI.
  promote <captured-cassette>               Turn a captured run or a recorded command into a test: place its cassette where the runner looks, and write the test.
  textconv <cassette>                       Print a cassette as a plain transcript, for git diff (set up with agent-tape setup-git).
  setup-git                                 Have git diff, git log -p and git show print cassettes as transcripts (agent-tape textconv).
  drift [paths…] [-- <test command>]        Run the tests live and say what moved under each: the model, a tool, or the code.

Options:
  -h, --help     Show help (also: agent-tape <command> --help)
  -v, --version  Print the version

Exit codes: 0 success, 1 problems or differences found, 2 bad arguments or an unreadable file;
record and replay exit with the command's own code.
`)
  // No command is a usage error: the usage goes to stderr, and stdout stays empty. The built bin
  // is run, for the exit code and the stream it writes to.
  expect(runBin([], cwd)).toEqual({ code: 2, stdout: '', stderr: help.stdout })
})

it('has --help for every command, also as `help <command>`', async () => {
  for (const command of ['record', 'replay', 'show', 'diff', 'view', 'verify', 'prune', 'promote', 'drift']) {
    const help = await runCli([command, '--help'], cwd)
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(new RegExp(`^Usage: agent-tape ${command} \\[options\\]`))
    expect(help.stdout).toContain('  -h, --help')
    expect((await runCli(['help', command], cwd)).stdout).toBe(help.stdout)
  }
  expect((await runCli(['show', '-h'], cwd)).stdout).toContain('Usage: agent-tape show [options] <cassette>')
})

it('rejects an unknown command with the list of commands', async () => {
  expect(await runCli(['rewind'], cwd)).toEqual({
    code: 2,
    stdout: '',
    stderr:
      '[agent-tape] unknown command "rewind": the commands are record, replay, show, diff, view, verify, prune, migrate, promote, textconv, setup-git, drift. Run agent-tape --help for usage.\n',
  })
})

it('suggests the command a misspelt one is closest to, with the rest of the command line', async () => {
  const commands =
    'the commands are record, replay, show, diff, view, verify, prune, migrate, promote, textconv, setup-git, drift'
  for (const [typed, meant] of [
    ['shwo', 'show'],
    ['Show', 'show'],
    ['verfy', 'verify'],
    ['dif', 'diff'],
    ['prun', 'prune'],
    ['replya', 'replay'],
    ['migarte', 'migrate'],
  ] as const) {
    expect(await runCli([typed, 'a b.jsonl', '--json'], cwd)).toEqual({
      code: 2,
      stdout: '',
      stderr: `[agent-tape] unknown command "${typed}" (did you mean ${meant}?): ${commands}. Run agent-tape ${meant} 'a b.jsonl' --json, or agent-tape --help for usage.\n`,
    })
  }
  // A misspelt option of a command is named too.
  expect((await runCli(['show', '--jsno', 'a.jsonl'], cwd)).stderr).toContain(
    'unknown option --jsno (did you mean --json?); valid options are',
  )
})

it('rejects option values that do not fit the option', async () => {
  expect((await runCli(['verify', '--root'], cwd)).stderr).toBe(
    '[agent-tape] Invalid arguments for agent-tape verify: option --root needs a value (--root <dir>). Run agent-tape verify --help for usage.\n',
  )
  expect((await runCli(['verify', '--json=yes'], cwd)).stderr).toBe(
    '[agent-tape] Invalid arguments for agent-tape verify: option --json takes no value, got "yes". Run agent-tape verify --help for usage.\n',
  )
})

it('is installed as an executable with a node shebang', async () => {
  const bin = new URL('../../node_modules/.bin/agent-tape', import.meta.url)
  expect(readFileSync(bin, 'utf8')).toContain('agent-tape')
  const built = new URL('../../packages/cli/dist/esm/bin.js', import.meta.url)
  expect(readFileSync(built, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node')
})

it('reports an error it did not expect as a bug, on stderr with exit code 2, instead of throwing', async () => {
  let stderr = ''
  const io = createCliIo(
    {
      stdout: {
        write: () => {
          throw new Error('the disk is full')
        },
      },
      stderr: {
        write: (text: string) => {
          stderr += text
        },
      },
    },
    {},
    cwd,
  )
  expect(await main(['--version'], io)).toBe(2)
  expect(stderr).toMatch(
    /^\[agent-tape\] Unexpected error: the disk is full\. This is a bug in agent-tape: please report it with the command you ran and this output\.\n/,
  )
  expect(stderr).toContain('Error: the disk is full\n    at ')
})
