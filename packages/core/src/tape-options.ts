import type { DecisionPosition } from './canonical-key.js'
import type { Cassette, DecisionRecord, RecordedError, RecordingSource } from './cassette-format.js'
import type { CassetteStore } from './cassette-store.js'
import type { AgentTapeError } from './errors.js'
import type { HarnessProvider } from './harness.js'
import type { IgnoreRule } from './ignore-paths.js'
import type { TapeMode } from './modes.js'
import type { Normalizer } from './normalize.js'
import type { Redactor } from './redaction.js'
import type { SecretAllowList } from './secrets/index.js'

export interface TapeOptions {
  /** The id of the test that owns the tape, written in the cassette header. */
  id: string
  /** Path of the cassette, as shown in messages and passed to the store. */
  cassettePath: string
  store: CassetteStore
  /** A mode name; when absent it is resolved from `AGENT_TAPE_MODE` and `CI`. */
  mode?: TapeMode | string
  /** Environment for mode resolution, `tape.env` and the secret scan (default `process.env`). */
  env?: Record<string, string | undefined>
  allowRecordingInCI?: boolean
  harness?: { provider: HarnessProvider; paths?: readonly string[]; strict?: boolean }
  redactors?: readonly Redactor[]
  normalizers?: readonly Normalizer[]
  /**
   * Fields the key leaves out, as JSON paths into the canonical input (`body.metadata.request_id`,
   * `body.messages.*.id`): a value that changes on every run and does not decide the answer.
   * They are still stored, redacted, and each is counted in `state.ignored` when it matches.
   */
  ignore?: readonly IgnoreRule[]
  /** Values the secret scan must accept, e.g. a fake key used by tests. */
  allowSecrets?: SecretAllowList
  /** Fail the run when recorded decisions are left unused (default true). */
  failOnUnused?: boolean
  /** The command that re-records this one test, printed in every divergence report. */
  rerecordCommand?: string
  /**
   * The command that re-records this one test from its first miss on (mode `resume`), offered
   * beside {@link rerecordCommand} in a miss report when decisions were replayed before the miss.
   */
  resumeCommand?: string
  /**
   * The command that opens the view of this run next to its recording, printed in a miss
   * report. The runner keeps the run (see {@link Tape.divergedRun}) where the command looks.
   */
  viewCommand?: string
  /** Versions of SDKs to write in the header. */
  sdks?: Record<string, string>
  /**
   * Where the run is recorded, when not by a test (written in the header). A function is read
   * when the cassette is written, once the run's outcome is known.
   */
  source?: RecordingSource | (() => RecordingSource | undefined)
  /**
   * The lane path of code that runs in no `tape.lane` of its own (default the main lane, `''`):
   * for a tape that is one of several recording into one cassette, such as each Node process
   * of a recorded command. Keys include it. A function is called once, at the first decision.
   */
  lane?: string | (() => string)
  /**
   * Whether a decision's key holds its step (default `true`: the Nth request of a lane is
   * answered by the Nth recorded one, as code that makes its requests one after another sends
   * them). `false` keys a decision by what it asks and its lane only, for a tape whose requests
   * arrive in an order no code decides (the gateway's lane of a process outside Node, which may
   * send several at once): each is answered by what it asks whatever its turn, and identical
   * requests still get their recorded answers in order.
   */
  stepsInKeys?: boolean
  /** How long `finish()` waits for decisions still in flight (default 10 s). */
  pendingTimeoutMs?: number
  /**
   * Called when the tape is used after it finished (a request or tool call from a promise the
   * test did not await), with the `ERR_TAPE_USAGE` error the caller gets, or the problem a
   * boundary reported then (a refused connection): the run's outcome is already taken, so a
   * runner fails the test if it still can, and names it in the run summary otherwise.
   */
  onLateUse?: (error: AgentTapeError) => void
  /**
   * How long the test may run (its timeout), counted from the tape's opening: a replay paced as
   * recorded (`timing: 'recorded'` or a speed) that would wait past it fails at once, naming the
   * decision, instead of the test timing out with nothing said (default 5 minutes).
   */
  testTimeoutMs?: number
  /**
   * The run belongs to an application serving real traffic (a run captured in a server), not to
   * a test: the tape changes nothing the run does. Nothing is refused or stubbed (a tool runs for
   * real even when it has a stub), a request made outside the run while it is open passes, and a
   * crossing the tape cannot record passes for real and fails the tape instead
   * ({@link Tape.failure}), so that its owner drops the recording rather than the run failing.
   */
  failOpen?: boolean
  /**
   * Where the run happens, for what a refusal tells the user to do: in a test (the default), in
   * a command recorded or replayed by `agent-tape record`/`replay` (its options are flags), or in
   * a server (a captured run, the default with {@link failOpen}).
   */
  runsIn?: RunPlace
  /**
   * Asked before a recording performs a decision for real, with the cassette it replaces: an
   * answer with `refused` keeps the decision from happening (the run fails with that error and
   * nothing is written); `settled` hears the decision once it has its outcome. What holds a
   * drift run to its budget (`agent-tape drift --budget-usd`).
   */
  liveGate?: LiveGate
}

/** A decision a recording is about to perform for real (see {@link TapeOptions.liveGate}). */
export interface LiveDecision {
  kind: string
  key: string
  /** Whether it asks a model for an answer: a model request, or a session's turn (see {@link BeginOptions}). */
  asksModel: boolean
  step: number
  lane?: string
  /** The cassette the recording replaces, when there is one. */
  committed: Cassette | undefined
}

/** What a {@link LiveGate} says of a decision: refused, or let through (and told of its outcome). */
export type LiveGateAnswer = { refused: AgentTapeError } | { settled?(record: DecisionRecord): void }

export type LiveGate = (decision: LiveDecision) => LiveGateAnswer

/** How a boundary qualifies a decision it begins (see `Tape.begin`). */
export interface BeginOptions {
  /**
   * The decision asks a model for an answer though its kind is not `llm`: a realtime session's
   * message that asks for a response (`response.create`, a complete turn). It starts a step as a
   * model request does, and counts as one wherever model requests are counted or held to a budget.
   */
  asksModel?: boolean
}

/** The handle of a decision begun with {@link Tape.begin}. */
export type BegunDecision =
  | { action: 'passthrough'; key: string }
  | { action: 'replay'; key: string; record: DecisionRecord }
  | {
      action: 'record'
      key: string
      complete(outcome: { out?: unknown; err?: RecordedError }, ms: number): void
    }

/** Where a tape's run happens (see {@link TapeOptions.runsIn}). */
export type RunPlace = 'test' | 'command' | 'server'

/**
 * A request as its boundary saw it on the wire, for {@link Tape.beginRequest}: what its canonical
 * input is computed from, and how to compute that input when it has to be.
 */
export interface WireRequest {
  /** The kind the request is decided under when its body reads as expected (`llm` for a model API). */
  kind: string
  /**
   * Everything besides the body that the canonical input is computed from (method, route,
   * query, the headers the key reads, and what the boundary chose to read the body with), as
   * one string: two requests with equal heads and equal bodies must have equal canonical inputs.
   */
  head: string
  /** The body's bytes as sent (`undefined` for none). */
  body: Uint8Array | undefined
  /** The decision's kind and canonical input: called only when the fingerprint does not answer. */
  decide(): { kind: string; input: unknown }
  /**
   * The place the run held for this request as it was sent (see `TapeInternals.reserveRequest`):
   * the decision takes that place (its number, step, lane and time) rather than the next one.
   */
  reserved?: ReservedRequest
}

/**
 * The place of a request in a recording, held as the request is sent and filled (or given up)
 * once the run is known to be kept: a run captured in a server observes its requests and decides
 * them only when the run ends, in the places they took as they happened.
 */
export interface ReservedRequest {
  /** The kind the place was held for: a model request (`llm`) started a new step. */
  readonly kind: string
  readonly position: DecisionPosition
  /** The lane the request was sent from (`''` the main lane). */
  readonly lane: string
  readonly decisionIndex: number
  /** Gives the place up: the request turned out to be nothing the run records (it passed). */
  release(): void
}
