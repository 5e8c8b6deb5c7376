import {
  buildRerecordCommand,
  type CassetteStore,
  cassettePathFor,
  needsFailureReport,
  openTape,
  readTokenUsage,
  replayedTokens,
  runWithTape,
  summarizeOpenFailure,
  summarizeTape,
  type Tape,
} from '@agent-tape/core'
import { createFileStore, createGitHarness } from '@agent-tape/core/node'
import { recordedUsage } from '@agent-tape/http'
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
  body: (context: TapeContext) => unknown
}

/**
 * Runs one tape test: opens its tape, runs the body with the tape as the current one (so the
 * HTTP boundary finds it), finishes the tape, and fails the test with the divergence report
 * exactly once (not again when the body already failed with it).
 */
export async function runTapeTest({ bridge, name, names, body }: TapeTestInput): Promise<void> {
  const { options, root, testFile } = bridge
  const id = `${testFile} > ${names.join(' > ')}`
  const cassettePath = cassettePathFor({ testFile, name, cassetteDir: options.cassetteDir })
  const files = createFileStore(root)
  let cassetteText: string | null = null
  const store: CassetteStore = {
    read: async (path) => (cassetteText = await files.read(path)),
    write: (path, text) => files.write(path, text),
  }
  const runtime = runtimeOptions()
  let tape: Tape
  try {
    tape = await openTape({
      id,
      cassettePath,
      store,
      env: bridge.env,
      ...(options.mode ? { mode: options.mode } : {}),
      allowRecordingInCI: options.allowRecordingInCI,
      ...(options.harness ? { harness: { provider: createGitHarness(root), ...options.harness } } : {}),
      redactors: [...options.redactors, ...(runtime.redactors ?? [])],
      normalizers: [...options.normalizers, ...(runtime.normalizers ?? [])],
      allowSecrets: [...options.allowSecrets, ...(runtime.allowSecrets ?? [])],
      failOnUnused: options.failOnUnused,
      rerecordCommand: buildRerecordCommand({ runner: 'jest', testFile, names, exec: bridge.exec }),
      ...(runtime.sdks ? { sdks: runtime.sdks } : {}),
    })
  } catch (error) {
    bridge.entries.push(summarizeOpenFailure(id, cassettePath, error))
    throw error
  }
  let failed = false
  let bodyError: unknown
  try {
    await runWithTape(tape, () => body({ tape }))
  } catch (error) {
    failed = true
    bodyError = error
  }
  const state = await tape.finish()
  const reader = runtime.usage ?? ((d) => recordedUsage(d.in, d.out) ?? readTokenUsage(d))
  const tokens = state.action === 'replay' ? replayedTokens(state, cassetteText, reader) : undefined
  bridge.entries.push(summarizeTape(state, id, tokens))
  const failure = tape.failure()
  if (!needsFailureReport(failure, failed ? [bodyError] : [])) {
    if (failed) throw bodyError
    return
  }
  // The run diverged and the body failed for another reason (the agent swallowed the miss and
  // an assertion tripped on its answer): the divergence is the cause worth reading first.
  if (failed) Object.defineProperty(failure!, 'cause', { value: bodyError, configurable: true })
  throw failure
}
