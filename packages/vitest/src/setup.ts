// Loaded by the agentTape() plugin as a Vitest setup file, in every test worker, before each
// test file is imported: SDK clients capture `fetch` when they are constructed, so the HTTP
// boundary must be installed first. It imports the light entries of the packages only: what a
// tape needs beyond the interception loads with the first tape (fixture.ts), so a test file
// without tapes pays for little more than the interception.
import type { Tape } from '@agent-tape/core'
import { resolveMode, runWithTape, setRunMode, type TapeMode } from '@agent-tape/core/context'
import { installHttpBoundary, provideReplayKeys, useMswInterception } from '@agent-tape/http/install'
import { placeholderKeysFor, toHttpOptions } from '@agent-tape/runner-kit/setup'
import { aroundEach, expect, inject } from 'vitest'
import { tapeMatchers } from './matchers.js'

const config = inject('agentTape')
if (config) {
  const http = toHttpOptions(config)
  // With `interception: 'msw'`, the team's MSW server intercepts, with tapeHandlers() in it.
  if (config.interception === 'msw') useMswInterception(http)
  else installHttpBoundary(http)
  // What the boundaries do outside every tape (a client connected in beforeAll) follows the mode
  // of the run's tapes. A mode that cannot be resolved is reported by each tape, with its test.
  const mode = runModeOf(config)
  setRunMode(mode)
  // A tape that replays needs no API key: SDK clients built at import time get placeholders, and
  // a tape of the run that has to record without its key is told which one.
  const keys = mode ? placeholderKeysFor(mode) : undefined
  if (keys) provideReplayKeys(process.env, keys)
}
expect.extend(tapeMatchers)

// Requests deep inside an SDK find their test's tape through this async context. It has to be
// set around the test here: a fixture's `use()` does not carry its async context into the body.
aroundEach(async (runTest, { tape }: { tape?: Tape }) => {
  if (tape) await runWithTape(tape, runTest)
  else await runTest()
})

function runModeOf(options: { mode?: string; allowRecordingInCI: boolean }): TapeMode | undefined {
  try {
    return resolveMode({
      mode: options.mode,
      env: process.env,
      allowRecordingInCI: options.allowRecordingInCI,
    }).mode
  } catch {
    return undefined
  }
}
