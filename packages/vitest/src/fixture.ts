import { relative } from 'node:path'
import type { Tape } from '@agent-tape/core'
import { ConfigError } from '@agent-tape/core/runtime'
import { inject, type RunnerTestCase, type TestContext } from 'vitest'
import { runtimeOptions } from './configure.js'
import './meta.js'
import type { ProvidedTapeConfig } from './options.js'
import { hasUniqueName } from './track-names.js'

/** The `tape` fixture: opens the test's tape, and fails the test when its replay diverged. */
export async function tapeFixture(
  { task, onTestFinished }: TestContext,
  use: (tape: Tape) => Promise<void>,
): Promise<void> {
  const config = readConfig('it.tape')
  // Loaded by the first tape of the file, not by the setup file that every test file runs.
  const { failureFirst, isSameFailure, openTestTape, toPosix } = await import('@agent-tape/runner-kit/tape')
  const test = task as RunnerTestCase
  const meta = test.meta.agentTape ?? { name: test.name, describes: [] }
  const { name } = meta
  const { tape, finish } = await openTestTape({
    runner: 'vitest',
    exec: config.exec,
    root: config.root,
    testFile: toPosix(relative(config.root, test.file.filepath)),
    names: namesOf(test),
    name,
    uniqueName: hasUniqueName(test),
    config,
    runtime: runtimeOptions(),
    // What a replay paced as recorded may wait: Vitest's own timeout of this test.
    ...(test.timeout > 0 ? { testTimeoutMs: test.timeout } : {}),
    report: (entry) => {
      test.meta.agentTape = { ...meta, entry }
    },
    reportLate: (entry) => {
      test.file.meta.agentTapeLate = { ...test.file.meta.agentTapeLate, [entry.test]: entry.lateUses ?? [] }
    },
  })
  // Vitest runs these hooks last registered first: the tape finishes, and its failure joins the
  // test's errors; then the failure is put first, and an SDK's error that only carries it dropped.
  let failure: Error | undefined
  onTestFinished(({ task: finished }) => {
    const result = finished.result
    if (!failure || !result?.errors) return
    result.errors = failureFirst(failure, result.errors)
    // The test may have thrown the failure itself (a tool call that missed), frames and all.
    const first = result.errors[0]
    if (first && isSameFailure(first, failure)) first.stack = failure.stack
  })
  onTestFinished(async ({ task: finished }) => {
    failure = await finish()
    if (failure && !finished.result?.errors?.some((e) => isSameFailure(e, failure!))) throw failure
  })
  await use(tape)
}

/** The plugin's config, as the plugin provides it; `api` names what asks for it in the error. */
export function readConfig(api: string): ProvidedTapeConfig {
  const config = inject('agentTape')
  if (!config) {
    throw new ConfigError({
      what: `${api} cannot open a tape`,
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
