// Loaded inside Jest's sandbox through `setupFilesAfterEnv` (the preset lists it), before each
// test file: SDK clients capture `fetch` when they are constructed, so the HTTP boundary must
// be installed first. It imports the light entries of the packages only: what a tape needs beyond
// the interception loads with the first tape (run-tape-test.ts).
import { setRunMode } from '@agent-tape/core/context'
import { installRunnerBoundary, loadTapeMatchersWithFirstTape } from '@agent-tape/runner-kit/setup'
import { BRIDGE_KEY, type TapeBridge } from './bridge.js'
import { runtimeErrors } from './load-lazily.js'
import { tapeMatchers } from './matchers.js'
import { createSetupTape } from './setup-hooks.js'
import { createTapeApi } from './tape-api.js'

const sandbox = globalThis as unknown as Record<string, unknown> & {
  expect: { extend(matchers: object): void }
  afterAll: ((fn: () => unknown, timeout?: number) => void) & { tape?: unknown }
  beforeAll: ((fn: () => unknown, timeout?: number) => void) & { tape?: unknown }
  test: Parameters<typeof createTapeApi>[0] & { tape?: unknown }
  it: { tape?: unknown }
}
const bridge = sandbox[BRIDGE_KEY] as TapeBridge | undefined
if (!bridge) {
  throw new (runtimeErrors().ConfigError)({
    what: 'it.tape cannot be defined',
    why: '@agent-tape/jest/setup runs without the agent-tape test environment',
    fix: "Use the preset (preset: '@agent-tape/jest'), or set testEnvironment: '@agent-tape/jest/environment' beside the setup file",
  })
}
// What the boundaries do outside every tape (a client connected in beforeAll) follows the mode of
// the file's tapes, which the environment resolved (it refuses a mode that does not resolve).
setRunMode(bridge.runMode)
// Jest loads a new sandbox per test file but shares Node's `http` module within a worker: the
// environment removes the interception when the file's run finishes, so the next file installs a
// fresh one. Not in an `afterAll` of this file: Jest runs a block's `afterAll` hooks in the order
// they were added, so it would run before the test file's own, and a request an `afterAll.tape`
// of the file makes would leave untaped.
bridge.disposeBoundary = installRunnerBoundary(bridge.config)
loadTapeMatchersWithFirstTape()
sandbox.expect.extend(tapeMatchers)
const tape = createTapeApi(sandbox.test, bridge)
sandbox.test.tape = tape
sandbox.it.tape = tape
// Setup tapes: `beforeAll.tape(fn)` and `afterAll.tape(fn)` run the hook inside a tape of its own.
sandbox.beforeAll.tape = createSetupTape('beforeAll', sandbox.beforeAll.bind(sandbox), bridge)
sandbox.afterAll.tape = createSetupTape('afterAll', sandbox.afterAll.bind(sandbox), bridge)
