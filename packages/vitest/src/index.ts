import type { Tape } from '@agent-tape/core'
import { test as base, type TestAPI } from 'vitest'
import { tapeFixture } from './fixture.js'
import { trackTapeNames } from './track-names.js'

/** The test API of `it.tape`: Vitest's own, with the test's `tape` in the context. */
export type TapeTestAPI = TestAPI<{ tape: Tape }>

const tapeTest: TapeTestAPI = base.extend<{ tape: Tape }>({
  // auto: the tape is open (and checked) even when the body never destructures it.
  tape: [tapeFixture, { auto: true }],
})

/**
 * Vitest's `it`, plus `it.tape(name, fn)`: a test whose boundaries are recorded to, and
 * replayed from, the cassette `__cassettes__/<test file>/<describe>/…/<name>.jsonl` beside the test.
 * `it.tape` has `.concurrent`, `.skip`, `.only`, `.for`, `.skipIf` … like `it`.
 *
 * @example
 * import { expect, it } from '@agent-tape/vitest'
 * it.tape('issue-412', async ({ tape }) => {
 *   const tools = tape.tools({ lookup_invoice })
 *   expect(await runAgent('Refund invoice 412', { tools })).toMatch(/refunded/)
 * })
 */
export const it: TestAPI & { tape: TapeTestAPI } = Object.assign(base, {
  tape: trackTapeNames(tapeTest),
})

/** Same as {@link it}. */
export const test: TestAPI & { tape: TapeTestAPI } = it

export type { McpTransport, Tape, TapeMcpOptions, TapeState } from '@agent-tape/core'
export { tapeMcpTransport } from '@agent-tape/core'
export {
  afterEach,
  beforeEach,
  describe,
  expect,
  onTestFailed,
  onTestFinished,
  vi,
} from 'vitest'
export type { TapeRuntimeOptions } from './configure.js'
export { configureTape } from './configure.js'
export type { TapeMatchers } from './matchers.js'
export type { TapeMeta } from './meta.js'
export type { AfterAllWithTape, BeforeAllWithTape, SetupTapeContext, SetupTapeDefine } from './setup-hooks.js'
export { afterAll, beforeAll } from './setup-hooks.js'
