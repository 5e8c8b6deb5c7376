import type { Cassette, DecisionRecord } from './cassette-format.js'
import { computePatch, type DiffOp, jsonLongerThan, type PatchOp } from './json-patch.js'

/**
 * How a decision's input is written: whole (`in`), or as a patch over the input of an earlier
 * decision (`base`, `patch`); `ops` says where each operation's value lands in the input.
 */
export type EncodedInput = { in: unknown } | { base: number; patch: PatchOp[]; ops: DiffOp[] }

/**
 * The first cassette format whose decisions may store their input as a patch over an earlier
 * one (format 1 writes every input whole).
 */
export const PATCHED_INPUTS_FROM = 2

/**
 * Inputs whose JSON is at most this long are always written whole. A history worth patching
 * is longer; a tool call's arguments or a short first request read better whole, and load
 * without applying a patch.
 */
export const MIN_PATCHED_INPUT = 1024

/**
 * How each decision's input is written in `cassette`'s format. From format 2, an input is a patch
 * over the input of the nearest earlier decision of the same kind and lane whenever the input's
 * JSON is longer than {@link MIN_PATCHED_INPUT} and the patch's JSON is shorter than the input's:
 * an agent loop that sends its whole history again at every step then writes only what the
 * step added. Deterministic: the same cassette, the same encoding.
 */
export function encodeInputs(cassette: Cassette): EncodedInput[] {
  const patched = cassette.header.agentTape >= PATCHED_INPUTS_FROM
  const last = new Map<string, DecisionRecord>()
  return cassette.decisions.map((d) => {
    if (!patched) return { in: d.in }
    const lane = laneOf(d)
    const base = last.get(lane)
    last.set(lane, d)
    if (!base || base.in === undefined || d.in === undefined) return { in: d.in }
    // A small input is written whole: a patch would save a few bytes and cost a step at load.
    if (!jsonLongerThan(d.in, MIN_PATCHED_INPUT)) return { in: d.in }
    const ops = computePatch(base.in, d.in)
    const patch = ops.map((o) => o.op)
    // An input sent again unchanged (a retry) is an empty patch.
    if (jsonLongerThan(d.in, JSON.stringify(patch).length)) return { base: base.seq, patch, ops }
    return { in: d.in }
  })
}

/** The inputs' lane of a decision: its kind and lane (the main lane when it has none). */
export function laneOf(d: { kind: string; lane?: string | undefined }): string {
  return d.lane === undefined ? `${d.kind}\n` : `${d.kind}\n\n${d.lane}`
}
