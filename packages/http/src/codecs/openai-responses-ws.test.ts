import { describe, expect, it } from 'vitest'
import { findSessionCodec } from './index.js'
import { openaiResponsesCodec } from './openai-responses.js'
import { openaiResponsesWsCodec as codec } from './openai-responses-ws.js'

const completed = (id: string, output: unknown[], usage = { input_tokens: 100, output_tokens: 10 }) => ({
  type: 'response.completed',
  response: { id, model: 'gpt-4.1-mini-2025-04-14', status: 'completed', output, usage },
})

describe('the Responses API over a WebSocket', () => {
  it('owns the sessions of /responses, on OpenAI and Azure, and leaves Realtime to its codec', () => {
    expect(findSessionCodec(new URL('wss://api.openai.com/v1/responses'))).toBe(codec)
    expect(
      findSessionCodec(new URL('wss://x.openai.azure.com/openai/v1/responses?api-version=preview')),
    ).toBe(codec)
    expect(findSessionCodec(new URL('wss://api.openai.com/v1/realtime?model=gpt-realtime')).name).toBe(
      'openai-realtime',
    )
  })

  it('keys a response.create as the HTTP codec keys the same body: store left out, tools by name', () => {
    const tools = [
      { type: 'function', name: 'b_tool' },
      { type: 'function', name: 'a_tool' },
    ]
    const message = { type: 'response.create', model: 'm', input: 'hi', store: false, tools }
    const { type: _type, ...body } = message
    expect(codec.canonicalMessage(message)).toEqual({
      type: 'response.create',
      message: { type: 'response.create', ...(openaiResponsesCodec.canonicalBody(body) as object) },
    })
    expect(codec.canonicalMessage(message).message).not.toHaveProperty('store')
    // Other messages are keyed whole, by their type.
    const steer = { type: 'response.steer', previous_response_id: 'resp_1', input: 'Shorter.' }
    expect(codec.canonicalMessage(steer)).toEqual({ type: 'response.steer', message: steer })
  })

  it('asks the model for each response.create that generates, not for a prepared state or a steer', () => {
    expect(codec.asksModel({ type: 'response.create', input: 'hi' })).toBe(true)
    expect(codec.asksModel({ type: 'response.create', input: 'hi', generate: false })).toBe(false)
    expect(codec.asksModel({ type: 'response.steer', input: 'Shorter.' })).toBe(false)
  })

  it('reads a request as over HTTP: its tools, its last input; a steer by what it adds', () => {
    expect(
      codec.readMessage({
        type: 'response.create',
        input: [
          { role: 'user', content: 'Weather in Paris?' },
          { type: 'function_call_output', call_id: 'c', output: '{"temp":21}' },
        ],
        tools: [{ type: 'function', name: 'get_weather' }, { type: 'web_search' }],
      }),
    ).toEqual({
      tools: ['get_weather', 'web_search'],
      last: { role: 'function_call_output', text: '{"temp":21}' },
    })
    expect(
      codec.readMessage({ type: 'response.steer', previous_response_id: 'r', input: 'Shorter.' }),
    ).toEqual({
      tools: [],
      last: { role: 'user', text: 'Shorter.' },
    })
  })

  it('reads each response after a message as a stream, and joins them: text, calls, tokens, the last status', () => {
    const call = {
      type: 'function_call',
      call_id: 'call_1',
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    }
    const answer = codec.readMessages([
      { type: 'response.created', response: { id: 'resp_1', model: 'gpt-4.1-mini-2025-04-14' } },
      { type: 'response.output_item.added', output_index: 0, item: { ...call, arguments: '' } },
      { type: 'response.output_item.done', output_index: 0, item: call },
      completed('resp_1', [call]),
      // A steer continued it: a second response, after the first.
      { type: 'response.created', response: { id: 'resp_2' } },
      { type: 'response.output_text.delta', output_index: 0, delta: 'In Paris.' },
      completed('resp_2', [], { input_tokens: 50, output_tokens: 5 }),
    ])
    expect(answer).toMatchObject({
      text: 'In Paris.',
      toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      finishReason: 'completed',
      model: 'gpt-4.1-mini-2025-04-14',
      usage: { input: 150, output: 15 },
    })
  })

  it('reads an error event as the answer, and tells a miss in that event', () => {
    const error = {
      type: 'error',
      status: 400,
      error: { type: 'invalid_request_error', message: 'No such model' },
    }
    expect(codec.readMessages([error]).error).toBe('stream error: No such model')
    expect(codec.missFrame('changed', 'ERR_TAPE_MISS')).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', code: 'ERR_TAPE_MISS', message: 'changed', param: null },
    })
  })

  it('names the model the client asks for and the one that answers; the URL names none', () => {
    expect(codec.modelOf({ type: 'response.create', model: 'gpt-4.1-mini' })).toBe('gpt-4.1-mini')
    expect(codec.modelOf({ type: 'response.created', response: { model: 'gpt-4.1-mini-2025-04-14' } })).toBe(
      'gpt-4.1-mini-2025-04-14',
    )
    expect(codec.modelOf({ type: 'response.output_text.delta', delta: 'model' })).toBeUndefined()
    expect(codec.modelOfUrl(new URL('wss://api.openai.com/v1/responses'))).toBeUndefined()
  })
})
