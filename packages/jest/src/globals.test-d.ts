// Type tests (compiled by `tsc --noEmit`, never run): it.tape and the matchers are typed on
// `@jest/globals` imports once `@agent-tape/jest` is in the program.
import { expect, it, test } from '@jest/globals'
import type { Tape } from './index.js'

it.tape('issue-412', async ({ tape }) => {
  const typed: Tape = tape
  expect(typed).toReplayCleanly()
  expect(tape).toHaveDecisions(3, 'llm')
  expect(tape).not.toHaveCalledTool('refund')
  expect(tape).toHaveTakenAtMostSteps(8)
  expect(tape).toHaveUsedAtMostTokens(20_000)
  expect(tape).toHaveUsedAtMostTokens({ output: 2_000 })
  expect(tape).toHaveCostAtMost(0.05)
  // @ts-expect-error a cost is a number of dollars
  expect(tape).toHaveCostAtMost('$0.05')
})
test.tape.concurrent('parallel', async ({ tape }) => {
  await tape.tool('lookup', { id: 1 }, async () => 1)
})
it.tape.skip('later', async () => {})
it.tape.only.each([
  [1, 'a'],
  [2, 'b'],
] as const)('row-%i', async (n, letter, { tape }) => {
  const sum: number = n + letter.length
  expect(sum).toBeGreaterThan(0)
  expect(tape).toReplayCleanly()
})
it.tape.concurrent.each([{ city: 'Paris' }])('city-$city', async ({ city }, { tape }) => {
  expect(city).toBe('Paris')
  expect(tape).toReplayCleanly()
})
// @ts-expect-error a tape test needs a name and a body
it.tape(async () => {})
// Rows written without `as const` infer as tuples, so each value keeps its own type (the docs' example).
it.tape.concurrent.each([['Paris'], ['Oslo']])('weather-%s', async (city, { tape }) => {
  const name: string = city
  expect(name.length).toBeGreaterThan(0)
  expect(tape).toReplayCleanly()
})
it.tape.each([
  [1, 'one'],
  [2, 'two'],
])('count-%i', async (n, word, { tape }) => {
  const total: number = n + word.length
  expect(total).toBeGreaterThan(0)
  expect(tape).toReplayCleanly()
})
it.tape.failing('known-bug', async ({ tape }) => {
  expect(tape).toReplayCleanly()
})
it.tape.concurrent.only.failing('known-concurrent-bug', async ({ tape }) => {
  expect(tape).toReplayCleanly()
})
it.tape.skip.failing.each([['x']])('skipped-failing-%s', async (x, { tape }) => {
  expect(x.length + tape.state.replayed).toBeGreaterThan(0)
})
it.tape.todo('write-this-tape')
// @ts-expect-error a todo has no body
it.tape.todo('with-a-body', async () => {})
