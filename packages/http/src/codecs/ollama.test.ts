import { describe, expect, it } from 'vitest'
import { readModelAnswer, readModelRequest } from '../read-exchange.js'
import { recordedUsage } from '../usage.js'
import { findCodec, isModelHost } from './index.js'
import { ollamaCodec } from './ollama.js'

const CHAT = { api: 'ollama', method: 'POST', path: '/api/chat' }
const ndjson = (lines: unknown[], end?: unknown) => ({
  status: 200,
  headers: { 'content-type': 'application/x-ndjson' },
  body: { ndjson: lines.map((json) => ({ t: 0, json })), ...(end ? { end } : {}) },
})
const metrics = {
  total_duration: 912345678,
  load_duration: 1234567,
  prompt_eval_count: 42,
  prompt_eval_duration: 2345678,
  eval_count: 7,
  eval_duration: 3456789,
}

describe('the Ollama codec', () => {
  it('owns POST …/api/chat and …/api/generate, and serves ollama.com without configuration', () => {
    expect(findCodec('POST', '/api/chat')).toBe(ollamaCodec)
    expect(findCodec('POST', '/api/generate')).toBe(ollamaCodec)
    expect(findCodec('POST', '/ollama/api/chat')).toBe(ollamaCodec)
    for (const path of ['/api/tags', '/api/pull', '/api/embed', '/api/chat/'])
      expect(findCodec('POST', path)).toBe(undefined)
    expect(findCodec('GET', '/api/chat')).toBe(undefined)
    expect(isModelHost('ollama.com')).toBe(true)
    expect(isModelHost('www.ollama.com')).toBe(false)
  })

  it('keys the body as sent, options and format included, without keep_alive, tools sorted by name', () => {
    const tool = (name: string) => ({ type: 'function', function: { name, parameters: { type: 'object' } } })
    const body = {
      model: 'llama3.2',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: false,
      format: 'json',
      options: { temperature: 0, seed: 7, num_ctx: 4096 },
      keep_alive: '10m',
      tools: [tool('search'), tool('fetch_page')],
    }
    const { keep_alive: _, ...rest } = body
    expect(ollamaCodec.canonicalBody(body)).toEqual({ ...rest, tools: [tool('fetch_page'), tool('search')] })
    expect(ollamaCodec.canonicalBody({ ...body, keep_alive: 0 })).toEqual(ollamaCodec.canonicalBody(body))
    expect(ollamaCodec.canonicalBody({ ...body, options: { temperature: 1 } })).not.toEqual(
      ollamaCodec.canonicalBody(body),
    )
  })

  it('answers a miss in Ollama’s error shape', () => {
    expect(ollamaCodec.errorBody('the report')).toEqual({ error: 'the report' })
  })

  it('reads a chat request and a generate request', () => {
    expect(
      readModelRequest({
        ...CHAT,
        body: {
          model: 'llama3.2',
          messages: [
            { role: 'user', content: 'Weather in Paris?' },
            {
              role: 'assistant',
              content: '',
              tool_calls: [{ function: { name: 'get_weather', arguments: {} } }],
            },
            { role: 'tool', content: '18°C', tool_name: 'get_weather' },
          ],
          tools: [{}],
        },
      }),
    ).toEqual({ ...CHAT, model: 'llama3.2', messages: 3, tools: 1, last: { role: 'tool', text: '18°C' } })
    expect(
      readModelRequest({
        api: 'ollama',
        path: '/api/generate',
        body: { model: 'qwen3', prompt: 'Why is the sky blue?' },
      }),
    ).toEqual({
      api: 'ollama',
      path: '/api/generate',
      model: 'qwen3',
      messages: 1,
      tools: 0,
      last: { role: 'user', text: 'Why is the sky blue?' },
    })
  })

  it('assembles a streamed chat answer with whole tool calls, why it stopped and the counts of the last line', () => {
    const line = (message: unknown, done = false) => ({
      model: 'llama3.2',
      created_at: '2025-05-27T22:54:57.641643Z',
      message,
      done,
    })
    const answer = readModelAnswer(
      CHAT,
      ndjson([
        line({ role: 'assistant', content: 'Checking ' }),
        line({ role: 'assistant', content: 'both.' }),
        line({
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'call_a1', function: { index: 0, name: 'get_weather', arguments: { city: 'Paris' } } },
            { function: { index: 1, name: 'get_time', arguments: {} } },
          ],
        }),
        { ...line({ role: 'assistant', content: '' }, true), done_reason: 'stop', ...metrics },
      ]),
    )
    expect(answer).toEqual({
      status: 200,
      streamed: true,
      model: 'llama3.2',
      text: 'Checking both.',
      toolCalls: [
        { id: 'call_a1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { name: 'get_time', arguments: '{}' },
      ],
      finishReason: 'stop',
      usage: { input: 42, output: 7 },
    })
  })

  it('reads a generate answer, a line of text Go escaped, and an error line mid-stream', () => {
    const goLine =
      '{"model":"qwen3","created_at":"2025-01-01T00:00:00Z","response":"a \\u003c b","done":false}'
    const out = {
      status: 200,
      headers: { 'content-type': 'application/x-ndjson' },
      body: {
        ndjson: [
          {
            t: 0,
            json: { model: 'qwen3', created_at: '2025-01-01T00:00:00Z', response: 'So ', done: false },
          },
          { t: 1, text: goLine },
          { t: 2, json: { error: 'an error was encountered while running the model' } },
        ],
      },
    }
    expect(readModelAnswer({ api: 'ollama', path: '/api/generate' }, out)).toEqual({
      status: 200,
      streamed: true,
      model: 'qwen3',
      text: 'So a < b',
      toolCalls: [],
      error: 'stream error: an error was encountered while running the model',
    })
    expect(recordedUsage({ api: 'ollama' }, out)).toBeUndefined()
  })

  it('reads a whole answer stored as JSON or, when Go escaped it, as text; and an error body', () => {
    const body = {
      model: 'llama3.2',
      created_at: '2025-01-01T00:00:00Z',
      message: { role: 'assistant', content: 'x < y' },
      done_reason: 'stop',
      done: true,
      ...metrics,
    }
    const expected = {
      status: 200,
      streamed: false,
      model: 'llama3.2',
      text: 'x < y',
      toolCalls: [],
      finishReason: 'stop',
      usage: { input: 42, output: 7 },
    }
    expect(readModelAnswer(CHAT, { status: 200, headers: {}, body: { json: body } })).toEqual(expected)
    const text = JSON.stringify(body).replace('<', '\\u003c')
    expect(readModelAnswer(CHAT, { status: 200, headers: {}, body: { text } })).toEqual(expected)
    expect(recordedUsage(CHAT, { status: 200, headers: {}, body: { text } })).toEqual({
      input: 42,
      output: 7,
    })
    expect(
      readModelAnswer(CHAT, {
        status: 404,
        headers: {},
        body: { json: { error: "model 'llama9' not found" } },
      }),
    ).toMatchObject({ status: 404, error: "404 model 'llama9' not found" })
  })

  it('counts a prompt the server had cached (no prompt_eval_count) as 0 input tokens', () => {
    const { prompt_eval_count: _, ...cached } = metrics
    expect(ollamaCodec.usage({ done: true, ...cached }, [])).toEqual({ input: 0, output: 7 })
    expect(ollamaCodec.usage({ done: false, ...metrics }, [])).toBeUndefined()
  })
})
