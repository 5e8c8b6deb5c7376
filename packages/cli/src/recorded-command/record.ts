import { statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { basename, dirname, resolve } from 'node:path'
import {
  AgentTapeError,
  ALLOW_CI_RECORDING_ENV,
  ConfigError,
  createMemoryStore,
  describeCi,
  isTruthyEnv,
  parseCassette,
} from '@agent-tape/core/internal'
import { binCommand, CLI_BIN, quoteShell } from '@agent-tape/runner-kit'
import { displayPath } from '../cassette-files.js'
import { redactArgv, rerunnableCommand } from './command-line.js'
import { type CommandRunPlan, runCommand } from './command-run.js'
import { gitRootOf } from './git-root.js'
import { assertEndpoints, type CommandRunOptions } from './options.js'
import { plural, type RecordCommandResult, type RecordPlan, recordVerdict } from './record-verdict.js'

export type { RecordCommandResult } from './record-verdict.js'

import { modelEndpointsFrom } from './session.js'

export interface RecordCommandOptions extends CommandRunOptions {
  /** Replace an existing cassette (without it, an existing file is refused before the command runs). */
  force?: boolean
  /** Environment variables whose values the run depends on: recorded as salted hashes, compared on replay. */
  envKeys?: readonly string[]
  /** Paths (relative to the project root) whose git tree identifies the code that drives the agent. */
  harness?: readonly string[]
  /** Record although `CI` is set (as `AGENT_TAPE_ALLOW_CI_RECORDING=1` does). */
  allowCi?: boolean
}

/**
 * Runs `argv` with the boundary in each of its Node processes and writes what they recorded to
 * one cassette: each process in its own lane, the command line (each secret in it a placeholder
 * that a replay fills from the environment, see `command-line.ts`), its folder relative to the
 * project root, the harness and the exit code in the header. Written at once through a temporary
 * file, and only with at least one decision; a command ended by a signal keeps the decisions
 * that had completed. Usage problems (an existing cassette without `force`, a path under a file,
 * recording in CI, a command that cannot start) throw before the command runs.
 *
 * @example
 * const { exitCode, written } = await recordCommand('runs/issue-412.jsonl', ['node', 'dist/agent.js', '--task', task])
 */
export async function recordCommand(
  cassettePath: string,
  argv: readonly string[],
  options: RecordCommandOptions = {},
): Promise<RecordCommandResult> {
  const plan = await planRecord(cassettePath, argv, options)
  return recordVerdict(await runCommand(plan.run), plan.verdict)
}

/**
 * What a recording runs and writes: the cassette's path (refused before anything runs when it
 * cannot or must not be written, or when recording is not allowed here), the endpoints, and the
 * command line as the cassette keeps it, each credential a placeholder.
 */
async function planRecord(
  cassettePath: string,
  argv: readonly string[],
  options: RecordCommandOptions,
): Promise<{ run: CommandRunPlan; verdict: RecordPlan }> {
  const cwd = options.cwd ?? process.cwd()
  const env = options.env ?? process.env
  const exec = options.exec ?? 'npx'
  assertCommandGiven(argv)
  const file = resolve(cwd, cassettePath)
  const shown = displayPath(file, cwd)
  await assertDestination(file, shown, options.force === true, cwd)
  assertMayRecord(env, options.allowCi === true)
  const modelEndpoints = modelEndpointsFrom(options.modelEndpoints ?? [], env)
  assertEndpoints(modelEndpoints, 'agent-tape record')
  const allowSecrets = [...(options.allowSecrets ?? [])]
  const root = await gitRootOf(cwd)
  const line = redactArgv(argv, env, allowSecrets)
  const id = basename(file).replace(/\.jsonl$/, '')
  const run: CommandRunPlan = {
    mode: 'record',
    id,
    shown,
    argv,
    cwd,
    env,
    modelEndpoints,
    options,
    rerecordCommand: binCommand(
      CLI_BIN,
      `record --force ${quoteShell(shown)} -- ${rerunnableCommand(line.argv)}`,
      exec,
    ),
    // The command's environment reads are the CLI's own decisions, in the main lane at step 0.
    envTape: {
      store: createMemoryStore(),
      mode: 'update',
      env: withoutMode(env),
      allowRecordingInCI: true,
      allowSecrets,
    },
    envKeys: options.envKeys,
  }
  return {
    run,
    verdict: {
      file,
      shown,
      id,
      line,
      cwd,
      root,
      env,
      exec,
      modelEndpoints,
      allowSecrets,
      harness: options.harness ?? [],
    },
  }
}

/** Refuses a record with no command to run. */
function assertCommandGiven(argv: readonly string[]): void {
  if (argv.length > 0) return
  throw new AgentTapeError('ERR_TAPE_USAGE', {
    what: 'Nothing to record for agent-tape record',
    why: 'no command was given after --',
    fix: 'Name the command after --: agent-tape record run.jsonl -- node dist/agent.js',
  })
}

/** Refuses to record under `CI` unless allowed, as a test run's re-record is refused. */
export function assertMayRecord(env: Record<string, string | undefined>, allowCi: boolean): void {
  if (!isTruthyEnv(env.CI) || allowCi || isTruthyEnv(env[ALLOW_CI_RECORDING_ENV])) return
  throw new ConfigError({
    what: 'Refusing to record a command in CI',
    why: `${describeCi(env)}, and CI runs must only replay (a recording reaches the real model and spends tokens)`,
    fix: `Record locally and commit the cassette, or pass --allow-ci (or set ${ALLOW_CI_RECORDING_ENV}=1) in a job that is meant to record; the command was not run`,
  })
}

/** Refuses, before the command runs, a cassette path that cannot or must not be written. */
async function assertDestination(file: string, shown: string, force: boolean, cwd: string): Promise<void> {
  // A missing folder is created when the cassette is written (never when nothing is); the
  // nearest one that exists must be a folder.
  let folder = dirname(file)
  let stat = statOf(folder)
  while (!stat && dirname(folder) !== folder) {
    folder = dirname(folder)
    stat = statOf(folder)
  }
  if (stat && !stat.isDirectory()) {
    const where = displayPath(folder, cwd)
    throw new AgentTapeError('ERR_TAPE_USAGE', {
      what: `Cannot record to ${shown}`,
      why: `${where} is a file, not a folder, so no cassette can be written under it`,
      fix: `Choose a path in a folder (e.g. runs/${basename(file)}), or move ${quoteShell(where)} out of the way; the command was not run`,
    })
  }
  const existing = statOf(file)
  if (existing?.isDirectory()) {
    throw new AgentTapeError('ERR_TAPE_USAGE', {
      what: `Cannot record to ${shown}`,
      why: 'it is a folder',
      fix: 'Name a file, e.g. runs/issue-412.jsonl; the command was not run',
    })
  }
  if (!existing || force) return
  throw new AgentTapeError('ERR_TAPE_USAGE', {
    what: `Refusing to replace ${shown}`,
    why: `it exists already (${await describeExisting(file)})`,
    fix: 'Pass --force to record the command again over it (as --update-cassettes re-records a test), or choose another path; the command was not run',
  })
}

function statOf(path: string) {
  try {
    return statSync(path)
  } catch {
    return undefined
  }
}

async function describeExisting(file: string): Promise<string> {
  try {
    const { header, decisions } = parseCassette(await readFile(file, 'utf8'), file)
    return `a cassette of ${plural(decisions.length, 'decision')} recorded at ${header.recordedAt}`
  } catch {
    return 'and is not a readable cassette'
  }
}

/** The environment without `AGENT_TAPE_MODE`, which would override the mode a command's tapes are given. */
export function withoutMode(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const { AGENT_TAPE_MODE: _mode, ...rest } = env
  return rest
}
