// Loaded by the agentTape() plugin as a Vitest setup file, in every test worker, before each
// test file is imported: SDK clients capture `fetch` when they are constructed, so the boundary's
// stand-ins must be in place first. It loads a handful of small modules (test/packages/
// setup-modules.test.ts names them): what serves a tape loads with the first tape, and what the
// plugin could work out once (the run's mode, its placeholder keys) it did, in the main process.
import { runWithTape, setRunMode, type Tape } from '@agent-tape/core/context'
import { applyReplayKeys } from '@agent-tape/http/install'
import { installRunnerBoundary, loadTapeMatchersWithFirstTape } from '@agent-tape/runner-kit/setup'
import { aroundEach, expect, inject } from 'vitest'
import { tapeMatchers } from './matchers.js'

const config = inject('agentTape')
if (config) {
  installRunnerBoundary(config)
  // What the boundaries do outside every tape (a client connected in beforeAll) follows the mode
  // of the run's tapes.
  setRunMode(config.runMode)
  // A tape that replays needs no API key: SDK clients built at import time get placeholders, and
  // a tape of the run that has to record without its key is told which one.
  applyReplayKeys(process.env, config.replayKeys)
}
loadTapeMatchersWithFirstTape()
expect.extend(tapeMatchers)

// Requests deep inside an SDK find their test's tape through this async context. It has to be
// set around the test here: a fixture's `use()` does not carry its async context into the body.
aroundEach(async (runTest, { tape }: { tape?: Tape }) => {
  if (tape) await runWithTape(tape, runTest)
  else await runTest()
})
