import { realpathSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { basename, dirname, relative, resolve } from 'node:path'
import {
  AgentTapeError,
  ALLOW_CI_RECORDING_ENV,
  type Cassette,
  type CommandSource,
  ConfigError,
  createMemoryStore,
  describeCi,
  isAgentTapeError,
  isTruthyEnv,
  openTape,
  parseCassette,
  redactUrl,
  SecretScanner,
  scanCassette,
  secretEnvValues,
  serializeCassette,
  tapeInternals,
} from '@agent-tape/core/internal'
import { createGitHarness, writeFileAtomic } from '@agent-tape/core/node'
import { mergeRecordings, type ProcessReport } from '@agent-tape/http/process'
import { binCommand, CLI_BIN, quoteShell, toPosix } from '@agent-tape/runner-kit'
import { displayPath } from '../cassette-files.js'
import { describePlaceholders, variablesToSet } from './argument-placeholders.js'
import { type ArgumentPlaceholder, displayCommand, redactArgv, rerunnableCommand } from './command-line.js'
import { assertEndpoints, type CommandRunOptions, shellStatus } from './options.js'
import { projectRootOf } from './project-root.js'
import { describeWatched, startRequestWatch } from './request-watch.js'
import { modelEndpointsFrom, openCommandSession } from './session.js'
import { type CommandEnd, spawnCommand } from './spawn-command.js'

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

export interface RecordCommandResult {
  /** The command's exit code, `null` when a signal ended it. */
  exitCode: number | null
  signal: string | null
  /** Whether the cassette was written. */
  written: boolean
  /** Decisions in the cassette written (0 when none was). */
  decisions: number
  /** What happened, for people: what was written and from which processes, or why nothing was. */
  report: string
  /** The exit status `agent-tape record` exits with. */
  status: number
}

/**
 * Runs `argv` with the boundary in each of its Node processes and writes what they recorded to
 * one cassette: each process in its own lane, the command line (each secret in it a placeholder
 * that a replay fills from the environment, see `command-line.ts`), its folder relative to the
 * project root, the harness and the exit code in the header. Written at once through a temporary
 * file, and only with at least one decision; a command ended by a signal keeps the decisions
 * that had completed. Usage problems (an existing cassette without `force`, a missing folder,
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
  const cwd = options.cwd ?? process.cwd()
  const env = options.env ?? process.env
  const exec = options.exec ?? 'npx'
  const command = 'agent-tape record'
  if (argv.length === 0) {
    throw new AgentTapeError('ERR_TAPE_USAGE', {
      what: `Nothing to record for ${command}`,
      why: 'no command was given after --',
      fix: 'Name the command after --: agent-tape record run.jsonl -- node dist/agent.js',
    })
  }
  const file = resolve(cwd, cassettePath)
  const shown = displayPath(file, cwd)
  await assertDestination(file, shown, options.force === true, cwd)
  assertMayRecord(env, options.allowCi === true)
  const modelEndpoints = modelEndpointsFrom(options.modelEndpoints ?? [], env)
  assertEndpoints(modelEndpoints, command)
  const allowSecrets = [...(options.allowSecrets ?? [])]
  const root = await projectRootOf(cwd)
  const line = redactArgv(argv, env, allowSecrets)
  const id = basename(file).replace(/\.jsonl$/, '')
  const session = await openCommandSession({
    mode: 'record',
    id,
    cassettePath: shown,
    modelEndpoints,
    allowHosts: [...(options.allowHosts ?? [])],
    allowSecrets,
    rerecordCommand: binCommand(
      CLI_BIN,
      `record --force ${quoteShell(shown)} -- ${rerunnableCommand(line.argv)}`,
      exec,
    ),
  })
  try {
    // The command's environment reads are the CLI's own decisions, in the main lane at step 0.
    const envTape = await openTape({
      id,
      cassettePath: shown,
      store: createMemoryStore(),
      mode: 'update',
      env: withoutMode(env),
      allowRecordingInCI: true,
      allowSecrets,
    })
    if (options.envKeys?.length) envTape.env(options.envKeys)
    const watch = await startRequestWatch('record', env)
    const end = await spawnCommand({
      argv,
      cwd,
      env: session.env({ ...env, ...watch.variables }),
      stdio: options.stdio ?? 'inherit',
      output: {
        stdout: (text) => options.onOutput?.('stdout', text),
        stderr: (text) => options.onOutput?.('stderr', text),
      },
    }).finally(() => watch.close())
    const results = await session.results()
    const source: CommandSource = {
      kind: 'command',
      argv: line.argv,
      cwd: relativeCwd(root, cwd),
      exitCode: end.exitCode,
      ...(end.signal ? { signal: end.signal } : {}),
      ...(modelEndpoints.length > 0 ? { modelEndpoints: modelEndpoints.map((e) => redactUrl(e)) } : {}),
      ...(line.placeholders.length > 0
        ? { placeholders: line.placeholders.map(({ what: _what, ...placeholder }) => placeholder) }
        : {}),
    }
    const lines: string[] = []
    const status = shellStatus(end.exitCode, end.signal)
    const ended = describeEnd(end)
    const refused = results.reports.filter((r) => r.recording?.refused)
    const recorded = results.reports.filter((r) => results.recordings.has(r.path))
    const notWritten = (why: string): RecordCommandResult => ({
      exitCode: end.exitCode,
      signal: end.signal,
      written: false,
      decisions: 0,
      report: [why, ...lines].join('\n'),
      status: status === 0 ? 1 : status,
    })
    addNotes(lines, results.reports, results.unreported, line.placeholders)
    if (watch.seen.length > 0) {
      lines.push(
        `Not recorded: a process agent-tape does not reach (a program that is not Node, or a Node process started without NODE_OPTIONS) sent requests through the proxy variables: ${describeWatched(watch.seen).join(', ')}. Their answers are not in the cassette, and a replay refuses them.`,
      )
    }
    if (refused.length > 0) return notWritten(refused[0]!.recording!.refused!)
    const processDecisions = recorded.reduce(
      (n, r) => n + results.recordings.get(r.path)!.decisions.length,
      0,
    )
    if (processDecisions === 0) return notWritten(nothingRecorded(line.argv, ended, results.reports.length))
    const envPart = tapeInternals(envTape).completedRecording()!
    const harness = await createGitHarness(root).identify(options.harness ?? [])
    const cassette: Cassette = mergeRecordings({ ...envPart.header, test: id, harness, source }, [
      envPart,
      ...recorded.map((r) => results.recordings.get(r.path)!),
    ])
    try {
      scanCassette(cassette, shown, new SecretScanner(secretEnvValues(env), allowSecrets))
    } catch (error) {
      if (isAgentTapeError(error)) return notWritten(error.message)
      throw error
    }
    await writeFileAtomic(file, serializeCassette(cassette))
    const inFlight = results.reports.reduce((n, r) => n + (r.recording?.inFlight ?? 0), 0)
    const interrupted = end.forwarded.length > 0 || end.signal !== null
    if (inFlight > 0 && !interrupted) {
      lines.push(
        `Note: ${plural(inFlight, 'decision was', 'decisions were')} still in flight when ${inFlight === 1 ? 'its process' : 'their processes'} exited (a response never read to its end, or cut off by closing its client) and ${inFlight === 1 ? 'is' : 'are'} left out: a replay misses there.`,
      )
    }
    const summary = [
      `Recorded ${plural(cassette.decisions.length, 'decision')} of ${displayCommand(line.argv)} (${ended}) in ${shown}${interrupted ? `: the decisions complete when it was interrupted${inFlight > 0 ? `; ${plural(inFlight, 'decision')} still in flight left out` : ''}` : ''}.`,
      ...recorded.map(
        (r) =>
          `  ${laneLabel(r.lane)}  ${r.script || 'node'}  ${plural(results.recordings.get(r.path)!.decisions.length, 'decision')}`,
      ),
      `Replay it with: ${variablesToSet(line.placeholders.map((p) => p.env))}${binCommand(CLI_BIN, `replay ${quoteShell(shown)}`, exec)}`,
    ]
    return {
      exitCode: end.exitCode,
      signal: end.signal,
      written: true,
      decisions: cassette.decisions.length,
      report: [...summary, ...lines].join('\n'),
      status,
    }
  } finally {
    await session.remove()
  }
}

/** Refuses to record under `CI` unless allowed, as a test run's re-record is refused. */
function assertMayRecord(env: Record<string, string | undefined>, allowCi: boolean): void {
  if (!isTruthyEnv(env.CI) || allowCi || isTruthyEnv(env[ALLOW_CI_RECORDING_ENV])) return
  throw new ConfigError({
    what: 'Refusing to record a command in CI',
    why: `${describeCi(env)}, and CI runs must only replay (a recording reaches the real model and spends tokens)`,
    fix: `Record locally and commit the cassette, or pass --allow-ci (or set ${ALLOW_CI_RECORDING_ENV}=1) in a job that is meant to record; the command was not run`,
  })
}

/** Refuses, before the command runs, a cassette path that cannot or must not be written. */
async function assertDestination(file: string, shown: string, force: boolean, cwd: string): Promise<void> {
  const folder = dirname(file)
  const stat = statOf(folder)
  if (!stat?.isDirectory()) {
    throw new AgentTapeError('ERR_TAPE_USAGE', {
      what: `Cannot record to ${shown}`,
      why: `the folder ${displayPath(folder, cwd)} ${stat ? 'is not a folder' : 'does not exist'}`,
      fix: `Create it first (mkdir -p ${quoteShell(displayPath(folder, cwd))}), or choose another path; the command was not run`,
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

function relativeCwd(root: string, cwd: string): string {
  const rel = toPosix(relative(realpathOr(root), realpathOr(cwd)))
  return rel === '' ? '.' : rel
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

function describeEnd(end: CommandEnd): string {
  const by = end.forwarded.length > 0 ? `, after ${end.forwarded.join(' and ')} was passed on to it` : ''
  return end.signal ? `ended by ${end.signal}${by}` : `exit code ${end.exitCode}${by}`
}

function nothingRecorded(argv: readonly string[], ended: string, processes: number): string {
  const reached =
    processes === 0
      ? 'no Node process of it started with agent-tape (is it a Node program? a process started with an environment of its own, without NODE_OPTIONS, is not reached)'
      : `${plural(processes, 'Node process', 'Node processes')} ran with agent-tape and none made a model request, an MCP call, another HTTP request or an environment read it records (loopback requests to hosts that are not model endpoints pass through: name a local model server with --model-endpoint)`
  return new AgentTapeError('ERR_TAPE_USAGE', {
    what: `Recorded nothing: ${displayCommand(argv)} (${ended}) made no decision`,
    why: reached,
    fix: 'Check that the command reaches the model; no cassette was written',
  }).message
}

function addNotes(
  lines: string[],
  reports: readonly ProcessReport[],
  unreported: readonly string[],
  placeholders: readonly ArgumentPlaceholder[],
): void {
  if (placeholders.length > 0) {
    const one = placeholders.length === 1
    lines.push(
      `Note: the command line held ${one ? 'a credential' : 'credentials'}, kept out of the cassette as ${one ? 'a placeholder' : 'placeholders'} [REDACTED:$NAME] (arguments counted from 0, the program); a replay runs the command with each filled from the variable NAME, and refuses to run while one is unset:`,
      ...describePlaceholders(placeholders),
    )
  }
  const warnings = new Set(reports.flatMap((r) => r.warnings ?? []))
  for (const warning of warnings) lines.push(warning)
  if (unreported.length > 0) {
    lines.push(
      `Note: ${plural(unreported.length, 'Node process', 'Node processes')} of the command ended without saying what it recorded (killed with SIGKILL?): its decisions are missing.`,
    )
  }
}

/** The environment without `AGENT_TAPE_MODE`, which would override the mode a command's tapes are given. */
export function withoutMode(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const { AGENT_TAPE_MODE: _mode, ...rest } = env
  return rest
}

function laneLabel(lane: string | undefined): string {
  return lane === '' || lane === undefined ? 'main lane' : `lane ${lane}`
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`
}
