import { relative } from 'node:path'
import {
  AgentTapeError,
  buildRerecordCommand,
  type CassetteStore,
  ConfigError,
  cassettePathFor,
  openTape,
  parseCassette,
  readTokenUsage,
  resolveMode,
  summarizeTape,
  sumUsage,
  type Tape,
  type TapeMode,
  type TapeState,
  type TapeSummaryEntry,
  type TokenUsage,
  toPosix,
} from '@agent-tape/core'
import { createFileStore, createGitHarness } from '@agent-tape/core/node'
import { recordedUsage } from '@agent-tape/http'
import { inject, type RunnerTestCase, type TestContext } from 'vitest'
import { runtimeOptions } from './configure.js'
import './meta.js'
import { type ProvidedTapeConfig, toPattern, toRegExp } from './options.js'

/** The `tape` fixture: opens the test's tape, and fails the test when its replay diverged. */
export async function tapeFixture(
  { task, onTestFinished }: TestContext,
  use: (tape: Tape) => Promise<void>,
): Promise<void> {
  const config = readConfig()
  const test = task as RunnerTestCase
  const name = test.meta.agentTape?.name ?? test.name
  const testFile = toPosix(relative(config.root, test.file.filepath))
  const names = namesOf(test)
  const id = `${testFile} > ${names.join(' > ')}`
  const cassettePath = cassettePathFor({ testFile, name, cassetteDir: config.cassetteDir })
  const files = createFileStore(config.root)
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
      ...(config.mode ? { mode: config.mode } : {}),
      allowRecordingInCI: config.allowRecordingInCI,
      ...(config.harness ? { harness: { provider: createGitHarness(config.root), ...config.harness } } : {}),
      redactors: [
        ...config.redactors.map((r) => ({
          name: r.name,
          pattern: toRegExp(r.pattern),
          ...(r.replacement === undefined ? {} : { replacement: r.replacement }),
        })),
        ...(runtime.redactors ?? []),
      ],
      normalizers: [
        ...config.normalizers.map((n) => ({ ...n, pattern: toRegExp(n.pattern) })),
        ...(runtime.normalizers ?? []),
      ],
      allowSecrets: [...config.allowSecrets.map(toPattern), ...(runtime.allowSecrets ?? [])],
      failOnUnused: config.failOnUnused,
      rerecordCommand: buildRerecordCommand({ runner: 'vitest', testFile, names, exec: config.exec }),
      ...(runtime.sdks ? { sdks: runtime.sdks } : {}),
    })
  } catch (error) {
    test.meta.agentTape = { name, entry: failedEntry(id, cassettePath, error, config) }
    throw error
  }
  onTestFinished(async ({ task: finished }) => {
    const state = await tape.finish()
    const tokens = state.action === 'replay' ? replayedTokens(state, cassetteText, runtime.usage) : undefined
    test.meta.agentTape = { name, entry: summarizeTape(state, id, tokens) }
    const failure = tape.failure()
    if (!failure) return
    // A miss that reached the test body (as itself, or inside an SDK's error) already failed
    // the test with this report: do not print it twice.
    if (finished.result?.errors?.some((e) => e.message?.includes(failure.message))) return
    throw failure
  })
  await use(tape)
}

function readConfig(): ProvidedTapeConfig {
  const config = inject('agentTape')
  if (!config) {
    throw new ConfigError({
      what: 'it.tape cannot open a tape',
      why: 'the agentTape() plugin is not in this Vitest config',
      fix: "Add it: plugins: [agentTape()] with import { agentTape } from '@agent-tape/vitest/plugin'",
    })
  }
  return config
}

/** Names from the outermost `describe` to the test, as `-t` matches them. */
function namesOf(test: RunnerTestCase): string[] {
  const names = [test.name]
  for (let suite = test.suite; suite && suite !== test.file; suite = suite.suite) names.unshift(suite.name)
  return names
}

function replayedTokens(
  state: TapeState,
  text: string | null,
  reader = runtimeOptions().usage,
): TokenUsage | undefined {
  if (text === null) return undefined
  const replayed = new Set(state.decisions.filter((d) => d.status === 'replayed').map((d) => d.seq))
  const read = reader ?? ((d) => recordedUsage(d.in, d.out) ?? readTokenUsage(d))
  const cassette = parseCassette(text, state.cassettePath)
  return sumUsage(cassette.decisions.filter((d) => replayed.has(d.seq)).map((d) => read(d)))
}

/** The summary entry of a tape that could not open (a damaged cassette, a missing one in CI). */
function failedEntry(
  test: string,
  cassettePath: string,
  error: unknown,
  config: ProvidedTapeConfig,
): TapeSummaryEntry {
  let mode: TapeMode = 'replay'
  try {
    mode = resolveMode({
      mode: config.mode,
      env: process.env,
      allowRecordingInCI: config.allowRecordingInCI,
    }).mode
  } catch {}
  return {
    test,
    cassettePath,
    mode,
    action: mode === 'live' ? 'passthrough' : mode === 'update' ? 'record' : 'replay',
    status: 'error',
    ...(error instanceof AgentTapeError ? { error: error.code } : {}),
    recorded: 0,
    replayed: 0,
    captured: 0,
    missed: 0,
    unused: 0,
    written: false,
  }
}
