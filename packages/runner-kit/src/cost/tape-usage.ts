import { type Tape, type TapeState, tapeInternals } from '@agent-tape/core/internal'
import {
  cassetteTotals,
  type DecisionUsage,
  type RunTotals,
  type UsageReader,
  type UsageSource,
  usageOfDecisions,
} from '@agent-tape/inspect/cost'

/** What a tape's run has used so far: its steps, each model decision's tokens, and their labels. */
export interface RunUsage {
  /** How the tape gets its answers; a live run keeps none, so its tokens are not known. */
  action: Tape['action']
  /** Model requests the run made (missed ones included). */
  steps: number
  /** Those model requests, in the order the run made them. */
  stepDecisions: { seq: number; label: string }[]
  /** The tokens of each model decision the run replayed or recorded so far. */
  usage: DecisionUsage[]
  /** Labels of the run's decisions by number, for messages. */
  labels: Map<number, string>
  /** When the answers were recorded: prices are those of that time. */
  recordedAt?: string
}

/**
 * The usage of a tape's run so far: the recorded answers it replayed, or the answers it recorded
 * (those complete). A replay counts what it served, not what the cassette holds beyond.
 */
export function readRunUsage(tape: Tape, state: TapeState, reader: UsageReader): RunUsage {
  const made = state.decisions.filter((d) => d.status !== 'unused')
  const labels = new Map(made.map((d) => [d.seq, d.label]))
  const stepDecisions = made.filter((d) => d.asksModel).map((d) => ({ seq: d.seq, label: d.label }))
  let decisions: readonly UsageSource[] = []
  let recordedAt: string | undefined
  if (tape.action === 'replay') {
    const replayed = new Set(made.filter((d) => d.status === 'replayed').map((d) => d.seq))
    decisions = tapeInternals(tape)
      .recordedDecisions()
      .filter((d) => replayed.has(d.seq))
    recordedAt = tapeInternals(tape).openedCassette()?.header.recordedAt
  } else if (tape.action === 'record') {
    const recording = tapeInternals(tape).completedRecording()
    decisions = recording?.decisions ?? []
    recordedAt = recording?.header.recordedAt
  }
  return {
    action: tape.action,
    steps: stepDecisions.length,
    stepDecisions,
    usage: usageOfDecisions(decisions, reader),
    labels,
    ...(recordedAt === undefined ? {} : { recordedAt }),
  }
}

/**
 * What a finished re-record changed against the cassette it replaced, when it wrote one:
 * `undefined` for a first recording, a replay, or a re-record that changed nothing. A re-record
 * that replayed part of the run (mode `resume`) adds the decisions it kept: what it did not spend.
 */
export function readRerecord(
  tape: Tape,
  state: TapeState,
  reader: UsageReader,
): { before: RunTotals; after: RunTotals; kept?: RunTotals } | undefined {
  const before = tape.action === 'record' && state.written ? tapeInternals(tape).openedCassette() : undefined
  const after = before ? tapeInternals(tape).completedRecording() : undefined
  if (!before || !after) return undefined
  const totals = { before: cassetteTotals(before, reader), after: cassetteTotals(after, reader) }
  const replayed = new Set(state.decisions.filter((d) => d.status === 'replayed').map((d) => d.seq))
  if (replayed.size === 0) return totals
  const kept = after.decisions.filter((d) => replayed.has(d.seq))
  return { ...totals, kept: cassetteTotals({ header: before.header, decisions: kept }, reader) }
}
