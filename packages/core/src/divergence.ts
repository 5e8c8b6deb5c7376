import type { DecisionRecord } from './cassette-format.js'
import { decisionLabel, describeLane, describePosition, SESSION_KIND } from './describe-decision.js'
import { AgentTapeError, type AgentTapeErrorCode, hasShape } from './errors.js'
import { formatMessage, type MessageParts } from './format-message.js'
import { diffJson, type FieldChange, formatChanges } from './json-diff.js'

/** What every divergence report needs to know about the tape. */
export interface DivergenceContext {
  cassettePath: string
  rerecordCommand: string
  /** The command that re-records the test from its first miss on (mode `resume`), when the runner has one. */
  resumeCommand?: string
  /** The command that opens the divergence view, when the runner keeps the diverged run. */
  viewCommand?: string
}

/** The details of a replay miss, kept on the error and on the tape's state. */
export interface MissDetails {
  kind: string
  step: number
  lane?: string
  key: string
  label: string
  /** 1-based position of the missed decision in this run. */
  decisionIndex: number
  /** Decisions in the cassette. */
  total: number
  replayedBefore: number
  /**
   * The miss within its lane, when the cassette's decisions are in more than one lane or the
   * miss is in a lane the cassette does not have (see {@link LaneProgress}).
   */
  inLane?: LaneProgress
  nearest?: { seq: number; key: string; label: string; step: number; lane?: string }
  changes: FieldChange[]
  /** What probably caused the miss, when the tape can tell (concurrent branches without lanes). */
  hint?: string
}

/**
 * Where a miss stands in its lane. A tape that is one of several replaying one cassette (each
 * Node process of a recorded command) asks for the decisions of its own lanes only: its counts
 * are those of its lanes, and the run's totals are the command's to tell.
 */
export interface LaneProgress {
  /** The lane path (`''` the main lane). */
  lane: string
  /** 1-based position of the missed decision among this run's decisions in the lane. */
  index: number
  /** Decisions the cassette holds in the lane. */
  total: number
  /** Decisions of the lane replayed before the miss. */
  replayedBefore: number
  /** Lanes the cassette's decisions are in. */
  lanes: number
  /** Whether the tape is one of several replaying the cassette, so that its own counts are no total. */
  shared: boolean
}

/**
 * The run asked for a decision that was never recorded. Thrown to the caller of the boundary
 * and also kept on the tape, so the test fails even when the agent or the SDK swallows it.
 */
export class ReplayMiss extends AgentTapeError {
  override name = 'ReplayMiss' as const
  readonly details: MissDetails

  constructor(details: MissDetails, context: DivergenceContext) {
    super('ERR_TAPE_MISS', buildMissMessage(details, context))
    this.details = details
  }
}

/** A divergence found when the run ends: unused decisions, environment drift, a strict harness mismatch. */
export class DivergenceError extends AgentTapeError {
  override name = 'DivergenceError' as const
}

export function isReplayMiss(error: unknown): error is ReplayMiss {
  return hasShape(error, 'ReplayMiss', 'ERR_TAPE_MISS')
}

export function isDivergenceError(error: unknown): error is DivergenceError {
  return hasShape(error, 'DivergenceError')
}

/** Finds the nearest recorded decision and the field-level diff against it. */
export function explainMiss(
  miss: Omit<MissDetails, 'nearest' | 'changes'>,
  input: unknown,
  nearest: DecisionRecord | undefined,
): MissDetails {
  if (!nearest) return { ...miss, changes: [] }
  return {
    ...miss,
    nearest: {
      seq: nearest.seq,
      key: nearest.key,
      label: decisionLabel(nearest),
      step: nearest.step,
      ...(nearest.lane === undefined ? {} : { lane: nearest.lane }),
    },
    changes: diffJson(nearest.in, input),
  }
}

function buildMissMessage(d: MissDetails, context: DivergenceContext): string {
  const position = describePosition(d.step, d.lane)
  const lines = [
    `  cassette  ${context.cassettePath}`,
    `  key       ${d.key}`,
    `  progress  ${describeProgress(d)}`,
  ]
  const n = d.nearest
  if (n) lines.push(`  nearest   #${n.seq} ${n.key}, ${n.label} at ${describePosition(n.step, n.lane)}`)
  else lines.push(`  nearest   none: the cassette has no ${d.kind} decisions`)
  if (context.viewCommand) lines.push(`  view      ${context.viewCommand}`)
  const resume = resumeOffer(d, context)
  if (resume) lines.push(`  resume    ${resume}`)
  if (n) {
    lines.push('')
    if (d.changes.length > 0) {
      lines.push(`  Input changed (recorded → now):`)
      for (const line of formatChanges(d.changes)) lines.push(`    ${line}`)
    } else {
      lines.push(
        `  The input equals the nearest recorded one; only its position changed (recorded at ${describePosition(n.step, n.lane)}, now ${position}).`,
      )
    }
  }
  if (d.hint) lines.push('', `  Hint: ${d.hint}`)
  return formatMessage({
    what: `Replay miss at ${position}, ${d.label}`,
    why: 'the run asked for a decision that was never recorded',
    fix: `If the change is intended, re-record this test: ${context.rerecordCommand}`,
    details: lines,
  })
}

/**
 * A miss after replayed decisions can be recorded from where it happened on, the replayed ones
 * kept (mode `resume`): cheaper than a whole re-record when the change is late in a long run.
 * Not a session's message: a replayed session has no server to send the rest to.
 */
function resumeOffer(d: MissDetails, context: DivergenceContext): string | undefined {
  if (!context.resumeCommand || d.replayedBefore === 0 || d.kind === SESSION_KIND) return undefined
  const kept = d.replayedBefore === 1 ? 'the decision' : `the ${d.replayedBefore} decisions`
  return `${context.resumeCommand} (re-records from this decision on, keeping ${kept} replayed before it)`
}

/**
 * `diverged at decision 3 of 7 (2 replayed before it)`; with lanes, the miss's place in its lane
 * first, then in the whole run (a tape of its own) or the cassette (a tape among several, whose
 * run-wide count only the command that ran them all knows).
 */
function describeProgress(d: MissDetails): string {
  const whole = `decision ${d.decisionIndex} of ${d.total}`
  const l = d.inLane
  if (!l) return `diverged at ${whole} (${d.replayedBefore} replayed before it)`
  const lane = describeLane(l.lane)
  const inLane =
    l.total === 0
      ? `diverged at decision ${l.index} in ${lane}, which has no recorded decisions`
      : `diverged at decision ${l.index} of ${l.total} in ${lane} (${l.replayedBefore} replayed before it in that lane)`
  return l.shared
    ? `${inLane}; the cassette holds ${d.total} ${d.total === 1 ? 'decision' : 'decisions'} in ${l.lanes} ${l.lanes === 1 ? 'lane' : 'lanes'}`
    : `${inLane}, ${whole} in all (${d.replayedBefore} replayed before it)`
}

/**
 * A divergence with its report, as every error takes one: what failed, why, what to do, and
 * the lines of the report (the cassette first).
 *
 * @example
 * createDivergence('ERR_TAPE_UNUSED', { what, why, fix, details: [`  cassette  ${cassettePath}`] })
 */
export function createDivergence(
  code: Exclude<AgentTapeErrorCode, 'ERR_TAPE_MISS'>,
  parts: MessageParts & { details: string[] },
): DivergenceError {
  return new DivergenceError(code, parts)
}
