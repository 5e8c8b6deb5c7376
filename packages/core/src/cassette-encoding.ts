import type { Cassette, DecisionRecord } from './cassette-format.js'
import type { CassetteInputs } from './cassette-inputs.js'
import type { CassetteCorruptError } from './errors.js'
import { FORMAT_1 } from './format-1.js'
import { FORMAT_2 } from './format-2.js'
import type { DiffOp, PatchOp } from './json-patch.js'

/**
 * How a decision's input is written: whole (`in`), or as a patch over the input of an earlier
 * decision (`base`, `patch`); `ops` says where each operation's value lands in the input.
 */
export type EncodedInput = { in: unknown } | { base: number; patch: PatchOp[]; ops: DiffOp[] }

/** A decision line read, whose input is not written whole in `in`. */
export interface PatchedLine {
  /** The decision's fields, as `DECISION_FIELDS` checked them. */
  decision: DecisionRecord
  /** The line as read. */
  value: Record<string, unknown>
  /** The decisions read before it, in order. */
  earlier: readonly DecisionRecord[]
  inputs: CassetteInputs
  fail: (why: string) => CassetteCorruptError
  /** A new record of the decision's fields before its input, in the file's order, to rebuild it on. */
  fieldsBeforeInput: () => DecisionRecord
}

/**
 * What sets one cassette format apart from another: how a decision's input is written and read.
 * A line's fields are the same in every format (`cassette-line.ts`).
 */
export interface CassetteFormat {
  version: number
  /** How each decision's input is written, in the cassette's order. Deterministic. */
  encodeInputs(decisions: readonly DecisionRecord[]): EncodedInput[]
  /**
   * Reads a decision whose line has a `base` or a `patch` instead of `in`, or throws what `fail`
   * makes of it.
   */
  readPatched(line: PatchedLine): DecisionRecord
}

/** Every format this version reads, by version. A format added here is the one it writes. */
const FORMATS: readonly CassetteFormat[] = [FORMAT_1, FORMAT_2]

/**
 * Version of the cassette file format (the header's `agentTape` field): the last of
 * {@link FORMATS}. Format 2 may write a decision's input as a patch over an earlier one; format 1
 * files are still read.
 */
export const CASSETTE_FORMAT_VERSION: number = FORMATS[FORMATS.length - 1]!.version

/**
 * The format of a cassette whose header names `version`. A read refuses other versions; a
 * cassette made in memory with one is written in the nearest format.
 */
export function formatOf(version: number): CassetteFormat {
  return FORMATS[Math.max(1, Math.min(version, FORMATS.length)) - 1]!
}

/** How each decision's input is written in `cassette`'s format. */
export function encodeInputs(cassette: Cassette): EncodedInput[] {
  return formatOf(cassette.header.agentTape).encodeInputs(cassette.decisions)
}
