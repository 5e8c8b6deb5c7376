import { expect, it } from 'vitest'
import { carriesFailure, failureFirst, isSameFailure, withoutFrames } from './tape-failure.js'

class ReplayMiss extends Error {
  override name = 'ReplayMiss'
}

const REPORT = [
  `[agent-tape] Replay miss at step 1, model request (gpt-4o): the run asked for a decision that was never recorded. If the change is intended, re-record this test: npx vitest run test/a.test.ts -t '^say "hi"$' -- --update-cassettes.`,
  '',
  '  Input changed (recorded → now):',
  '    body.messages[0].content: "Hi" → "Hello"',
].join('\n')

const miss = () => new ReplayMiss(REPORT)

it('strips the frames of the code that found the failure, keeping its name and message', () => {
  const failure = withoutFrames(miss())
  expect(failure.stack).toBe(`ReplayMiss: ${REPORT}`)
  expect(failure.message).toBe(REPORT)
})

it('tells the failure itself, or a runner’s serialized copy of it, from another error', () => {
  const failure = miss()
  expect(isSameFailure(failure, failure)).toBe(true)
  expect(isSameFailure({ name: 'ReplayMiss', message: REPORT, stack: '…' }, failure)).toBe(true)
  expect(isSameFailure(new Error(REPORT), failure)).toBe(false)
  expect(isSameFailure('ReplayMiss', failure)).toBe(false)
})

it('finds the failure inside what each SDK makes of the answer of a miss', () => {
  const failure = miss()
  const body = JSON.stringify({ error: { message: REPORT, code: 'ERR_TAPE_MISS' } })
  const wrapped = [
    // openai, Anthropic: the status before the body's message
    new Error(`400 ${REPORT}`),
    // @google/genai: the JSON body, escaped
    Object.assign(new Error(body), { name: 'ApiError' }),
    // a bare fetch that throws the body it got
    new Error(`chat completions answered 400: ${body}`),
    // fetch's network error around a missed generic HTTP request
    new TypeError('fetch failed', { cause: failure }),
    // ai's retry error, by its last error
    Object.assign(new Error('Failed after 3 attempts.'), { lastError: new Error(REPORT) }),
    // an aggregate
    new AggregateError([new Error('other'), new Error(`400 ${REPORT}`)], 'two failures'),
    // a runner's serialized copy of an SDK error
    { name: 'APIError', message: `400 ${REPORT}`, stack: 'APIError: 400 …' },
    // an assertion on the error the run was expected to end in, which got the SDK's error
    // instead (Vitest cuts the received message short, and keeps it whole as `actual`)
    {
      name: 'AssertionError',
      message: `expected [Function] to throw error including 'refused' but got '400 [agent-tape] Replay miss at step …'`,
      actual: `400 ${REPORT}`,
      expected: 'refused',
    },
  ]
  for (const error of wrapped) expect(carriesFailure(error, failure), String(error)).toBe(true)
})

it('does not take the failure itself, or an unrelated error, for a wrapping of it', () => {
  const failure = miss()
  expect(carriesFailure(failure, failure)).toBe(false)
  expect(carriesFailure(new Error('expected "" to match /Paris/'), failure)).toBe(false)
  expect(carriesFailure(new Error('chat completions answered 400'), failure)).toBe(false)
  expect(
    carriesFailure(
      { name: 'AssertionError', message: "expected 'Rain' to be 'Sun'", actual: 'Rain' },
      failure,
    ),
  ).toBe(false)
  const cyclic: { message: string; cause?: unknown } = { message: 'cycle' }
  cyclic.cause = cyclic
  expect(carriesFailure(cyclic, failure)).toBe(false)
  expect(carriesFailure(null, failure)).toBe(false)
})

it('reports the failure first and once, drops the SDK errors around it, and keeps the rest after it', () => {
  const failure = miss()
  const sdk = new Error(`400 ${REPORT}`)
  const assertion = new Error('expected "" to match /Paris/')
  const copy = { name: 'ReplayMiss', message: REPORT }
  expect(failureFirst(failure, [sdk, assertion, copy])).toEqual([copy, assertion])
  expect(failureFirst(failure, [sdk], failure)).toEqual([failure])
  expect(failureFirst(failure, [assertion])).toEqual([assertion])
  expect(failureFirst(failure, [assertion], failure)).toEqual([failure, assertion])
})
