// What a runner's setup file needs before each test file loads: the HTTP options of a config, the
// tape matchers (linked to implementations that load with the first tape), and the slot of the
// options a setup file adds. It loads a few
// small modules; defining and running tapes is `@agent-tape/runner-kit/tape`, the rest of the kit
// (config, reports) the main entry. Same no-semver promise as the main entry.
export type { HttpConfig } from '../http-options.js'
export { installRunnerBoundary, toHttpOptions } from '../http-options.js'
export { loadTapeMatchersWithFirstTape, TAPE_MATCHERS } from '../matcher-link.js'
export type { Pattern } from '../patterns.js'
export type { RuntimeOptionsSlot, TapeRuntimeOptions } from '../runtime-options.js'
export { createRuntimeOptionsSlot } from '../runtime-options.js'
export type { TapeMatcherResult, TapeMatchers } from '../tape-matchers.js'
