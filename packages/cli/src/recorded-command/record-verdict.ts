import { realpathSync } from 'node:fs'
import { relative } from 'node:path'
import {
  AgentTapeError,
  type Cassette,
  type CommandSource,
  isAgentTapeError,
  type RerecordedFrom,
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
import { describePlaceholders, variablesToSet } from './argument-placeholders.js'
import { type ArgumentPlaceholder, displayCommand, type redactArgv } from './command-line.js'
import type { CommandRun } from './command-run.js'
import { describeNotices } from './gateway-notices.js'
import { shellStatus } from './options.js'
import type { CommandEnd } from './spawn-command.js'

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

/** What a recorded run is written as, beyond what the run itself reports. */
export interface RecordPlan {
  /** The cassette file, its path as printed, and its id. */
  file: string
  shown: string
  id: string
  /** The command line as the cassette keeps it: each credential a placeholder. */
  line: ReturnType<typeof redactArgv>
  /** Where the command ran, and the project root its folder is kept relative to. */
  cwd: string
  root: string
  env: Record<string, string | undefined>
  exec: string
  modelEndpoints: readonly string[]
  allowSecrets: readonly string[]
  /** Paths whose git tree identifies the code that drives the agent. */
  harness: readonly string[]
  /**
   * Set for a run that replayed the start of a recording and recorded the rest (`agent-tape
   * replay --from`): the recording's path as printed.
   */
  resumedFrom?: string
}

/**
 * The verdict on a recorded run: no cassette when a process refused its recording or nothing was
 * recorded; otherwise every process's recording merged under one header (the command line with
 * its placeholders, its folder, the harness, the exit code), scanned for secrets, and written at
 * once; and the summary that says what was written from which processes.
 */
export async function recordVerdict(run: CommandRun, plan: RecordPlan): Promise<RecordCommandResult> {
  const { end, results, envTape } = run
  const { file, shown, id, line, cwd, root, env, exec, modelEndpoints, allowSecrets } = plan
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
  if (results.reports.some((r) => r.gateway && results.recordings.has(r.path)))
    source.upstreams = Object.fromEntries(
      Object.entries(run.upstreams).map(([name, url]) => [name, redactUrl(url)]),
    )
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
  if (run.notices.length > 0) {
    lines.push(
      `Not recorded: requests that reached the gateway of the command's processes outside Node, and that it could not tape: ${describeNotices(run.notices).join(', ')}. Their answers are not in the cassette, and a replay refuses them.`,
    )
  }
  if (refused.length > 0) return notWritten(refused[0]!.recording!.refused!)
  const processDecisions = recorded.reduce((n, r) => n + results.recordings.get(r.path)!.decisions.length, 0)
  if (processDecisions === 0) return notWritten(nothingRecorded(line.argv, ended, results.reports.length))
  const envPart = tapeInternals(envTape).completedRecording()!
  const harness = await createGitHarness(root).identify([...plan.harness])
  const parts = [envPart, ...recorded.map((r) => results.recordings.get(r.path)!)]
  const kept = results.reports.reduce((n, r) => n + (r.recording?.kept ?? 0), 0)
  const rerecordedFrom = plan.resumedFrom === undefined ? undefined : rerecordedFromOf(parts, kept)
  const cassette: Cassette = mergeRecordings(
    { ...envPart.header, test: id, harness, source, ...(rerecordedFrom ? { rerecordedFrom } : {}) },
    parts,
  )
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
  const recordedWhat =
    plan.resumedFrom === undefined
      ? plural(cassette.decisions.length, 'decision')
      : `${plural(kept, 'decision')} replayed from ${plan.resumedFrom} and ${cassette.decisions.length - kept} live${rerecordedFrom ? ` from decision #${rerecordedFrom.seq} (step ${rerecordedFrom.step}${rerecordedFrom.lane ? `, lane ${rerecordedFrom.lane}` : ''})` : ''}`
  const summary = [
    `Recorded ${recordedWhat} of ${displayCommand(line.argv)} (${ended}) in ${shown}${interrupted ? `: the decisions complete when it was interrupted${inFlight > 0 ? `; ${plural(inFlight, 'decision')} still in flight left out` : ''}` : ''}.`,
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
}

/**
 * Where a resumed command's recording began to record live: the earliest first live decision of
 * its parts, numbered as the merged cassette numbers it, with every decision its processes kept.
 */
function rerecordedFromOf(parts: readonly Cassette[], kept: number): RerecordedFrom | undefined {
  let first: RerecordedFrom | undefined
  let offset = 0
  for (const part of parts) {
    const from = part.header.rerecordedFrom
    if (from && (!first || offset + from.seq < first.seq)) first = { ...from, seq: offset + from.seq }
    offset += part.decisions.length
  }
  return first && { ...first, kept }
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
      ? "no Node process of it started with agent-tape, and no request reached the gateway of its processes outside Node (a Node process started with an environment of its own, without NODE_OPTIONS, is not reached; a program outside Node is seen through its model SDK's base-URL variable or the proxy variables, and one that ignores or unsets them is not)"
      : `${plural(processes, 'process', 'processes')} ran with agent-tape and none made a model request, an MCP call, another HTTP request or an environment read it records (loopback requests to hosts that are not model endpoints pass through: name a local model server with --model-endpoint, a local API with --tape-host)`
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

function laneLabel(lane: string | undefined): string {
  return lane === '' || lane === undefined ? 'main lane' : `lane ${lane}`
}

/** `1 decision`, `2 decisions`: a count with its noun. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`
}
