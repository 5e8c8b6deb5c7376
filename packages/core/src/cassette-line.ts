import { isDecisionKey, KEY_SCHEME_VERSION } from './canonical-key.js'
import { CASSETTE_FORMAT_VERSION, type EncodedInput } from './cassette-encoding.js'
import type { CaptureSource, CassetteHeader, CommandSource, DecisionRecord } from './cassette-format.js'
import type { HarnessIdentity } from './harness.js'
import { AGENT_TAPE_VERSION } from './version.js'

// The shape of a cassette's lines, written once: each field of the header and of a decision, in
// the order a line writes them, with what a read checks of it and what two recordings of the
// same run may differ in. Writing (`headerLine`, `decisionLine`, `createHeader`), reading
// (`checkLine`) and comparing (`comparableHeader`, `comparableDecision`) all go through these
// tables, so a field added to the format is added here and to its type in `cassette-format.ts`.

/** One field of a line. */
interface Field<T> {
  name: keyof T & string
  /**
   * Why the value read is wrong (`undefined` when it is right). Absent: any value is kept. A
   * `fix` replaces the usual advice (restore the file or re-record) where that would not help.
   */
  check?: (value: unknown, line: Record<string, unknown>) => string | { why: string; fix: string } | undefined
  /** Whether a line writes the field; by default, when its value is not `undefined`. */
  written?: (record: T) => boolean
  /** The field when two recordings are compared: what changes on every recording is left out. */
  comparable?: (value: unknown) => unknown
}

export const HEADER_FIELDS: readonly Field<CassetteHeader>[] = [
  { name: 'agentTape', check: (v) => checkFormatVersion(v, CASSETTE_FORMAT_VERSION) },
  {
    name: 'keyScheme',
    check: (v) =>
      v === KEY_SCHEME_VERSION
        ? undefined
        : {
            why: `its keys use key scheme ${JSON.stringify(v)}, and this version of agent-tape computes scheme ${KEY_SCHEME_VERSION}`,
            fix: 'Re-record the test (keys cannot be recomputed from the redacted inputs)',
          },
  },
  { name: 'test', check: (v) => (typeof v === 'string' ? undefined : 'the header has no "test" id') },
  {
    name: 'recordedAt',
    check: (v) => (typeof v === 'string' ? undefined : 'the header has no "recordedAt" time'),
    comparable: () => '',
  },
  { name: 'harness', comparable: (v) => withoutCommit(v as HarnessIdentity | undefined) },
  { name: 'runtime', comparable: () => undefined },
  { name: 'sdks' },
  { name: 'envSalt' },
  { name: 'env' },
  { name: 'overlapped' },
  { name: 'source', check: (v) => (v === undefined ? undefined : checkSource(v)) },
  {
    name: 'ignore',
    check: (v) =>
      v === undefined || (Array.isArray(v) && v.every((path) => typeof path === 'string'))
        ? undefined
        : `the header's "ignore" is ${JSON.stringify(v)}, not a list of paths`,
  },
  { name: 'rerecordedFrom', check: (v) => (v === undefined ? undefined : checkRerecordedFrom(v)) },
]

/**
 * A decision line's fields. `in` stands for the input, which a format may write as other fields
 * (format 2's `base` and `patch`): its place in the line, checked by the format that reads it.
 */
export const DECISION_FIELDS: readonly Field<DecisionRecord>[] = [
  {
    name: 'seq',
    // The line's place in the file is checked by the reader, which knows it.
  },
  {
    name: 'key',
    check: (v) =>
      isDecisionKey(v) ? undefined : `"key" is ${JSON.stringify(v)}, not a key like "llm:0123456789abcdef"`,
  },
  {
    name: 'kind',
    check: (v, line) =>
      typeof v === 'string' && (line.key as string).startsWith(`${v}:`)
        ? undefined
        : `"kind" ${JSON.stringify(v)} does not match the key ${line.key}`,
  },
  {
    name: 'step',
    check: (v) =>
      typeof v === 'number' && Number.isInteger(v) && v >= 0
        ? undefined
        : `"step" is ${JSON.stringify(v)}, not a non-negative integer`,
  },
  {
    name: 'lane',
    check: (v) => (v === undefined || typeof v === 'string' ? undefined : '"lane" is not a string'),
  },
  {
    name: 'ms',
    check: (v) =>
      typeof v === 'number' && v >= 0 ? undefined : `"ms" is ${JSON.stringify(v)}, not a duration`,
    comparable: () => 0,
  },
  {
    name: 'at',
    check: (v) =>
      v === undefined || (typeof v === 'number' && Number.isInteger(v) && v >= 0)
        ? undefined
        : `"at" is ${JSON.stringify(v)}, not a time since the recording began (whole milliseconds)`,
    // Left out of a comparison whole, so that a recording written before it and its re-record compare equal.
    comparable: () => undefined,
  },
  {
    name: 'wire',
    check: (v) =>
      v === undefined || (typeof v === 'string' && /^[0-9a-f]{16}$/.test(v))
        ? undefined
        : `"wire" is ${JSON.stringify(v)}, not a fingerprint of 16 hex digits`,
  },
  { name: 'in' },
  {
    name: 'err',
    check: (v, line) => {
      if (v === undefined) return undefined
      if (!isRecord(v) || typeof v.name !== 'string' || typeof v.message !== 'string')
        return '"err" must be an object with a string name and message'
      return 'out' in line ? 'the decision has both "out" and "err"' : undefined
    },
    written: (d) => Boolean(d.err),
  },
  {
    name: 'out',
    // A decision that threw has no output, whatever its record holds.
    written: (d) => !d.err && d.out !== undefined,
    comparable: withoutTimings,
  },
]

/** The header as a line writes it: its fields in the table's order. */
export function headerLine(header: CassetteHeader): Record<string, unknown> {
  const line: Record<string, unknown> = {}
  for (const field of HEADER_FIELDS) line[field.name] = header[field.name]
  return line
}

/** A decision as a line writes it: its fields in the table's order, its input as `input` encodes it. */
export function decisionLine(d: DecisionRecord, input: EncodedInput): Record<string, unknown> {
  const line: Record<string, unknown> = {}
  for (const field of DECISION_FIELDS) {
    if (field.name === 'in')
      Object.assign(line, 'in' in input ? { in: input.in } : { base: input.base, patch: input.patch })
    else if (field.written ? field.written(d) : d[field.name] !== undefined) line[field.name] = d[field.name]
  }
  return line
}

/**
 * What two recordings of the same run share: the line without what changes on every recording
 * (the time and runtime, a harness's commit, durations and stream timings). A decision's input
 * is left out: the caller compares inputs by their encodings, which is cheaper.
 */
export function comparableHeader(header: CassetteHeader): string {
  const line: Record<string, unknown> = {}
  for (const field of HEADER_FIELDS) {
    const value = header[field.name]
    line[field.name] = field.comparable ? field.comparable(value) : value
  }
  return JSON.stringify(line)
}

export function comparableDecision(d: DecisionRecord): string {
  const line: Record<string, unknown> = {}
  for (const field of DECISION_FIELDS) {
    if (field.name === 'in') continue
    if (field.written ? !field.written(d) : d[field.name] === undefined) continue
    const value = d[field.name]
    line[field.name] = field.comparable ? field.comparable(value) : value
  }
  return JSON.stringify(line)
}

/**
 * The first problem of a line read against a table, checked in the table's order; `undefined`
 * when every field the table checks is right.
 */
export function checkLine<T>(
  fields: readonly Field<T>[],
  line: Record<string, unknown>,
): { why: string; fix?: string } | undefined {
  for (const field of fields) {
    const problem = field.check?.(line[field.name], line)
    if (problem !== undefined) return typeof problem === 'string' ? { why: problem } : problem
  }
  return undefined
}

/**
 * The fields of a decision that come before its input, in the file's order: the record a format
 * that rebuilds the input starts from (its outcome follows the input).
 */
export function fieldsBeforeInput(d: DecisionRecord): DecisionRecord {
  const record = {} as Record<string, unknown>
  for (const field of DECISION_FIELDS) {
    if (field.name === 'in') break
    if (d[field.name] !== undefined) record[field.name] = d[field.name]
  }
  return record as unknown as DecisionRecord
}

function checkFormatVersion(
  version: unknown,
  current: number,
): string | { why: string; fix: string } | undefined {
  if (typeof version !== 'number' || !Number.isInteger(version))
    return `the header's format version is ${JSON.stringify(version)}, not an integer`
  if (version > current)
    return {
      why: `it was written in cassette format ${version} by a newer agent-tape; this version reads format ${current}`,
      fix: 'Upgrade the @agent-tape packages, or re-record the test with this version',
    }
  if (version < 1) return `unknown cassette format version ${version}`
  return undefined
}

function checkRerecordedFrom(value: unknown): string | undefined {
  const bad = `the header's "rerecordedFrom" is ${JSON.stringify(value)}, not { seq, step, lane?, kept }`
  if (!isRecord(value)) return bad
  const { seq, step, lane, kept } = value
  const count = (n: unknown, min: number) => typeof n === 'number' && Number.isInteger(n) && n >= min
  if (!count(seq, 1) || !count(step, 0) || !count(kept, 0)) return bad
  return lane === undefined || typeof lane === 'string' ? undefined : bad
}

function checkSource(source: unknown): string | undefined {
  const bad = (why: string) => `the header's "source" ${why}`
  if (!isRecord(source)) return bad('is not an object')
  const { kind } = source
  if (kind === 'command') {
    const { argv, cwd } = source as Partial<CommandSource>
    if (!Array.isArray(argv) || !argv.every((a) => typeof a === 'string'))
      return bad('of a command has no "argv" list of strings')
    if (typeof cwd !== 'string') return bad('of a command has no "cwd"')
    const { upstreams } = source as Partial<CommandSource>
    if (
      upstreams !== undefined &&
      !(isRecord(upstreams) && Object.values(upstreams).every((u) => typeof u === 'string'))
    )
      return bad('of a command has "upstreams" that is not an object of URLs')
    return checkPlaceholders((source as Partial<CommandSource>).placeholders, argv, bad)
  }
  if (kind === 'capture') {
    const { name, runId } = source as Partial<CaptureSource>
    if (typeof name !== 'string' || typeof runId !== 'string')
      return bad('of a captured run has no "name" or "runId"')
    const { trace } = source as Partial<CaptureSource>
    if (
      trace !== undefined &&
      !(
        isRecord(trace) &&
        /^[0-9a-f]{32}$/.test(String(trace.traceId)) &&
        /^[0-9a-f]{16}$/.test(String(trace.spanId))
      )
    )
      return bad(
        'of a captured run has a "trace" that is not { traceId: 32 hex digits, spanId: 16 hex digits }',
      )
    return undefined
  }
  return bad(`has kind ${JSON.stringify(kind)}, not "command" or "capture"`)
}

/**
 * A command's placeholders, when it lists them: each names an argument of `argv` that holds
 * `[REDACTED:$<env>]`, so that a replay fills what the recording says it kept out.
 */
function checkPlaceholders(
  placeholders: unknown,
  argv: readonly string[],
  bad: (why: string) => string,
): string | undefined {
  if (placeholders === undefined) return undefined
  if (!Array.isArray(placeholders)) return bad('of a command has "placeholders" that is not a list')
  for (const [i, p] of placeholders.entries()) {
    const entry = `of a command has a placeholder (#${i})`
    if (!isRecord(p) || typeof p.env !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(p.env))
      return bad(`${entry} without an "env" variable name`)
    if (p.option !== undefined && typeof p.option !== 'string')
      return bad(`${entry} whose "option" is no string`)
    if (typeof p.arg !== 'number' || !Number.isInteger(p.arg) || p.arg < 0 || p.arg >= argv.length)
      return bad(`${entry} whose "arg" is not the index of an argument`)
    if (!argv[p.arg]!.includes(`[REDACTED:$${p.env}]`))
      return bad(`${entry} for argument ${p.arg}, which does not hold [REDACTED:$${p.env}]`)
  }
  return undefined
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

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** What a recording's header holds besides what this version writes in every one (see {@link createHeader}). */
export type HeaderFields = Omit<CassetteHeader, 'agentTape' | 'keyScheme' | 'recordedAt' | 'runtime'>

/**
 * The header of a cassette written now: this version's format and key scheme, the time and the
 * runtime, then `fields`, in the table's order. Every header agent-tape writes is made here.
 */
export function createHeader(fields: HeaderFields): CassetteHeader {
  const values: CassetteHeader = {
    ...fields,
    agentTape: CASSETTE_FORMAT_VERSION,
    keyScheme: KEY_SCHEME_VERSION,
    recordedAt: new Date().toISOString(),
    runtime: { node: process.version, platform: process.platform, agentTape: AGENT_TAPE_VERSION },
  }
  const header: Record<string, unknown> = {}
  for (const { name } of HEADER_FIELDS) if (values[name] !== undefined) header[name] = values[name]
  return header as unknown as CassetteHeader
}
