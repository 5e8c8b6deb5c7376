import { createMemoryStore } from '@agent-tape/core/internal'
import { expect, it } from 'vitest'
import { runSetupTape, type SetupTapeInput } from './setup-tape.js'

const CONFIG = {
  cassetteDir: '__cassettes__',
  allowRecordingInCI: false,
  strictHarness: false,
  failOnUnused: true,
  redactors: [],
  normalizers: [],
  ignore: [],
  allowSecrets: [],
}

/** A setup tape of `test/agent.test.ts`, recorded once with one model call and run again with `body`. */
async function rerun(
  describes: readonly string[],
  body: SetupTapeInput['body'],
  runner: SetupTapeInput['runner'] = 'vitest',
): Promise<Error> {
  const store = createMemoryStore()
  const run = (mode: 'auto' | 'replay', fn: SetupTapeInput['body']) =>
    runSetupTape({
      runner,
      hook: 'beforeAll',
      describes,
      exec: 'npx',
      testFile: 'test/agent.test.ts',
      root: '/project',
      store,
      config: { ...CONFIG, mode },
      runtime: {},
      harnessProvider: () => {
        throw new Error('no harness paths were given')
      },
      env: {},
      report: () => {},
      body: fn,
    })
  await run('auto', ({ tape }) => tape.call('llm', { model: 'gpt-4o' }, () => 'answer'))
  return run('replay', body).then(
    () => {
      throw new Error('the replay did not fail')
    },
    (error: Error) => error,
  )
}

/** The setup's model call with another model: a miss, which the body swallows as an SDK may. */
const CHANGED: SetupTapeInput['body'] = ({ tape }) =>
  tape.call('llm', { model: 'gpt-5' }, () => 'unused').catch(() => {})

it("says a miss of a block's setup tape re-records the block, with the command that runs its tests", async () => {
  const failure = await rerun(['billing'], CHANGED)
  expect(failure.message).toMatch(
    /^\[agent-tape\] In beforeAll\.tape of describe "billing": Replay miss at step 1, model request/,
  )
  expect(failure.message).toContain(
    "re-record this block: npx vitest run test/agent.test.ts -t '^billing ' -- --update-cassettes",
  )
  expect(failure.message).not.toContain('re-record this test')
  expect(failure.stack).toContain('re-record this block: ')
})

it("says a setup tape of the file re-records the file's tests, for unused decisions too", async () => {
  const failure = await rerun([], () => {}, 'jest')
  expect(failure.message).toMatch(/^\[agent-tape\] In beforeAll\.tape of test\/agent\.test\.ts: /)
  expect(failure.message).toContain(
    "re-record this file's tests: npx --no-install agent-tape-jest test/agent.test.ts --update-cassettes (or set failOnUnused: false to allow it)",
  )
  expect(failure.message).not.toContain('re-record this test')
})
