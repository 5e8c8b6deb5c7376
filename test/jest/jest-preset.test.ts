import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { TAPE_MODES } from '@agent-tape/core'
import { expect, it } from 'vitest'
import { useRecordedFixture } from '../runners/recorded-fixture.js'
import { JEST } from '../runners/runners.js'
import { count, earlyReport, PROMPT_EDIT, stoppedEarly } from '../runners/scenarios.js'

// What only the Jest preset does; what both runners do alike is in test/runners/contract.test.ts.
const fixture = useRecordedFixture(JEST)
const { env, copy } = fixture

it('re-records every tape that runs with agent-tape-jest --update-cassettes, as with AGENT_TAPE_MODE=update', async () => {
  const project = copy()
  project.write('src/prompt.ts', PROMPT_EDIT)
  const wrapper = await project.run('npx agent-tape-jest test/agent.test.ts --update-cassettes', env())
  expect(wrapper.code, wrapper.output).toBe(0)
  expect(wrapper.output).toContain('agent-tape  2 tapes: 0 replayed cleanly, 2 recorded, 0 diverged')
  expect(wrapper.output).toContain('  test/agent.test.ts > weather-paris     update  recorded')
  expect(project.read('test/__cassettes__/agent.test.ts/billing/refund.jsonl')).toContain('cities, briefly.')
  const byEnv = await project.runTests('test/claude.test.ts', { ...env(), AGENT_TAPE_MODE: 'update' })
  expect(byEnv.code, byEnv.output).toBe(0)
  expect(byEnv.output).toContain('  test/claude.test.ts > claude-stream  update  recorded')
  const replay = await project.runTests('', env())
  expect(replay.code, replay.output).toBe(0)
  expect(replay.output).toContain('agent-tape  13 tapes: 13 replayed cleanly')
})

it('shows the divergence report first and the failed assertion as its cause when both happen', async () => {
  const project = await stoppedEarly(JEST, fixture, 'Second?')
  const run = await project.runTests('test/early.test.ts', env())
  expect(run.code).toBe(1)
  expect(run.output).toContain('Tests:       1 failed, 1 total')
  expect(count(run.output, earlyReport(JEST))).toBe(1)
  const cause = run.output.indexOf('\n    Cause:\n')
  expect(cause).toBeGreaterThan(run.output.indexOf(earlyReport(JEST)))
  expect(run.output.slice(cause)).toContain(
    ['        Expected: "echo: Second?"', '        Received: "echo: First?"'].join('\n'),
  )
  expect(run.output).toContain(
    '  test/early.test.ts > early  auto  diverged       1/2         -       0       1',
  )
})

it('takes every way Jest defines a test on it.tape: concurrent, skip, todo, failing and each on each of them', async () => {
  const project = copy()
  project.write(
    'test/modifiers.test.ts',
    readFileSync(join(import.meta.dirname, 'fixtures/modifiers.test.ts'), 'utf8'),
  )
  const run = await project.runTests('test/modifiers.test.ts', env())
  expect(run.code, run.output).toBe(0)
  expect(run.output).toContain('Tests:       3 skipped, 1 todo, 7 passed, 11 total')
  const recorded = project.cassettes().filter((c) => c.includes('modifiers.test.ts'))
  expect(recorded.map((c) => c.split('/').at(-1))).toEqual([
    'concurrent-failing.jsonl',
    'concurrent.jsonl',
    'each-a.jsonl',
    'each-b.jsonl',
    'failing-each-x.jsonl',
    'failing.jsonl',
    'plain.jsonl',
  ])
  const replay = await project.runTests('test/modifiers.test.ts', env())
  expect(replay.code, replay.output).toBe(0)
  expect(replay.output).toContain('7 tapes: 7 replayed cleanly, 0 recorded, 0 diverged')
  // The skipped and todo tapes keep their names: nothing is called obsolete.
  expect(replay.output).not.toContain('bsolete')
})

it("agent-tape-jest --help names its own switches before Jest's help", async () => {
  const help = await copy().run('npx agent-tape-jest --help', env())
  expect(help.code, help.output).toBe(0)
  expect(help.output).toContain("agent-tape-jest: Jest's CLI, with agent-tape's switches")
  expect(help.output).toContain('--update-cassettes   re-record every tape that runs')
  expect(help.output).toContain('--prune-cassettes    delete the cassettes')
  // Every mode, from the list the mode checks read: live-tools was once left out.
  expect(TAPE_MODES).toContain('live-tools')
  expect(help.output).toContain(`AGENT_TAPE_MODE=${TAPE_MODES.join('|')} sets the mode for one run.`)
  // Jest's own help follows.
  expect(help.output.indexOf('--prune-cassettes')).toBeLessThan(help.output.indexOf('--testNamePattern'))
})
