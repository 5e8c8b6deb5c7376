import { type DecisionKey, isDecisionKey, KEY_SCHEME_VERSION } from './canonical-key.js'
import { type EncodedInput, encodeInputs, PATCHED_INPUTS_FROM } from './cassette-encoding.js'
import { CassetteInputs } from './cassette-inputs.js'
import { CassetteCorruptError } from './errors.js'
import type { HarnessIdentity } from './harness.js'
import { PatchError, validatePatch } from './json-patch.js'

/**
 * Version of the cassette file format (the header's `agentTape` field). Format 2 may write a
 * decision's input as a patch over an earlier one; format 1 files are still read.
 */
export const CASSETTE_FORMAT_VERSION = 2

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
  /** The command and its arguments, with secrets in them redacted. */
  argv: string[]
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
 * per decision. `encoded` is {@link encodeInputs} of the cassette, when the caller has it already.
 */
export function serializeCassette(cassette: Cassette, encoded = encodeInputs(cassette)): string {
  const h = cassette.header
  const header = {
    agentTape: h.agentTape,
    keyScheme: h.keyScheme,
    test: h.test,
    recordedAt: h.recordedAt,
    harness: h.harness,
    runtime: h.runtime,
    sdks: h.sdks,
    envSalt: h.envSalt,
    env: h.env,
    overlapped: h.overlapped,
    source: h.source,
    ignore: h.ignore,
  }
  const lines = [JSON.stringify(header)]
  cassette.decisions.forEach((d, i) => {
    lines.push(JSON.stringify(orderDecision(d, encoded[i]!)))
  })
  return `${lines.join('\n')}\n`
}

function orderDecision(d: DecisionRecord, input: EncodedInput): Record<string, unknown> {
  const line: Record<string, unknown> = {
    seq: d.seq,
    key: d.key,
    kind: d.kind,
    step: d.step,
    lane: d.lane,
    ms: d.ms,
    wire: d.wire,
  }
  if ('in' in input) line.in = input.in
  else {
    line.base = input.base
    line.patch = input.patch
  }
  if (d.err) line.err = d.err
  else if (d.out !== undefined) line.out = d.out
  return line
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
  const header = (c: Cassette) =>
    serializeCassette({
      header: { ...c.header, recordedAt: '', runtime: undefined, harness: withoutCommit(c.header.harness) },
      decisions: [],
    })
  if (a.decisions.length !== b.decisions.length || header(a) !== header(b)) return false
  // Equal encodings mean equal inputs (the encoding is a function of the inputs, and a patch
  // rebuilds its input from an equal base), and the comparison reads each patch, not each input.
  // Everything but the input: the keys differ first when the inputs do.
  const rest = (d: DecisionRecord) =>
    JSON.stringify(
      orderDecision(
        {
          seq: d.seq,
          key: d.key,
          kind: d.kind,
          step: d.step,
          ...(d.lane === undefined ? {} : { lane: d.lane }),
          ms: 0,
          ...(d.wire === undefined ? {} : { wire: d.wire }),
          in: undefined,
          ...(d.err === undefined ? {} : { err: d.err }),
          ...(d.out === undefined ? {} : { out: withoutTimings(d.out) }),
        },
        { in: undefined },
      ),
    )
  if (!a.decisions.every((d, i) => rest(d) === rest(b.decisions[i]!))) return false
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

/** Numeric timing fields of recorded outputs: a stream event's `t`, a response's `headersAt`. */
const TIMING_FIELDS = new Set(['t', 'headersAt'])

function withoutTimings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimings)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      TIMING_FIELDS.has(k) && typeof v === 'number' ? 0 : withoutTimings(v),
    ]),
  )
}

function withoutCommit(harness: HarnessIdentity | undefined): HarnessIdentity | undefined {
  return harness?.git ? { ...harness, commit: '' } : harness
}

const RECOVER =
  'Restore it from version control (git checkout -- <file>), or delete it and re-record the test'

function corrupt(file: string, line: number, why: string, fix = RECOVER): CassetteCorruptError {
  return new CassetteCorruptError(
    { what: `Cannot load cassette ${file} (line ${line})`, why, fix: fix.replace('<file>', file) },
    file,
    line,
  )
}

const PASS_A_CASSETTE =
  'Pass the path of a .jsonl cassette (they are in the __cassettes__ folders beside the tests)'

/**
 * A file that is not a cassette at all. Only a `.jsonl` file may be a cassette whose header was
 * lost, so only there is restoring it from version control suggested: for `package.json` or a
 * README, `git checkout --` would be advice to throw away the user's edits to a file that was
 * never ours.
 */
function notACassette(file: string, why: string): CassetteCorruptError {
  const fix = file.endsWith('.jsonl')
    ? `${PASS_A_CASSETTE}; if this file is a cassette whose header was lost, restore it from version control (git checkout -- ${file})`
    : PASS_A_CASSETTE
  return new CassetteCorruptError({ what: `${file} is not a cassette`, why, fix }, file, 1)
}

function isJsonDocument(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** Parses and validates a cassette. Nothing in it is evaluated; every problem names file and line. */
export function parseCassette(source: string, file: string): Cassette {
  // Some Windows editors begin a UTF-8 file with a byte-order mark; it is not part of the JSON.
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source
  if (text.trim() === '') throw corrupt(file, 1, 'the file is empty (a cassette starts with a header line)')
  const rawLines = text.split('\n')
  const endsCleanly = text.endsWith('\n')
  if (endsCleanly) rawLines.pop()
  let header: CassetteHeader | undefined
  const decisions: DecisionRecord[] = []
  const inputs = new CassetteInputs()
  for (let i = 0; i < rawLines.length; i++) {
    const lineNo = i + 1
    const raw = rawLines[i]!
    if (raw.trim() === '') throw corrupt(file, lineNo, 'the line is blank (cassettes have no blank lines)')
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch (error) {
      if (lineNo === 1 && isJsonDocument(text))
        throw notACassette(file, 'it is a JSON document, and a cassette is JSON Lines')
      // A .jsonl file whose first line is damaged may be a cassette; any other file is not one.
      if (lineNo === 1 && !file.endsWith('.jsonl'))
        throw notACassette(file, 'its first line is not JSON, and a cassette is JSON Lines')
      const last = i === rawLines.length - 1 && !endsCleanly
      throw corrupt(
        file,
        lineNo,
        last
          ? 'the line is truncated (the file ends in the middle of a JSON line, as when a write is interrupted)'
          : `the line is not valid JSON (${(error as Error).message})`,
      )
    }
    if (!isRecord(value)) {
      if (lineNo === 1 && !file.endsWith('.jsonl'))
        throw notACassette(
          file,
          'its first line is not a JSON object, and a cassette is JSON Lines of objects',
        )
      throw corrupt(file, lineNo, 'the line is not a JSON object')
    }
    if ('agentTape' in value) {
      if (header)
        throw corrupt(file, lineNo, 'the line is a second header (a cassette has exactly one, on line 1)')
      if (lineNo !== 1) throw corrupt(file, lineNo, 'the header must be the first line')
      header = validateHeader(value, file)
      continue
    }
    if (!header)
      throw notACassette(file, 'its first line is not a cassette header (it has no "agentTape" field)')
    const decision = validateDecision(value, file, lineNo, decisions.length + 1)
    decisions.push(
      validateInput(decision, value, decisions, header.agentTape, inputs, (why) =>
        corrupt(file, lineNo, why),
      ),
    )
  }
  if (!header) throw corrupt(file, 1, 'the file has no header line')
  const cassette = { header, decisions }
  readEncodings.set(cassette, inputs.done())
  return cassette
}

const readEncodings = new WeakMap<Cassette, EncodedInput[]>()

/**
 * How the inputs of a cassette returned by {@link parseCassette} were written in its file: what
 * {@link encodeInputs} computes again, for a cassette written by this version, from every whole
 * input. Reading it costs nothing: the secret scan and the comparison with a new recording read
 * each patch once, instead of rebuilding a long run's every input.
 */
export function encodingAsRead(cassette: Cassette): EncodedInput[] | undefined {
  return readEncodings.get(cassette)
}

function validateSource(source: unknown, file: string): void {
  const bad = (why: string) => corrupt(file, 1, `the header's "source" ${why}`)
  if (typeof source !== 'object' || source === null || Array.isArray(source)) throw bad('is not an object')
  const { kind } = source as { kind?: unknown }
  if (kind === 'command') {
    const { argv, cwd } = source as Partial<CommandSource>
    if (!Array.isArray(argv) || !argv.every((a) => typeof a === 'string'))
      throw bad('of a command has no "argv" list of strings')
    if (typeof cwd !== 'string') throw bad('of a command has no "cwd"')
  } else if (kind === 'capture') {
    const { name, runId } = source as Partial<CaptureSource>
    if (typeof name !== 'string' || typeof runId !== 'string')
      throw bad('of a captured run has no "name" or "runId"')
  } else throw bad(`has kind ${JSON.stringify(kind)}, not "command" or "capture"`)
}

function validateHeader(value: Record<string, unknown>, file: string): CassetteHeader {
  const version = value.agentTape
  if (typeof version !== 'number' || !Number.isInteger(version)) {
    throw corrupt(file, 1, `the header's format version is ${JSON.stringify(version)}, not an integer`)
  }
  if (version > CASSETTE_FORMAT_VERSION) {
    throw corrupt(
      file,
      1,
      `it was written in cassette format ${version} by a newer agent-tape; this version reads format ${CASSETTE_FORMAT_VERSION}`,
      'Upgrade the @agent-tape packages, or re-record the test with this version',
    )
  }
  if (version < 1) throw corrupt(file, 1, `unknown cassette format version ${version}`)
  if (value.keyScheme !== KEY_SCHEME_VERSION) {
    throw corrupt(
      file,
      1,
      `its keys use key scheme ${JSON.stringify(value.keyScheme)}, and this version of agent-tape computes scheme ${KEY_SCHEME_VERSION}`,
      'Re-record the test (keys cannot be recomputed from the redacted inputs)',
    )
  }
  if (typeof value.test !== 'string') throw corrupt(file, 1, 'the header has no "test" id')
  if (typeof value.recordedAt !== 'string') throw corrupt(file, 1, 'the header has no "recordedAt" time')
  if (value.source !== undefined) validateSource(value.source, file)
  if (
    value.ignore !== undefined &&
    (!Array.isArray(value.ignore) || value.ignore.some((path) => typeof path !== 'string'))
  )
    throw corrupt(file, 1, `the header's "ignore" is ${JSON.stringify(value.ignore)}, not a list of paths`)
  return value as unknown as CassetteHeader
}

function validateDecision(
  value: Record<string, unknown>,
  file: string,
  line: number,
  seq: number,
): DecisionRecord {
  const fail = (why: string) => corrupt(file, line, why)
  if (value.seq !== seq)
    throw fail(
      `expected decision seq ${seq}, found ${JSON.stringify(value.seq)} (lines were removed or reordered)`,
    )
  if (!isDecisionKey(value.key))
    throw fail(`"key" is ${JSON.stringify(value.key)}, not a key like "llm:0123456789abcdef"`)
  if (typeof value.kind !== 'string' || !value.key.startsWith(`${value.kind}:`)) {
    throw fail(`"kind" ${JSON.stringify(value.kind)} does not match the key ${value.key}`)
  }
  if (typeof value.step !== 'number' || !Number.isInteger(value.step) || value.step < 0) {
    throw fail(`"step" is ${JSON.stringify(value.step)}, not a non-negative integer`)
  }
  if (value.lane !== undefined && typeof value.lane !== 'string') throw fail('"lane" is not a string')
  if (typeof value.ms !== 'number' || value.ms < 0)
    throw fail(`"ms" is ${JSON.stringify(value.ms)}, not a duration`)
  if (value.wire !== undefined && (typeof value.wire !== 'string' || !/^[0-9a-f]{16}$/.test(value.wire)))
    throw fail(`"wire" is ${JSON.stringify(value.wire)}, not a fingerprint of 16 hex digits`)
  if (value.err !== undefined) {
    const err = value.err
    if (!isRecord(err) || typeof err.name !== 'string' || typeof err.message !== 'string') {
      throw fail('"err" must be an object with a string name and message')
    }
    if ('out' in value) throw fail('the decision has both "out" and "err"')
  }
  return value as unknown as DecisionRecord
}

/**
 * The decision with its input: as written (`in`), or rebuilt when read from the input of its base
 * and its patch (see {@link CassetteInputs}), the patch checked now.
 */
function validateInput(
  decision: DecisionRecord,
  value: Record<string, unknown>,
  earlier: readonly DecisionRecord[],
  version: number,
  inputs: CassetteInputs,
  fail: (why: string) => CassetteCorruptError,
): DecisionRecord {
  const hasPatch = 'patch' in value
  const hasBase = 'base' in value
  if ('in' in value) {
    if (hasPatch || hasBase)
      throw fail(
        `the decision has both "in" and ${hasPatch ? '"patch"' : '"base"'} (its input is one or the other)`,
      )
    inputs.whole(decision)
    return decision
  }
  if (!hasPatch && !hasBase) throw fail('the decision has no "in" field (nor "base" and "patch")')
  if (version < PATCHED_INPUTS_FROM)
    throw fail(
      `the decision has a ${hasPatch ? '"patch"' : '"base"'}, and format ${version} stores every input whole in "in"`,
    )
  if (!hasBase) throw fail('the decision has a "patch" and no "base" (the decision the patch applies to)')
  if (!hasPatch) throw fail('the decision has a "base" and no "patch"')
  const seq = decision.seq
  const baseSeq = value.base
  if (typeof baseSeq !== 'number' || !Number.isInteger(baseSeq) || baseSeq < 1 || baseSeq >= seq)
    throw fail(`"base" is ${JSON.stringify(baseSeq)}, not the seq of an earlier decision (1 to ${seq - 1})`)
  const base = earlier[baseSeq - 1]!
  if (base.kind !== decision.kind || base.lane !== decision.lane) {
    const describe = (d: DecisionRecord) =>
      `kind ${JSON.stringify(d.kind)}, ${d.lane === undefined ? 'main lane' : `lane ${JSON.stringify(d.lane)}`}`
    throw fail(
      `"base" ${baseSeq} is a decision of ${describe(base)}, and this one is of ${describe(decision)} (a patch applies to an input of the same kind and lane)`,
    )
  }
  try {
    validatePatch(value.patch)
    const record = withInput(decision)
    inputs.patched(record, base, value.patch)
    if (decision.err !== undefined) record.err = decision.err
    else if ('out' in decision) record.out = decision.out
    return record
  } catch (error) {
    if (!(error instanceof PatchError)) throw error
    throw fail(`the patch over the input of decision #${baseSeq} does not apply: ${error.message}`)
  }
}

/** The decision's fields before its input, in the file's order (its input and outcome follow). */
function withInput(d: DecisionRecord): DecisionRecord {
  const record = { seq: d.seq, key: d.key, kind: d.kind, step: d.step } as DecisionRecord
  if (d.lane !== undefined) record.lane = d.lane
  record.ms = d.ms
  if (d.wire !== undefined) record.wire = d.wire
  return record
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
