import { decisionLabel, describePosition } from './describe-decision.js'
import { createDivergence, type DivergenceContext, type DivergenceError } from './divergence.js'
import type { ReplayIndex } from './replay-index.js'

const LISTED = 5

/**
 * End-of-run check of a replay: recorded decisions that the run never asked for mean it
 * stopped early or took another path, which is a divergence unless the user opted out.
 */
export function checkRun(
  index: ReplayIndex,
  context: DivergenceContext,
  failOnUnused: boolean,
): DivergenceError[] {
  const unused = index.unused()
  if (unused.length === 0 || !failOnUnused) return []
  const lines = [`  cassette  ${context.cassettePath}`, '', '  Unused recorded decisions:']
  for (const d of unused.slice(0, LISTED)) {
    lines.push(`    #${d.seq} ${d.key}, ${decisionLabel(d)} at ${describePosition(d.step, d.lane)}`)
  }
  if (unused.length > LISTED) lines.push(`    … and ${unused.length - LISTED} more`)
  return [
    createDivergence('ERR_TAPE_UNUSED', {
      what: `Run finished after ${index.consumed} of ${index.total} recorded decisions`,
      why: `${unused.length} recorded decision${unused.length === 1 ? ' was' : 's were'} never asked for, so the run stopped early or took another path`,
      fix: `If the change is intended, re-record this test: ${context.rerecordCommand} (or set failOnUnused: false to allow it)`,
      details: lines,
    }),
  ]
}
