import { describe, expect, it } from 'vitest'
import { compactArguments, readModelAnswer } from './read-exchange.js'

const sse = (events: unknown[], end?: unknown) => ({
  status: 200,
  headers: { 'content-type': 'text/event-stream' },
  body: { sse: events.map((json) => ({ t: 0, json })), ...(end ? { end } : {}) },
})

describe('readModelAnswer', () => {
  it('assembles OpenAI chat deltas, parallel tool calls by index, and the usage chunk', () => {
    const chunk = (delta: unknown, finish: string | null = null) => ({
      model: 'gpt-4o-2024-08-06',
      choices: [{ index: 0, delta, finish_reason: finish }],
    })
    const answer = readModelAnswer(
      { api: 'openai-chat' },
      sse([
        chunk({ role: 'assistant', content: 'Checking ' }),
        chunk({ content: 'both.' }),
        chunk({
          tool_calls: [{ index: 0, id: 'call_a', function: { name: 'get_weather', arguments: '{"ci' } }],
        }),
        chunk({ tool_calls: [{ index: 1, id: 'call_b', function: { name: 'get_time', arguments: '{}' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty": "Paris"}' } }] }),
        chunk({}, 'tool_calls'),
        { choices: [], usage: { prompt_tokens: 10, completion_tokens: 5 } },
      ]),
    )
    expect(answer).toEqual({
      status: 200,
      streamed: true,
      model: 'gpt-4o-2024-08-06',
      text: 'Checking both.',
      toolCalls: [
        { id: 'call_a', name: 'get_weather', arguments: '{"city": "Paris"}' },
        { id: 'call_b', name: 'get_time', arguments: '{}' },
      ],
      finishReason: 'tool_calls',
      usage: { input: 10, output: 5 },
    })
  })

  it('reads an Anthropic message body with tool_use blocks', () => {
    const answer = readModelAnswer(
      { api: 'anthropic-messages' },
      {
        status: 200,
        headers: {},
        body: {
          json: {
            model: 'claude-sonnet-5',
            content: [
              { type: 'text', text: 'Searching.' },
              { type: 'tool_use', id: 'toolu_1', name: 'search', input: { query: 'tape' } },
            ],
            stop_reason: 'tool_use',
            usage: { input_tokens: 12, output_tokens: 7 },
          },
        },
      },
    )
    expect(answer).toMatchObject({
      text: 'Searching.',
      toolCalls: [{ id: 'toolu_1', name: 'search', arguments: '{"query":"tape"}' }],
      finishReason: 'tool_use',
      usage: { input: 12, output: 7 },
    })
  })

  it('reports an Anthropic in-band error event and a stream cut off mid-way', () => {
    const events = [
      { type: 'message_start', message: { model: 'claude-sonnet-5', usage: { input_tokens: 3 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Half an ans' } },
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    ]
    expect(readModelAnswer({ api: 'anthropic-messages' }, sse(events))).toMatchObject({
      text: 'Half an ans',
      error: 'stream error: overloaded_error: Overloaded',
    })
    const cut = readModelAnswer(
      { api: 'anthropic-messages' },
      sse(events.slice(0, 3), { error: { name: 'TypeError', message: 'terminated' } }),
    )
    expect(cut?.error).toBe('stream cut off: TypeError: terminated')
  })

  it('reads a Responses body and an incomplete status', () => {
    const answer = readModelAnswer(
      { api: 'openai-responses' },
      {
        status: 200,
        headers: {},
        body: {
          json: {
            model: 'gpt-4.1',
            status: 'incomplete',
            incomplete_details: { reason: 'max_output_tokens' },
            output: [
              { type: 'function_call', call_id: 'call_1', name: 'search', arguments: '{"q":"x"}' },
              { type: 'message', content: [{ type: 'output_text', text: 'Partial' }] },
            ],
            usage: { input_tokens: 4, output_tokens: 9 },
          },
        },
      },
    )
    expect(answer).toMatchObject({
      text: 'Partial',
      toolCalls: [{ id: 'call_1', name: 'search', arguments: '{"q":"x"}' }],
      finishReason: 'incomplete (max_output_tokens)',
      usage: { input: 4, output: 9 },
    })
  })

  it('names an HTTP error with its provider type and message', () => {
    const answer = readModelAnswer(
      { api: 'openai-chat' },
      {
        status: 429,
        headers: {},
        body: { json: { error: { type: 'rate_limit_error', message: 'Slow down' } } },
      },
    )
    expect(answer?.error).toBe('429 rate_limit_error: Slow down')
  })

  it('reads a JSON answer stored as text because it was pretty-printed, its usage too', () => {
    const json = {
      model: 'gpt-4o',
      choices: [{ message: { content: 'Hi' } }],
      usage: { prompt_tokens: 3, completion_tokens: 1 },
    }
    const answer = readModelAnswer(
      { api: 'openai-chat' },
      { status: 200, headers: {}, body: { text: `${JSON.stringify(json, null, 2)}\n` } },
    )
    expect(answer).toMatchObject({ text: 'Hi', usage: { input: 3, output: 1 } })
    const error = { error: { code: 429, message: 'Quota', status: 'RESOURCE_EXHAUSTED' } }
    expect(
      readModelAnswer(
        { api: 'openai-chat' },
        { status: 429, headers: {}, body: { text: JSON.stringify(error, null, 2) } },
      )?.error,
    ).toBe('429 RESOURCE_EXHAUSTED: Quota')
  })

  it('is undefined for an output that is not a recorded response', () => {
    expect(readModelAnswer({ api: 'openai-chat' }, { content: 'scripted' })).toBeUndefined()
  })
})

describe('compactArguments', () => {
  it('prints JSON arguments compactly and keeps malformed ones as sent', () => {
    expect(compactArguments('{ "city": "Paris" }')).toBe('{"city":"Paris"}')
    expect(compactArguments('{"city": "Par')).toBe('{"city": "Par')
  })
})
