import { type EncodedInput, formatOf } from './cassette-encoding.js'
import type { Cassette, CassetteHeader, DecisionRecord } from './cassette-format.js'
import { CassetteInputs } from './cassette-inputs.js'
import { checkLine, DECISION_FIELDS, fieldsBeforeInput, HEADER_FIELDS, isRecord } from './cassette-line.js'
import { CassetteCorruptError } from './errors.js'

// Reading a cassette: its lines, each problem named with the file and line. What each field
// must be is in `cassette-line.ts`; how a format writes an input, in `format-1.ts`, `format-2.ts`.

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
      header = readHeader(value, file)
      continue
    }
    if (!header)
      throw notACassette(file, 'its first line is not a cassette header (it has no "agentTape" field)')
    decisions.push(
      readDecision(value, decisions, header.agentTape, inputs, (why) => corrupt(file, lineNo, why)),
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

function readHeader(value: Record<string, unknown>, file: string): CassetteHeader {
  const problem = checkLine(HEADER_FIELDS, value)
  if (problem) throw corrupt(file, 1, problem.why, problem.fix)
  return value as unknown as CassetteHeader
}

/**
 * A decision line read, with its input: as written (`in`), or rebuilt by the cassette's format
 * from what the line holds instead (format 2's `base` and `patch`, checked now).
 */
function readDecision(
  value: Record<string, unknown>,
  earlier: readonly DecisionRecord[],
  version: number,
  inputs: CassetteInputs,
  fail: (why: string) => CassetteCorruptError,
): DecisionRecord {
  const seq = earlier.length + 1
  if (value.seq !== seq)
    throw fail(
      `expected decision seq ${seq}, found ${JSON.stringify(value.seq)} (lines were removed or reordered)`,
    )
  const problem = checkLine(DECISION_FIELDS, value)
  if (problem) throw fail(problem.why)
  const decision = value as unknown as DecisionRecord
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
  return formatOf(version).readPatched({
    decision,
    value,
    earlier,
    inputs,
    fail,
    fieldsBeforeInput: () => fieldsBeforeInput(decision),
  })
}
