import OpenAI, { APIError } from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import { type FakeProvider, startFakeProvider } from './index.js'
import type { FakeProviderOptions } from './server.js'

let provider: FakeProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

async function client(options: FakeProviderOptions): Promise<OpenAI> {
  provider = await startFakeProvider(options)
  return new OpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL, maxRetries: 0 })
}

const messages = [{ role: 'user' as const, content: 'What is the weather in Paris?' }]
const tools = [
  {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
]

describe('OpenAI Chat Completions', () => {
  it('answers a JSON completion with text, usage and the x-request-id the SDK exposes', async () => {
    const openai = await client({ reply: [{ text: 'Sunny.', usage: { inputTokens: 11, outputTokens: 2 } }] })
    const completion = await openai.chat.completions.create({ model: 'gpt-4.1-mini', messages })
    expect(completion.choices[0]?.message).toMatchObject({ role: 'assistant', content: 'Sunny.' })
    expect(completion.choices[0]?.finish_reason).toBe('stop')
    expect(completion.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 2, total_tokens: 13 })
    expect(completion.model).toBe('gpt-4.1-mini')
    expect(completion.id).toMatch(/^chatcmpl-[A-Za-z0-9]{29}$/)
    expect(completion._request_id).toMatch(/^req_[0-9a-f]{32}$/)
    expect(provider?.requests[0]?.body).toMatchObject({ model: 'gpt-4.1-mini', messages })
    expect(provider?.requests[0]?.headers.authorization).toBe('Bearer sk-test-dummy')
  })

  it('answers a JSON completion with tool calls and content null', async () => {
    const openai = await client({
      reply: [{ toolCalls: [{ id: 'call_1', name: 'get_weather', args: { city: 'Paris' } }] }],
    })
    const completion = await openai.chat.completions.create({ model: 'gpt-4.1', messages, tools })
    const message = completion.choices[0]?.message
    expect(message?.content).toBeNull()
    expect(message?.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ])
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls')
  })

  it('streams text deltas, the usage-only chunk before [DONE] when include_usage is set', async () => {
    const openai = await client({
      reply: [{ text: 'It is sunny.', usage: { inputTokens: 20, outputTokens: 4 } }],
    })
    const stream = await openai.chat.completions.create({
      model: 'gpt-4.1',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    })
    const chunks = []
    for await (const chunk of stream) chunks.push(chunk)
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')
    expect(text).toBe('It is sunny.')
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant')
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop')
    const last = chunks.at(-1)
    expect(last?.choices).toEqual([])
    expect(last?.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 4 })
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true)
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1)
  })

  it('streams tool-call deltas that the SDK stream helper assembles into a final message', async () => {
    const openai = await client({
      reply: [
        {
          toolCalls: [
            { id: 'call_a', name: 'get_weather', args: { city: 'Paris, France' } },
            { id: 'call_b', name: 'get_weather', args: { city: 'Lyon' } },
          ],
        },
      ],
    })
    const stream = openai.chat.completions.stream({ model: 'gpt-4.1', messages, tools })
    const message = await stream.finalMessage()
    const completion = await stream.finalChatCompletion()
    expect(message.tool_calls?.map((c) => [c.id, c.type === 'function' && c.function.arguments])).toEqual([
      ['call_a', '{"city":"Paris, France"}'],
      ['call_b', '{"city":"Lyon"}'],
    ])
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls')
    expect(provider?.requests[0]?.body.stream).toBe(true)
    expect(provider?.requests[0]?.headers['x-stainless-helper-method']).toBe('stream')
  })

  it('surfaces a mid-stream error object as the SDK APIError', async () => {
    const openai = await client({ reply: [{ text: 'one two three four', streamError: { message: 'boom' } }] })
    const stream = await openai.chat.completions.create({ model: 'gpt-4.1', messages, stream: true })
    const seen: string[] = []
    const consume = async () => {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '')
    }
    const error = await consume().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(APIError)
    expect((error as APIError).message).toContain('boom')
    expect(seen.join('')).not.toBe('one two three four')
  })

  it.each([429, 500])(
    'surfaces HTTP %i as APIError with status, error body and request id',
    async (status) => {
      const openai = await client({ reply: [{ error: { status } }] })
      const error = await openai.chat.completions
        .create({ model: 'gpt-4.1', messages })
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(APIError)
      expect((error as APIError).status).toBe(status)
      expect((error as APIError).requestID).toMatch(/^req_/)
      expect((error as APIError).type).toBe(status === 429 ? 'requests' : 'server_error')
      expect(provider?.requests).toHaveLength(1)
    },
  )

  it('retries a 500 when the SDK is allowed to, and succeeds on the next turn', async () => {
    provider = await startFakeProvider({
      reply: [{ error: { status: 500, headers: { 'retry-after-ms': '1' } } }, { text: 'ok' }],
    })
    const openai = new OpenAI({ apiKey: 'sk-test', baseURL: provider.openaiBaseURL, maxRetries: 1 })
    const completion = await openai.chat.completions.create({ model: 'gpt-4.1', messages })
    expect(completion.choices[0]?.message.content).toBe('ok')
    expect(provider.requests.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1'])
  })

  it('gzips a JSON body the SDK decodes transparently', async () => {
    const openai = await client({ gzip: true, reply: [{ text: 'compressed' }] })
    const { data, response } = await openai.chat.completions
      .create({ model: 'gpt-4.1', messages })
      .withResponse()
    expect(response.headers.get('content-encoding')).toBe('gzip')
    expect(data.choices[0]?.message.content).toBe('compressed')
  })
})
