// What a runner's setup file and test API need before the first tape opens: the HTTP options of
// a config, the matchers, tape names and the flags. The rest of the kit (a test's tape, reports)
// and what reads cassettes (`@agent-tape/inspect`: diffs, the view) load with the first tape test,
// so a test file without tapes does not pay for them. Same no-semver promise as the main entry.
export { assertTapeName, toPosix } from '../cassette-path.js'
export type { HttpConfig } from '../http-options.js'
export { toHttpOptions } from '../http-options.js'
export { TapeNameRegistry } from '../name-registry.js'
export type { TapeConfig } from '../option-table.js'
export type { Pattern } from '../patterns.js'
export { placeholderKeysFor } from '../placeholder-keys.js'
export type { RunnerName } from '../rerecord-command.js'
export { detectExec, UPDATE_FLAG } from '../rerecord-command.js'
export type { RuntimeOptionsSlot, TapeRuntimeOptions } from '../runtime-options.js'
export { createRuntimeOptionsSlot } from '../runtime-options.js'
export { callSiteIn } from '../tape-failure.js'
export type { TapeMatcherResult, TapeMatchers } from '../tape-matchers.js'
export { TAPE_MATCHERS } from '../tape-matchers.js'
