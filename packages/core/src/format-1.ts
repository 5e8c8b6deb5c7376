import type { CassetteFormat } from './cassette-encoding.js'

/**
 * Format 1: every input whole, in `in`. Read; written only for a cassette whose header names it
 * (a recording is written in the current format).
 */
export const FORMAT_1: CassetteFormat = {
  version: 1,
  encodeInputs: (decisions) => decisions.map((d) => ({ in: d.in })),
  readPatched({ value, fail }) {
    throw fail(
      `the decision has a ${'patch' in value ? '"patch"' : '"base"'}, and format 1 stores every input whole in "in"`,
    )
  },
}
