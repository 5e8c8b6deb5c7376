// What defining and running a test's tape needs: tape names and the registry that refuses two
// tapes with one cassette, the runtime options of setup files, a test's tape (open, finish,
// report), and how its failure is put first. Loaded by a test file that defines tapes, not by the
// setup file every test file runs. Same no-semver promise as the main entry.
export { assertTapeName, toPosix } from '../cassette-path.js'
export { TapeNameRegistry } from '../name-registry.js'
export type { RuntimeOptionsSlot, TapeRuntimeOptions } from '../runtime-options.js'
export { createRuntimeOptionsSlot } from '../runtime-options.js'
export type { SetupHook, SetupTapeContext, SetupTapeInput } from '../setup-tape.js'
export { describeSetupHook, runSetupTape, SETUP_HOOKS, setupTapeNames } from '../setup-tape.js'
export type { ErrorLike } from '../tape-failure.js'
export { callSiteIn, carriesFailure, failureFirst, isSameFailure, withoutFrames } from '../tape-failure.js'
export type { TapeSummaryEntry } from '../tape-summary.js'
export type { TestTape, TestTapeConfig, TestTapeInput } from '../test-tape.js'
export { openTestTape } from '../test-tape.js'
