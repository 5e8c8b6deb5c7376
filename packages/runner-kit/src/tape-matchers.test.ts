import { createMemoryStore, openTape } from '@agent-tape/core/internal'
import { expect, it } from 'vitest'
import { MATCHER_IMPLEMENTATIONS as TAPE_MATCHERS } from './tape-matchers.js'

const PATH = '__cassettes__/a.test.ts/refund.jsonl'

async function recordedStore() {
  const store = createMemoryStore()
  const tape = await openTape({ id: 'a.test.ts > refund', cassettePath: PATH, store, mode: 'auto', env: {} })
  await tape.call('llm', { model: 'gpt-4o' }, () => 'look it up')
  await tape.tool('lookup_invoice', { id: 'INV-1' }, () => 'found')
  await tape.tool('refund', { id: 'INV-1' }, () => 'refunded')
  await tape.finish()
  return store
}

async function replaying(store: ReturnType<typeof createMemoryStore>) {
  return openTape({ id: 'a.test.ts > refund', cassettePath: PATH, store, mode: 'replay', env: {} })
}

it('passes toReplayCleanly on a clean replay, and names the cassette when negated', async () => {
  const tape = await replaying(await recordedStore())
  await tape.call('llm', { model: 'gpt-4o' }, () => 'unused')
  await tape.tool('lookup_invoice', { id: 'INV-1' }, () => 'unused')
  await tape.tool('refund', { id: 'INV-1' }, () => 'unused')
  const result = TAPE_MATCHERS.toReplayCleanly(true, tape)
  expect(result.pass).toBe(true)
  expect(result.message()).toBe(
    `expected tape "a.test.ts > refund" to diverge from ${PATH}, but it replayed cleanly`,
  )
})

it('fails toReplayCleanly while recorded decisions are still unused', async () => {
  const tape = await replaying(await recordedStore())
  await tape.call('llm', { model: 'gpt-4o' }, () => 'unused')
  const result = TAPE_MATCHERS.toReplayCleanly(false, tape)
  expect(result.pass).toBe(false)
  expect(result.message()).toBe(
    `[agent-tape] 2 of 3 recorded decisions of ${PATH} are still unused: the run has not asked for them yet, so it stopped early or took another path. Assert once the agent has finished, or, if the change is intended, re-record this test: AGENT_TAPE_MODE=update <your test command> (only this test).`,
  )
})

it('counts the decisions made, of one kind when given, with their labels', async () => {
  const tape = await replaying(await recordedStore())
  await tape.call('llm', { model: 'gpt-4o' }, () => 'unused')
  await tape.tool('lookup_invoice', { id: 'INV-1' }, () => 'unused')
  const all = TAPE_MATCHERS.toHaveDecisions(false, tape, 3)
  expect(all).toMatchObject({ pass: false, actual: 2, expected: 3 })
  expect(all.message()).toBe(
    'expected tape "a.test.ts > refund" to have made 3 decisions, it made 2: #1 model request (gpt-4o), #2 tool "lookup_invoice"',
  )
  const tools = TAPE_MATCHERS.toHaveDecisions(true, tape, 1, 'tool')
  expect(tools.pass).toBe(true)
  expect(tools.message()).toBe(
    'expected tape "a.test.ts > refund" not to have made 1 tool decisions, it made 1: #2 tool "lookup_invoice"',
  )
})

it('checks a tool was called, at least once or an exact number of times', async () => {
  const tape = await replaying(await recordedStore())
  await tape.call('llm', { model: 'gpt-4o' }, () => 'unused')
  await tape.tool('lookup_invoice', { id: 'INV-1' }, () => 'unused')
  expect(TAPE_MATCHERS.toHaveCalledTool(false, tape, 'lookup_invoice').pass).toBe(true)
  const twice = TAPE_MATCHERS.toHaveCalledTool(false, tape, 'lookup_invoice', 2)
  expect(twice.pass).toBe(false)
  expect(twice.message()).toBe(
    'expected tape "a.test.ts > refund" to have called tool "lookup_invoice" 2 times, it was called 1 time (tools called: tool "lookup_invoice")',
  )
  const refund = TAPE_MATCHERS.toHaveCalledTool(true, tape, 'refund')
  expect(refund.pass).toBe(false)
  expect(refund.message()).toBe(
    'expected tape "a.test.ts > refund" not to have called tool "refund" at least once, it was called 0 times (tools called: tool "lookup_invoice")',
  )
})

it('rejects anything but a tape, naming the matcher', () => {
  expect(() => TAPE_MATCHERS.toReplayCleanly(false, undefined)).toThrow(
    new TypeError('toReplayCleanly() expects the tape of the test (the `tape` of it.tape), got undefined'),
  )
})

it('refuses a limit that is not a number of 0 or more, and a tape it cannot measure, with its own errors', async () => {
  const tape = await replaying(await recordedStore())
  const usage = (run: () => unknown) => {
    try {
      run()
    } catch (error) {
      return { code: (error as { code?: string }).code, message: (error as Error).message }
    }
    throw new Error('expected the matcher to throw')
  }
  const steps = usage(() => TAPE_MATCHERS.toHaveTakenAtMostSteps(false, tape, -1))
  expect(steps.code).toBe('ERR_TAPE_USAGE')
  expect(steps.message).toBe(
    '[agent-tape] Invalid steps for toHaveTakenAtMostSteps(): it expects a number of 0 or more, got -1. Pass a limit such as toHaveTakenAtMostSteps(10).',
  )
  const input = usage(() => TAPE_MATCHERS.toHaveUsedAtMostTokens(false, tape, { input: 'many' as never }))
  expect(input.message).toContain('Pass a limit such as toHaveUsedAtMostTokens({ input: 20000 })')
  const cost = usage(() => TAPE_MATCHERS.toHaveCostAtMost(false, tape, 0.5))
  expect(cost.code).toBe('ERR_TAPE_USAGE')
  expect(cost.message).toContain('cannot measure tape "a.test.ts > refund"')
})
