import { expect } from 'vitest'
import type { RecordedFixture } from './recorded-fixture.js'
import { failure, type Runner, type RunnerProject, rerecordCommand, testFile } from './runners.js'

/** How often `needle` occurs in `text`. */
export const count = (text: string, needle: string) => text.split(needle).length - 1

/**
 * The output without the source excerpts a runner shows beside an error (`> 80 | return new …`):
 * Jest shows one from the package's own code, which resolves outside node_modules here.
 */
export const withoutCodeFrames = (output: string) => output.replace(/^ *>? *\d+ *\|.*\n/gm, '')

/** An edit of the agent's system prompt, which changes the first model request of every agent run. */
export const PROMPT_EDIT = "export const SYSTEM_PROMPT = 'You answer questions about cities, briefly.'\n"

/**
 * A tape that asks the questions in turn, each expecting its echo; the last one expects the
 * echo of `expected`.
 */
export function askInTurn(runner: Runner, questions: string[], expected = questions.at(-1)): string {
  return testFile(runner, [
    "import { ask } from '../src/agent'",
    '',
    "it.tape('early', async () => {",
    ...questions.map((q, i) => {
      const echo = i === questions.length - 1 ? expected : q
      return `  expect(await ask('${q}')).toBe('echo: ${echo}')`
    }),
    '})',
  ])
}

/** The report of a run of test/early.test.ts that stopped after the first of its two recorded decisions. */
export const earlyReport = (runner: Runner) =>
  failure(runner, [
    `[agent-tape] Run finished after 1 of 2 recorded decisions: 1 recorded decision was never asked for, so the run stopped early or took another path. If the change is intended, re-record this test: ${rerecordCommand(runner, 'test/early.test.ts', 'early')} (or set failOnUnused: false to allow it).`,
    '',
    '  cassette  test/__cassettes__/early.test.ts/early.jsonl',
    '',
    '  Unused recorded decisions:',
  ])

/**
 * A copy with test/early.test.ts recorded asking two questions, then edited to ask only the
 * first (expecting the echo of `expected`).
 */
export async function stoppedEarly(
  runner: Runner,
  fixture: RecordedFixture,
  expected?: string,
): Promise<RunnerProject> {
  const project = fixture.copy()
  project.write('test/early.test.ts', askInTurn(runner, ['First?', 'Second?']))
  const record = await project.runTests('test/early.test.ts', fixture.env())
  expect(record.code, record.output).toBe(0)
  project.write('test/early.test.ts', askInTurn(runner, ['First?'], expected))
  return project
}
