import { statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { basename, resolve } from 'node:path'
import {
  AgentTapeError,
  type Cassette,
  type CassetteStore,
  compareHarness,
  type DecisionRecord,
  describeDecision,
  describePosition,
  formatMessage,
  type HarnessIdentity,
  openTape,
  parseCassette,
} from '@agent-tape/core/internal'
import { createFileStore, createGitHarness } from '@agent-tape/core/node'
import { provideReplayKeys } from '@agent-tape/http'
import type { ProcessReport, SessionResults } from '@agent-tape/http/process'
import {
  binCommand,
  buildViewCommand,
  CLI_BIN,
  keepDivergedRun,
  quoteShell,
  runPathFor,
  toPosix,
} from '@agent-tape/runner-kit'
import { displayPath } from '../cassette-files.js'
import { fillPlaceholders } from './argument-placeholders.js'
import { displayCommand, rerunnableCommand } from './command-line.js'
import { assertEndpoints, type CommandRunOptions, shellStatus } from './options.js'
import { projectRootOf } from './project-root.js'
import { withoutMode } from './record.js'
import { describeWatched, startRequestWatch } from './request-watch.js'
import { modelEndpointsFrom, openCommandSession } from './session.js'
import { spawnCommand } from './spawn-command.js'

/**
 * What `agent-tape replay` exits with when the run diverged from its recording: its own code, so
 * that a script tells a divergence from a clean replay of a command that itself exited 1.
 */
export const DIVERGED_STATUS = 3

export interface ReplayCommandOptions extends CommandRunOptions {
  /**
   * The command to run instead of the recorded one (required for a cassette not recorded from a
   * command). Run as given: it has no placeholders to fill.
   */
  argv?: readonly string[]
  /** `replay` (default) answers every decision from the cassette; `live-tools` runs MCP tool calls for real and compares them. */
  mode?: 'replay' | 'live-tools'
}

/** How a replayed command went. */
export interface ReplayCommandResult {
  /** The command's own exit code, `null` when a signal ended it. */
  exitCode: number | null
  signal: string | null
  /**
   * Whether the run replayed cleanly: every decision of every process answered from the cassette,
   * none of it left unused, no environment drift, no process that could not be accounted for.
   */
  clean: boolean
  /**
   * For people: when not clean, the first divergence whole (the miss report with its diff and
   * the `view` line), then every other problem; when clean, one line saying what replayed.
   */
  report: string
  /**
   * The exit status `agent-tape replay` exits with: the command's own when clean,
   * {@link DIVERGED_STATUS} when not.
   */
  status: number
}

/**
 * Runs a recorded command again (or `options.argv`) with every Node process it starts replaying
 * its decisions from the cassette: no network, no API key (unset provider key variables get a
 * placeholder). The recorded command line runs with the arguments it was recorded with: each
 * placeholder `[REDACTED:$NAME]` filled from `env.NAME`, and nothing run while one is unset.
 * Resolves with the command's exit code and whether the run replayed cleanly; a replay that
 * diverged keeps its run for `agent-tape view --run`, as a test's does. Throws an
 * `AgentTapeError` when the cassette cannot be read, a placeholder's variable is unset, or the
 * command cannot start.
 *
 * @example
 * const { clean, report } = await replayCommand('test/__cassettes__/cli/issue-412.jsonl')
 * expect(clean, report).toBe(true)
 */
export async function replayCommand(
  cassettePath: string,
  options: ReplayCommandOptions = {},
): Promise<ReplayCommandResult> {
  const cwd = options.cwd ?? process.cwd()
  const baseEnv = options.env ?? process.env
  const exec = options.exec ?? 'npx'
  const file = resolve(cwd, cassettePath)
  const shown = displayPath(file, cwd)
  const cassette = await loadForReplay(file, shown)
  const source = cassette.header.source?.kind === 'command' ? cassette.header.source : undefined
  const recorded = options.argv?.length ? [...options.argv] : source?.argv
  if (!recorded) {
    throw new AgentTapeError('ERR_TAPE_USAGE', {
      what: `Cannot replay ${shown} without a command`,
      why: 'it was not recorded by agent-tape record (its header names no command)',
      fix: `Name the command to run after --: agent-tape replay ${quoteShell(shown)} -- node dist/agent.js`,
    })
  }
  // No key is needed to replay: SDK clients that insist on one get a placeholder, and so does a
  // provider key the command line held (`--api-key "$OPENAI_API_KEY"`, kept as its placeholder).
  const env = withoutMode(baseEnv)
  provideReplayKeys(env)
  // The recorded line's placeholders are filled, or the replay refuses, before anything runs.
  const argv =
    options.argv?.length || !source
      ? recorded
      : fillPlaceholders(source.argv, source.placeholders ?? [], env, {
          shown,
          replay: binCommand(CLI_BIN, `replay ${quoteShell(shown)}`, exec),
        })
  const root = await projectRootOf(cwd)
  const runCwd = options.argv?.length || !source ? cwd : resolve(root, source.cwd)
  if (!isFolder(runCwd)) {
    throw new AgentTapeError('ERR_TAPE_USAGE', {
      what: `Cannot replay ${shown}`,
      why: `the command ran in ${source?.cwd ?? '.'} under the project root, and ${runCwd} is not a folder here`,
      fix: 'Run the replay from the project the command was recorded in, or give the command after -- to run it in the current folder',
    })
  }
  const modelEndpoints = modelEndpointsFrom(options.modelEndpoints ?? [], baseEnv, source?.modelEndpoints)
  assertEndpoints(modelEndpoints, 'agent-tape replay')
  const mode = options.mode ?? 'replay'
  const runPath = runPathFor(root, toPosix(displayPath(file, root)), baseEnv)
  const viewCommand = buildViewCommand({
    exec,
    cassettePath: shown,
    runPath: displayPath(resolve(root, runPath), cwd),
  })
  // Written from the recorded line, never the filled one: it is printed, and holds no secret.
  const rerecordCommand = binCommand(
    CLI_BIN,
    `record --force ${quoteShell(shown)} -- ${options.argv?.length ? displayCommand(recorded) : rerunnableCommand(recorded)}`,
    exec,
  )
  const allowSecrets = [...(options.allowSecrets ?? [])]
  const id = basename(file).replace(/\.jsonl$/, '')
  const session = await openCommandSession({
    mode,
    id,
    cassettePath: shown,
    cassetteFile: file,
    modelEndpoints,
    allowHosts: [...(options.allowHosts ?? [])],
    allowSecrets,
    rerecordCommand,
    viewCommand,
  })
  try {
    const envTape = await openTape({
      id,
      cassettePath: shown,
      store: readOnlyStore(file),
      mode,
      env,
      failOnUnused: false,
      rerecordCommand,
    })
    const envRead = cassette.decisions.find((d) => d.kind === 'env' && d.lane === undefined)
    const keys = (envRead?.in as { keys?: string[] } | undefined)?.keys
    if (keys) envTape.env(keys)
    const watch = await startRequestWatch('replay', env)
    const end = await spawnCommand({
      argv,
      cwd: runCwd,
      env: session.env({ ...env, ...watch.variables }),
      stdio: options.stdio ?? 'inherit',
      output: {
        stdout: (text) => options.onOutput?.('stdout', text),
        stderr: (text) => options.onOutput?.('stderr', text),
      },
    }).finally(() => watch.close())
    const results = await session.results()
    const envState = envTape.state
    const problems: string[] = [
      ...envState.divergences.map((d) => d.message),
      ...results.reports.flatMap((r) => r.replay?.divergences.map((d) => d.message) ?? []),
    ]
    const used = new Set<number>(envState.decisions.filter((d) => d.status === 'replayed').map((d) => d.seq))
    for (const r of results.reports)
      for (const d of r.replay?.decisions ?? []) if (d.status === 'replayed') used.add(d.seq)
    const unused = cassette.decisions.filter((d) => !used.has(d.seq))
    // After a miss, the decisions it left unused are its consequence: said in one line.
    if (unused.length > 0 && problems.length > 0) {
      problems.push(
        `Besides, ${unused.length} of ${cassette.decisions.length} recorded decisions were left unused.`,
      )
    } else if (unused.length > 0) {
      problems.push(unusedMessage(unused, cassette.decisions.length, shown, rerecordCommand))
    }
    if (watch.seen.length > 0) problems.push(unattributedMessage(describeWatched(watch.seen)))
    if (results.unreported.length > 0) problems.push(unreportedMessage(results.unreported.length, shown))
    const notes = harnessNote(cassette, await createGitHarness(root).identify(harnessPaths(cassette)))
    const warnings = [...new Set(results.reports.flatMap((r) => r.replay?.warnings ?? []))]
    const clean = problems.length === 0
    if (!clean) {
      const kept = await keepDivergedRun(mergedRun(cassette, results), runPath, createFileStore(root), {
        env: baseEnv,
        allow: allowSecrets,
      })
      if (!kept.kept) warnings.push(kept.why)
    }
    const ended = end.signal ? `ended by ${end.signal}` : `exited with code ${end.exitCode}`
    const processes = results.reports.filter((r) => r.lane !== undefined).length
    const summary = clean
      ? `Replayed ${shown} cleanly: ${cassette.decisions.length} of ${cassette.decisions.length} decisions from ${processes} ${processes === 1 ? 'process' : 'processes'}, no network; the command ${ended}.`
      : `Replay of ${shown} diverged (${used.size} of ${cassette.decisions.length} recorded decisions replayed); the command ${ended}.`
    return {
      exitCode: end.exitCode,
      signal: end.signal,
      clean,
      report: [...problems, ...notes, ...warnings, summary].join('\n\n'),
      status: clean ? shellStatus(end.exitCode, end.signal) : DIVERGED_STATUS,
    }
  } finally {
    await session.remove()
  }
}

async function loadForReplay(file: string, shown: string): Promise<Cassette> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new AgentTapeError('ERR_TAPE_NO_CASSETTE', {
      what: `Cannot replay ${shown}`,
      why:
        code === 'ENOENT' ? 'the file does not exist' : code === 'EISDIR' ? 'it is a folder' : String(error),
      fix: 'Name a cassette written by agent-tape record (or by a test run)',
    })
  }
  return parseCassette(text, shown)
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

function readOnlyStore(file: string): CassetteStore {
  return { read: () => readFile(file, 'utf8'), write: async () => {} }
}

function unusedMessage(
  unused: readonly DecisionRecord[],
  total: number,
  shown: string,
  rerecord: string,
): string {
  const lines = unused
    .slice(0, 10)
    .map((d) => `  #${d.seq} ${describeDecision(d.kind, d.in)} at ${describePosition(d.step, d.lane)}`)
  if (unused.length > 10) lines.push(`  … and ${unused.length - 10} more`)
  return formatMessage({
    what: `The command finished with ${unused.length} of ${total} recorded decisions unused`,
    why: 'its processes never asked for them: the run took a shorter path than the recording (an earlier exit, a skipped step, a process that did not start)',
    fix: `If the change is intended, record the command again: ${rerecord}`,
    details: [`  cassette  ${shown}`, '', ...lines],
  })
}

function unattributedMessage(targets: readonly string[]): string {
  return formatMessage({
    what: `Cannot replay ${targets.length === 1 ? 'a request' : `${targets.length} requests`} of the command: ${targets.join(', ')}`,
    why: 'a process agent-tape does not reach (a program that is not Node, or a Node process started without NODE_OPTIONS) sent it through the proxy variables; it was refused, since a replay makes no connection, and its answer was never recorded',
    fix: "Make the request from the agent's Node processes, or leave it out of the command",
  })
}

function unreportedMessage(count: number, shown: string): string {
  return formatMessage({
    what: `${count} Node ${count === 1 ? 'process' : 'processes'} of the command ended without a report`,
    why: 'it was killed (SIGKILL) or crashed before it could say which decisions it replayed, so the replay cannot be judged clean',
    fix: `Run the replay again; if it repeats, find the process that dies (cassette ${shown})`,
  })
}

function harnessPaths(cassette: Cassette): string[] {
  const harness = cassette.header.harness
  return harness?.git ? harness.paths : []
}

function harnessNote(cassette: Cassette, current: HarnessIdentity): string[] {
  const compared = compareHarness(cassette.header.harness, current)
  return compared.matches || !compared.note ? [] : [`Note: ${compared.note}.`]
}

/**
 * The run of a diverged replay, for the view: each process's run in lane order (a process that
 * replayed cleanly contributes the decisions it replayed), under the recording's header.
 */
function mergedRun(cassette: Cassette, results: SessionResults): Cassette {
  const bySeq = new Map(cassette.decisions.map((d) => [d.seq, d]))
  const decisions: DecisionRecord[] = []
  const add = (d: DecisionRecord) => decisions.push({ ...d, seq: decisions.length + 1 })
  const runOf = (r: ProcessReport) => r.replay?.run?.decisions
  for (const r of results.reports) {
    const run = runOf(r)
    if (run) for (const d of run) add(d)
    else
      for (const d of r.replay?.decisions ?? [])
        if (d.status === 'replayed' && bySeq.has(d.seq)) add(bySeq.get(d.seq)!)
  }
  return { header: { ...cassette.header, recordedAt: new Date().toISOString() }, decisions }
}
