import type { Cassette, DecisionRecord } from './cassette-format.js'
import type { Tape } from './tape.js'
import type { BegunDecision, ReservedRequest, WireRequest } from './tape-options.js'

/**
 * Where a tape keeps its {@link TapeInternals}. `Symbol.for`, not a module's own symbol or
 * WeakMap: a tape opened by one copy of core is served by boundaries that another copy loaded
 * (Jest gives each test file a module registry of its own, while the runner's environment opens
 * the tape), and both copies must find the same handle on it.
 */
export const TAPE_INTERNALS: unique symbol = Symbol.for('agent-tape.tape-internals')

/**
 * What agent-tape's own boundaries and runners ask of a tape beyond the user API: the HTTP
 * boundary's requests by fingerprint and paced replays, the MCP transports' live tools, and what
 * a runner reports once the run ends. No semver promise, as for all of `@agent-tape/core/internal`.
 */
export interface TapeInternals {
  /**
   * For a boundary that sees the bytes of a request (the HTTP boundary): begins its decision as
   * `tape.begin` does, and replays a recorded request with the same fingerprint without
   * canonicalizing it (see {@link WireRequest} and decision 0015).
   */
  beginRequest(request: WireRequest): BegunDecision
  /**
   * Holds the place of a request sent now, in a recording, for a decision made later with
   * {@link beginRequest} and `reserved` (a run captured in a server decides its requests only
   * when it is kept). `undefined` when no place is to be held: the request is handled at once.
   */
  reserveRequest(kind: string): ReservedRequest | undefined
  /** How many requests the tape replayed by their fingerprint alone. */
  wireReplays(): number
  /** How many milliseconds a replay paced as recorded may still wait before the test's timeout. */
  replayWaitLeftMs(): number
  /**
   * `live-tools`: runs a recorded tool for real (`fn`) and compares its result with the
   * recording. A drift fails the run; the caller goes on with the recorded result, so that every
   * drifted tool of the run is reported and the model decisions after it still replay. For
   * adapters that run tools themselves (the MCP transports).
   */
  checkLive(record: DecisionRecord, fn: () => unknown): Promise<void>
  /**
   * The run of a replay that diverged, as far as it went, for the divergence view: a cassette
   * with the recording's header and the decisions the run asked for, in order, the replayed
   * ones as recorded and each miss with its redacted input and no outcome. `undefined` when the
   * tape did not replay or did not diverge.
   */
  divergedRun(): Cassette | undefined
  /**
   * The decisions this run has recorded so far whose outcome is complete, under the header a
   * write would give them, as a cassette; `undefined` unless the tape records. For a process
   * that must keep its recording as it exits (`process.on('exit')` runs no asynchronous work,
   * so `finish()` cannot): the decisions still in flight are left out, numbered as if they had
   * never been made. Nothing is scanned or written.
   */
  completedRecording(): Cassette | undefined
  /**
   * The cassette on disk when the tape opened: the one it replays, or the one its recording
   * replaces (for a re-record's report of what changed); `undefined` for a first recording.
   */
  openedCassette(): Cassette | undefined
  /** The decisions of the cassette the tape replays (none when it records or passes through). */
  recordedDecisions(): readonly DecisionRecord[]
  /**
   * Takes into this run what other processes of it did in lanes of their own (the child
   * processes of a test's tape, each with the boundary of its own): while recording, their
   * complete decisions join the recording, after this run's; while replaying, the recorded
   * decisions they replayed count as used. Keys and places stay as they were made.
   */
  adopt(part: { recorded?: readonly DecisionRecord[]; replayed?: readonly number[] }): void
}

/** The handle of a tape, whichever copy of core opened it. */
export function tapeInternals(tape: Tape): TapeInternals {
  return tape[TAPE_INTERNALS]
}

/**
 * Whether a boundary answers from the cassette and reaches nothing: the tape replays, and not in
 * `live-tools` mode, where a replay runs tools for real to compare them with the recording.
 */
export function answersFromCassette(tape: Pick<Tape, 'action' | 'mode'>): boolean {
  return tape.action === 'replay' && tape.mode !== 'live-tools'
}
