import { expect, it } from 'vitest'
import { readTokenUsage, sumUsage } from './token-usage.js'

it('reads OpenAI and Anthropic usage from a JSON body', () => {
  expect(
    readTokenUsage({
      kind: 'llm',
      out: { status: 200, body: { usage: { prompt_tokens: 12, completion_tokens: 5 } } },
    }),
  ).toEqual({ input: 12, output: 5 })
  expect(readTokenUsage({ kind: 'llm', out: { usage: { input_tokens: 7, output_tokens: 3 } } })).toEqual({
    input: 7,
    output: 3,
  })
})

it('takes the largest counts across stream events, whose data is text', () => {
  const events = [
    {
      event: 'message_start',
      data: JSON.stringify({ message: { usage: { input_tokens: 20, output_tokens: 1 } } }),
    },
    { event: 'content_block_delta', data: '{"delta":{"text":"hi"}}' },
    { event: 'message_delta', data: JSON.stringify({ usage: { output_tokens: 9 } }) },
  ]
  expect(readTokenUsage({ kind: 'llm', out: { events } })).toEqual({ input: 20, output: 9 })
})

it('ignores other kinds and outputs without usage, and sums', () => {
  expect(readTokenUsage({ kind: 'tool', out: { usage: { input_tokens: 1 } } })).toBeUndefined()
  expect(readTokenUsage({ kind: 'llm', out: 'text' })).toBeUndefined()
  expect(sumUsage([{ input: 1, output: 2 }, undefined, { input: 3, output: 4 }])).toEqual({
    input: 4,
    output: 6,
  })
})
