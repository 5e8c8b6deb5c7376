import OpenAI, { APIError } from 'openai'
import type { ResponseStreamEvent } from 'openai/resources/responses/responses'
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

const tools = [
  {
    type: 'function' as const,
    name: 'get_weather',
    strict: false,
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
]

describe('OpenAI Responses', () => {
  it('answers a JSON response whose output_text the SDK derives', async () => {
    const openai = await client({ reply: [{ text: 'Bonjour.', usage: { inputTokens: 9, outputTokens: 3 } }] })
    const response = await openai.responses.create({ model: 'gpt-4.1', input: 'Say hello in French' })
    expect(response.output_text).toBe('Bonjour.')
    expect(response.status).toBe('completed')
    expect(response.id).toMatch(/^resp_[0-9a-f]{48}$/)
    expect(response.usage).toMatchObject({ input_tokens: 9, output_tokens: 3, total_tokens: 12 })
  })

  it('streams named events with increasing sequence numbers, ending with response.completed', async () => {
    const openai = await client({ reply: [{ text: 'Hello there world' }] })
    const stream = await openai.responses.create({ model: 'gpt-4.1', input: 'Hi', stream: true })
    const events: ResponseStreamEvent[] = []
    for await (const event of stream) events.push(event)
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ])
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i))
    const deltas = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []))
    expect(deltas.join('')).toBe('Hello there world')
    const completed = events.at(-1)
    expect(completed?.type === 'response.completed' && completed.response.output).toMatchObject([
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hello there world' }] },
    ])
  })

  it('streams function-call argument deltas and the responses.stream helper returns the final response', async () => {
    const openai = await client({
      reply: [{ toolCalls: [{ id: 'call_w1', name: 'get_weather', args: { city: 'Reykjavík' } }] }],
    })
    const stream = openai.responses.stream({ model: 'gpt-4.1', input: 'Weather?', tools })
    const deltas: string[] = []
    stream.on('response.function_call_arguments.delta', (e) => deltas.push(e.delta))
    const response = await stream.finalResponse()
    const call = response.output[0]
    expect(call).toMatchObject({ type: 'function_call', call_id: 'call_w1', name: 'get_weather' })
    expect(call?.type === 'function_call' && JSON.parse(call.arguments)).toEqual({ city: 'Reykjavík' })
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.join('')).toBe('{"city":"Reykjavík"}')
    expect(response.tools).toEqual(tools)
  })

  it('reports max-token truncation as response.incomplete', async () => {
    const openai = await client({ reply: [{ text: 'cut', finishReason: 'length' }] })
    const stream = await openai.responses.create({ model: 'gpt-4.1', input: 'x', stream: true })
    const types: string[] = []
    let reason: string | undefined
    for await (const event of stream) {
      types.push(event.type)
      if (event.type === 'response.incomplete') reason = event.response.incomplete_details?.reason
    }
    expect(types.at(-1)).toBe('response.incomplete')
    expect(reason).toBe('max_output_tokens')
  })

  it('surfaces the in-band error event as the SDK APIError', async () => {
    const openai = await client({
      reply: [{ text: 'a b c d e', streamError: { afterEvents: 4, message: 'stream broke' } }],
    })
    const stream = await openai.responses.create({ model: 'gpt-4.1', input: 'x', stream: true })
    const types: string[] = []
    const error = await (async () => {
      for await (const event of stream) types.push(event.type)
    })().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(APIError)
    expect((error as APIError).message).toContain('stream broke')
    expect(types).toHaveLength(4)
  })
})
