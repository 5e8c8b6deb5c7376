import { runWithTape, type Tape } from '@agent-tape/core/context'
import type { TapeBridge } from './bridge.js'
import { runtimeOptions } from './configure.js'

/** What `it.tape` hands to the test body. */
export interface TapeContext {
  tape: Tape
}

export interface TapeTestInput {
  bridge: TapeBridge
  /** The tape name: the cassette file name. */
  name: string
  /** Names from the outermost `describe` to the test. */
  names: readonly string[]
  /** Where the test is defined, `file:line:column`, when it could be told. */
  site?: string | undefined
  body: (context: TapeContext) => unknown
  /** The timeout given to this test, when one was. */
  timeout?: number | undefined
}

/**
 * Runs one tape test: opens its tape, runs the body with the tape as the current one (so the
 * HTTP boundary finds it), finishes the tape, and fails the test with the divergence report
 * exactly once (not again when the body already failed with it).
 */
export async function runTapeTest({
  bridge,
  name,
  names,
  site,
  body,
  timeout,
}: TapeTestInput): Promise<void> {
  // Loaded by the first tape of the file, not by the setup file that every test file runs.
  const { carriesFailure, isSameFailure, openTestTape } = await import('@agent-tape/runner-kit/tape')
  const { tape, finish } = await openTestTape({
    runner: 'jest',
    exec: bridge.exec,
    testFile: bridge.testFile,
    names,
    name,
    uniqueName: bridge.registry?.isUnique(bridge.testFile, name) === true,
    ...(site ? { site } : {}),
    root: bridge.root,
    config: bridge.config,
    runtime: runtimeOptions(),
    env: bridge.env,
    // What a replay paced as recorded may wait: the test's own timeout, `jest.setTimeout`'s, or the config's.
    testTimeoutMs: timeout ?? jestTimeout() ?? bridge.testTimeout,
    report: (entry) => bridge.entries.push(entry),
  })
  let failed = false
  let bodyError: unknown
  try {
    await runWithTape(tape, () => body({ tape }))
  } catch (error) {
    failed = true
    bodyError = error
  }
  const failure = await finish()
  if (!failure) {
    if (failed) throw bodyError
    return
  }
  // The tape's failure is the test's, whatever the SDK made of it (its error around the miss's
  // answer is dropped). When the body failed for another reason (the agent swallowed the miss and
  // an assertion tripped on its answer), that error follows as the cause.
  if (failed && !isSameFailure(bodyError, failure) && !carriesFailure(bodyError, failure)) {
    Object.defineProperty(failure, 'cause', { value: bodyError, configurable: true })
  }
  throw failure
}

/** The default timeout `jest.setTimeout` set in this test file, if it did. */
function jestTimeout(): number | undefined {
  const value = (globalThis as Record<symbol, unknown>)[Symbol.for('TEST_TIMEOUT_SYMBOL')]
  return typeof value === 'number' && value > 0 ? value : undefined
}
