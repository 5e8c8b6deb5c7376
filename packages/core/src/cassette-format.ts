import type { DecisionKey } from './canonical-key.js'
import { CASSETTE_FORMAT_VERSION, type EncodedInput, encodeInputs } from './cassette-encoding.js'
import { comparableDecision, comparableHeader, decisionLine, headerLine } from './cassette-line.js'
import { encodingAsRead } from './cassette-read.js'
import type { HarnessIdentity } from './harness.js'

export { encodingAsRead, parseCassette } from './cassette-read.js'
export { CASSETTE_FORMAT_VERSION }

export interface CassetteHeader {
  /** Cassette format version. */
  agentTape: number
  /** Key scheme version the keys were computed with. */
  keyScheme: number
  /** The id of the test that owns the cassette. */
  test: string
  recordedAt: string
  harness?: HarnessIdentity
  runtime?: Record<string, string>
  /** Versions of the SDKs seen while recording, by package name: `{ "<sdk>": "6.49.0" }`. */
  sdks?: Record<string, string>
  /** The random salt of the env hashes (absent in cassettes written before salting). */
  envSalt?: string
  /** Environment keys read through `tape.env`, with salted sha256 hashes of their values. */
  env?: Record<string, string | null>
  /** Model requests of one lane were in flight together while recording (concurrent branches without lanes). */
  overlapped?: true
  /** Where the run was recorded when not by a test: a command, or a run captured in a server. */
  source?: RecordingSource
  /**
   * The paths the keys leave out (the tape's `ignore` rules), for people reading the cassette:
   * the fields are stored, and no key depends on them.
   */
  ignore?: string[]
  /**
   * Set by a re-record in `resume` mode (see {@link RerecordedFrom}): where the run stopped
   * matching the cassette it replaced and began to be recorded live.
   */
  rerecordedFrom?: RerecordedFrom
}

/**
 * Where a `resume` re-record began to record: the first decision recorded live, by its `seq` in
 * this cassette, its step and lane. Each lane switches at its own first miss, so a lane other than
 * this one may have replayed decisions after it; `kept` counts every decision replayed from the
 * cassette this one replaced and kept as it was recorded.
 */
export interface RerecordedFrom {
  seq: number
  step: number
  /** The lane of that decision (absent in the main lane). */
  lane?: string
  /** Decisions kept from the earlier recording. */
  kept: number
}

/**
 * Where a recording was made outside a test runner, with what replaying or promoting it needs.
 * Written by whoever opened the tape (the CLI's `record`, the capture library); core only carries
 * it. Every string in it is scanned for secrets like the rest of the cassette.
 */
export type RecordingSource = CommandSource | CaptureSource

/** A run recorded by `agent-tape record -- <command>`. */
export interface CommandSource {
  kind: 'command'
  /**
   * The command and its arguments, each secret in them replaced by a placeholder
   * `[REDACTED:$NAME]` that a replay fills from the environment variable `NAME` (an older
   * agent-tape wrote a plain `REDACTED`, which a replay refuses).
   */
  argv: string[]
  /** The placeholders in `argv`, one entry each (absent when it holds none, and in older cassettes). */
  placeholders?: CommandPlaceholder[]
  /** The working directory, relative to the project root (`.` for the root itself). */
  cwd: string
  /** The command's exit code (`null` when a signal ended it). */
  exitCode?: number | null
  /** The signal that ended the command, when one did. */
  signal?: string
  /**
   * The model endpoints the recording was told of beyond the known provider hosts (base URLs):
   * a replay must class the same requests as model requests to find their decisions.
   */
  modelEndpoints?: string[]
  /**
   * The upstream of each route of the gateway (`openai`: `https://api.openai.com/v1`) while
   * processes outside Node made requests through it: a replay keys their requests with the same
   * URLs. Absent when none did.
   */
  upstreams?: Record<string, string>
}

/**
 * A secret kept out of a recorded command line: argument `arg` holds `[REDACTED:$<env>]` where the
 * secret was, and a replay runs the command with the value of the variable `env` there.
 */
export interface CommandPlaceholder {
  /** The argument's index in `argv`, counting from 0 (the program). */
  arg: number
  /** The environment variable a replay reads the value from (`DB_PASSWORD`, `AGENT_TAPE_ARG_4`). */
  env: string
  /** The option the value belongs to (`--password`, `-p`, `-u`), when it is an option's. */
  option?: string
}

/** One agent run captured in a long-running process by the capture library. */
export interface CaptureSource {
  kind: 'capture'
  /** The name the app gave the run (`capture.run(name, …)`). */
  name: string
  /** A unique id of this run, also in the file name and on the active trace span. */
  runId: string
  /** The run's input, as JSON, so that a test can call the agent again with it. */
  input?: unknown
  /** How the run ended: what it returned, or what it threw or why the app marked it failed. */
  outcome?: CaptureOutcome
  /**
   * The OpenTelemetry trace and span that were active as the run started (the request's span),
   * when the app traces: `agent-tape promote --trace <trace id>` finds the run by them.
   */
  trace?: { traceId: string; spanId: string }
}

/**
 * How a captured run ended. A failed run either threw (`error`) or was marked failed by the app
 * (`reason`, from `capture.fail(reason)`); one marked failed may still have returned a `value`,
 * which a promoted test asserts as it asserts the value of a run that succeeded.
 */
export type CaptureOutcome =
  | { ok: true; value?: unknown }
  | { ok: false; error?: RecordedError; reason?: string; value?: unknown }

/** An error thrown by a boundary while recording, replayed as an error with the same name and message. */
export interface RecordedError {
  name: string
  message: string
  code?: string | number
}

/** One line of a cassette: a decision, in the order the run made it. */
export interface DecisionRecord {
  seq: number
  key: DecisionKey
  kind: string
  step: number
  lane?: string
  /** Wall-clock milliseconds of the real call. */
  ms: number
  /**
   * When the real call began: whole milliseconds from the recording's first moment (as its tape
   * opened), on a monotonic clock. Absent in cassettes recorded before it was written, and on a
   * diverged run's misses. Like `ms`, it changes on every recording, so comparing two recordings
   * leaves it out.
   */
  at?: number
  /**
   * A fingerprint of the request as the boundary saw it on the wire (16 hex digits of a sha256
   * over the bytes that decide its canonical input, and its position). Replay takes the decision
   * with the same fingerprint without canonicalizing the request; absent on other decisions.
   */
  wire?: string
  /**
   * The redacted canonical input, for humans and diffs; always whole in memory, whatever the
   * file stores (see {@link encodeInputs}). Replay matches on `key`.
   */
  in: unknown
  /** The recorded output (absent when the call returned `undefined` or threw). */
  out?: unknown
  /** The recorded error, when the call threw. */
  err?: RecordedError
}

export interface Cassette {
  header: CassetteHeader
  decisions: DecisionRecord[]
}

/**
 * Serializes a cassette as JSON Lines in the format its header names: the header, then one line
 * per decision, each with its fields in the order of `cassette-line.ts`. `encoded` is
 * {@link encodeInputs} of the cassette, when the caller has it already.
 */
export function serializeCassette(cassette: Cassette, encoded = encodeInputs(cassette)): string {
  const lines = [JSON.stringify(headerLine(cassette.header))]
  cassette.decisions.forEach((d, i) => {
    lines.push(JSON.stringify(decisionLine(d, encoded[i]!)))
  })
  return `${lines.join('\n')}\n`
}

/**
 * True when two cassettes record the same run: everything equal except the fields that change
 * on every recording (`recordedAt`, durations, the runtime, the commit the harness tree was read
 * at). Used to avoid rewriting an unchanged cassette.
 */
export function isSameRecording(
  a: Cassette,
  b: Cassette,
  encoded: { a?: EncodedInput[]; b?: EncodedInput[] } = {},
): boolean {
  if (a.decisions.length !== b.decisions.length) return false
  if (comparableHeader(a.header) !== comparableHeader(b.header)) return false
  // Everything but the input: the keys differ first when the inputs do.
  if (!a.decisions.every((d, i) => comparableDecision(d) === comparableDecision(b.decisions[i]!)))
    return false
  // Equal encodings mean equal inputs (a patch rebuilds its input from an equal base), and the
  // comparison reads each patch, not each input. A loaded cassette gives the encoding it was
  // read in; where that differs from the other's (an older writer's choice), the inputs decide.
  const inputsA = encoded.a ?? encodingAsRead(a) ?? encodeInputs(a)
  const inputsB = encoded.b ?? encodingAsRead(b) ?? encodeInputs(b)
  return a.decisions.every((d, i) => {
    const x = inputsA[i]!
    const y = inputsB[i]!
    if (encodedText(x) === encodedText(y)) return true
    return JSON.stringify(d.in) === JSON.stringify(b.decisions[i]!.in)
  })
}

function encodedText(input: EncodedInput): string {
  return JSON.stringify('in' in input ? { in: input.in } : { base: input.base, patch: input.patch })
}
