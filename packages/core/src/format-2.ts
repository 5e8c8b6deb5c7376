import type { CassetteFormat, EncodedInput } from './cassette-encoding.js'
import type { DecisionRecord } from './cassette-format.js'
import { laneOf } from './cassette-inputs.js'
import { computePatch, jsonLongerThan, PatchError, validatePatch } from './json-patch.js'

/**
 * Inputs whose JSON is at most this long are always written whole. A history worth patching
 * is longer; a tool call's arguments or a short first request read better whole, and load
 * without applying a patch.
 */
export const MIN_PATCHED_INPUT = 1024

/**
 * Format 2: an input may be written as a patch over the input of an earlier decision of the
 * same kind and lane (`base`, `patch`; decision 0014), rebuilt when read (decision 0019).
 */
export const FORMAT_2: CassetteFormat = {
  version: 2,
  encodeInputs: encodePatched,
  readPatched({ decision, value, earlier, inputs, fail, fieldsBeforeInput }) {
    if (!('base' in value))
      throw fail('the decision has a "patch" and no "base" (the decision the patch applies to)')
    if (!('patch' in value)) throw fail('the decision has a "base" and no "patch"')
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
      const record = fieldsBeforeInput()
      inputs.patched(record, base, value.patch)
      if (decision.err !== undefined) record.err = decision.err
      else if ('out' in decision) record.out = decision.out
      return record
    } catch (error) {
      if (!(error instanceof PatchError)) throw error
      throw fail(`the patch over the input of decision #${baseSeq} does not apply: ${error.message}`)
    }
  },
}

/**
 * An input is a patch over the input of the nearest earlier decision of the same kind and lane
 * whenever the input's JSON is longer than {@link MIN_PATCHED_INPUT} and the patch's JSON is
 * shorter than the input's: an agent loop that sends its whole history again at every step then
 * writes only what the step added. Deterministic: the same cassette, the same encoding.
 */
function encodePatched(decisions: readonly DecisionRecord[]): EncodedInput[] {
  const last = new Map<string, DecisionRecord>()
  return decisions.map((d) => {
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
