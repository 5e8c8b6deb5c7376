import { statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { basename, resolve } from 'node:path'
import { AgentTapeError, type Cassette, type CassetteStore, parseCassette } from '@agent-tape/core/internal'
import { provideReplayKeys, type ReplayKeysOptions } from '@agent-tape/http'
import {
  binCommand,
  buildViewCommand,
  CLI_BIN,
  quoteShell,
  runPathFor,
  toPosix,
} from '@agent-tape/runner-kit'
import { displayPath } from '../cassette-files.js'

export { DIVERGED_STATUS, type ReplayCommandResult } from './replay-verdict.js'

import { fillPlaceholders } from './argument-placeholders.js'
import { displayCommand, rerunnableCommand } from './command-line.js'
import { type CommandRunPlan, runCommand } from './command-run.js'
import { gitRootOf } from './git-root.js'
import { assertEndpoints, type CommandRunOptions } from './options.js'
import { withoutMode } from './record.js'
import { type ReplayCommandResult, type ReplayPlan, replayVerdict } from './replay-verdict.js'
import { modelEndpointsFrom } from './session.js'

export interface ReplayCommandOptions extends CommandRunOptions {
  /**
   * The command to run instead of the recorded one (required for a cassette not recorded from a
   * command). Run as given: it has no placeholders to fill.
   */
  argv?: readonly string[]
  /** `replay` (default) answers every decision from the cassette; `live-tools` runs MCP tool calls for real and compares them. */
  mode?: 'replay' | 'live-tools'
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
  const plan = await planReplay(cassettePath, options)
  return replayVerdict(await runCommand(plan.run), plan.verdict)
}

/**
 * What a replay runs and judges against: the cassette read, the recorded line with its
 * placeholders filled (or the command given instead), the folder it ran in, the endpoints, and
 * the commands its reports print. Throws before anything runs when one of them cannot be had.
 * `keys` says how unset provider keys get placeholders (a run that records from some point on
 * keeps credentials an SDK finds elsewhere).
 */
export async function planReplay(
  cassettePath: string,
  options: ReplayCommandOptions,
  keys: ReplayKeysOptions = {},
): Promise<{ run: CommandRunPlan; verdict: ReplayPlan }> {
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
  provideReplayKeys(env, keys)
  // The recorded line's placeholders are filled, or the replay refuses, before anything runs.
  const argv =
    options.argv?.length || !source
      ? recorded
      : fillPlaceholders(source.argv, source.placeholders ?? [], env, {
          shown,
          replay: binCommand(CLI_BIN, `replay ${quoteShell(shown)}`, exec),
        })
  const root = await gitRootOf(cwd)
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
  // A replay without a command of its own replays the recorded one: so does the resumed run.
  const resumeCommand = (from: number) =>
    binCommand(
      CLI_BIN,
      `replay --from ${from} ${quoteShell(shown)}${options.argv?.length ? ` -- ${displayCommand(recorded)}` : ''}`,
      exec,
    )
  const allowSecrets = [...(options.allowSecrets ?? [])]
  const envRead = cassette.decisions.find((d) => d.kind === 'env' && d.lane === undefined)
  const run: CommandRunPlan = {
    mode,
    id: basename(file).replace(/\.jsonl$/, ''),
    shown,
    cassetteFile: file,
    argv,
    cwd: runCwd,
    env,
    modelEndpoints,
    options,
    rerecordCommand,
    viewCommand,
    envTape: { store: readOnlyStore(file), mode, env, failOnUnused: false, rerecordCommand },
    envKeys: (envRead?.in as { keys?: string[] } | undefined)?.keys,
    ...(source?.upstreams ? { upstreams: recordedUpstreams(source.upstreams) } : {}),
  }
  return {
    run,
    verdict: { cassette, shown, root, runPath, rerecordCommand, resumeCommand, baseEnv, allowSecrets },
  }
}

/**
 * The gateway's upstreams as recorded, so that a replay keys the requests of processes outside
 * Node with the URLs they had, whatever the replay's environment says; one whose credentials were
 * redacted is read from the environment again.
 */
function recordedUpstreams(upstreams: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(upstreams).filter(([, url]) => !url.includes('[REDACTED')))
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
