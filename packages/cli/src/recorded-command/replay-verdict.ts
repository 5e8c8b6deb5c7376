import {
  type Cassette,
  compareHarness,
  type DecisionRecord,
  describeDecision,
  describeLane,
  describePosition,
  formatMessage,
  type HarnessIdentity,
} from '@agent-tape/core/internal'
import { createFileStore, createGitHarness } from '@agent-tape/core/node'
import type { ProcessReport, SessionResults } from '@agent-tape/http/process'
import { keepDivergedRun } from '@agent-tape/runner-kit'
import type { CommandRun } from './command-run.js'
import { describeNotices } from './gateway-notices.js'
import { shellStatus } from './options.js'

/**
 * What `agent-tape replay` exits with when the run diverged from its recording: its own code, so
 * that a script tells a divergence from a clean replay of a command that itself exited 1.
 */
export const DIVERGED_STATUS = 3

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

/** What a replayed run is judged against, beyond what the run itself reports. */
export interface ReplayPlan {
  /** The recording, and its path as printed. */
  cassette: Cassette
  shown: string
  /** The project root, and where under it a diverged run is kept for the view. */
  root: string
  runPath: string
  rerecordCommand: string
  /** `agent-tape replay --from <n>` of this cassette and command, for a replay that missed after decisions it replayed. */
  resumeCommand: (from: number) => string
  /** The environment the replay was asked in (a diverged run is kept with its secrets masked). */
  baseEnv: Record<string, string | undefined>
  allowSecrets: readonly string[]
}

/**
 * The verdict on a replayed run: clean when every process answered every decision from the
 * cassette, none was left unused, no request went around the boundary and every process reported;
 * otherwise its problems, the first divergence first, and the run kept for `agent-tape view --run`.
 */
export async function replayVerdict(run: CommandRun, plan: ReplayPlan): Promise<ReplayCommandResult> {
  const { end, results, envTape } = run
  const { cassette, shown, root, runPath, rerecordCommand, baseEnv, allowSecrets } = plan
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
  if (run.notices.length > 0) problems.push(unattributedMessage(describeNotices(run.notices)))
  if (results.unreported.length > 0) problems.push(unreportedMessage(results.unreported.length, shown))
  const notes = harnessNote(cassette, await createGitHarness(root).identify(harnessPaths(cassette)))
  const warnings = [...new Set(results.reports.flatMap((r) => r.replay?.warnings ?? []))]
  const clean = problems.length === 0
  const resume = resumeNote(cassette, used, results, plan)
  if (resume) notes.push(resume)
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
    : `Replay of ${shown} diverged (${used.size} of ${cassette.decisions.length} recorded decisions replayed${byLane(cassette, used)}); the command ${ended}.`
  return {
    exitCode: end.exitCode,
    signal: end.signal,
    clean,
    report: [...problems, ...notes, ...warnings, summary].join('\n\n'),
    status: clean ? shellStatus(end.exitCode, end.signal) : DIVERGED_STATUS,
  }
}

/**
 * After a miss, the way to run the rest live without paying again for what replayed: `replay
 * --from <n>`, n the decisions before the first the run did not replay (each process replays
 * its part of them, and goes live at its first decision after them or that does not match).
 */
function resumeNote(
  cassette: Cassette,
  used: ReadonlySet<number>,
  results: CommandRun['results'],
  plan: ReplayPlan,
): string | undefined {
  const missed = results.reports.some((r) => r.replay?.divergences.some((d) => d.code === 'ERR_TAPE_MISS'))
  const first = cassette.decisions.find((d) => !used.has(d.seq))
  const from = first ? first.seq - 1 : 0
  if (!missed || from < 1) return undefined
  const kept = from === 1 ? 'the decision' : `the ${from} decisions`
  return `To run it live from where it changed, keeping ${kept} before it (written to a new file; ${plan.shown} is not): ${plan.resumeCommand(from)}`
}

/**
 * `: 1 of 2 in the main lane, 0 of 12 in lane "1"`, the counts a process's miss report gives
 * for its lane, when the cassette's decisions are in more than one lane; else nothing.
 */
function byLane(cassette: Cassette, used: ReadonlySet<number>): string {
  const lanes = new Map<string, { total: number; replayed: number }>()
  for (const d of cassette.decisions) {
    const lane = lanes.get(d.lane ?? '') ?? { total: 0, replayed: 0 }
    lane.total++
    if (used.has(d.seq)) lane.replayed++
    lanes.set(d.lane ?? '', lane)
  }
  if (lanes.size <= 1) return ''
  const all = [...lanes]
  const listed = all.length > LANES_LISTED ? all.slice(0, LANES_LISTED - 1) : all
  const parts = listed.map(([lane, n]) => `${n.replayed} of ${n.total} in ${describeLane(lane)}`)
  const rest = all.slice(listed.length).map(([, n]) => n)
  if (rest.length > 0) {
    const sum = (key: 'total' | 'replayed') => rest.reduce((total, n) => total + n[key], 0)
    parts.push(`${sum('replayed')} of ${sum('total')} in ${rest.length} more lanes`)
  }
  return `: ${parts.join(', ')}`
}

/** How many lanes the summary of a diverged replay counts one by one. */
const LANES_LISTED = 12

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
    why: "it reached the gateway of the command's processes outside Node in a form it cannot tape (an HTTPS tunnel through the proxy variables, a request it could not read or take); it was refused, since a replay makes no connection, and its answer was never recorded",
    fix: "Point the client at the gateway with its SDK's base-URL variable or plain HTTP (--intercept-https tapes HTTPS), make the request from a Node process, or leave it out of the command",
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
