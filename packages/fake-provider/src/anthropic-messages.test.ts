import Anthropic, { APIError } from '@anthropic-ai/sdk'
import { afterEach, describe, expect, it } from 'vitest'
import { type FakeProvider, startFakeProvider } from './index.js'
import type { FakeProviderOptions } from './server.js'

let provider: FakeProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

async function client(options: FakeProviderOptions): Promise<Anthropic> {
  provider = await startFakeProvider(options)
  return new Anthropic({ apiKey: 'sk-ant-test-dummy', baseURL: provider.anthropicBaseURL, maxRetries: 0 })
}

const model = 'claude-sonnet-5'
const messages = [{ role: 'user' as const, content: 'Refund invoice inv_1' }]
const tools = [
  {
    name: 'refund',
    description: 'Refund an invoice',
    input_schema: { type: 'object' as const, properties: { invoice: { type: 'string' } } },
  },
]

describe('Anthropic Messages', () => {
  it('answers a JSON message with content blocks, stop_reason, usage and the request-id header', async () => {
    const anthropic = await client({
      reply: [{ text: 'Done.', usage: { inputTokens: 30, outputTokens: 2 } }],
    })
    const message = await anthropic.messages.create({ model, max_tokens: 256, messages })
    expect(message.content).toEqual([{ type: 'text', text: 'Done.' }])
    expect(message.stop_reason).toBe('end_turn')
    expect(message.usage).toMatchObject({ input_tokens: 30, output_tokens: 2 })
    expect(message.id).toMatch(/^msg_01[A-Za-z0-9]{22}$/)
    expect(message._request_id).toMatch(/^req_011C/)
    const request = provider?.requests[0]
    // SDK 1.x sends the API key as a bearer token, not as x-api-key.
    expect(request?.headers.authorization).toBe('Bearer sk-ant-test-dummy')
    expect(request?.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(request?.endpoint).toBe('anthropic-messages')
  })

  it('answers tool_use blocks with an input object and stop_reason tool_use', async () => {
    const anthropic = await client({
      reply: [
        {
          text: 'Let me refund it.',
          toolCalls: [{ id: 'toolu_01X', name: 'refund', args: { invoice: 'inv_1' } }],
        },
      ],
    })
    const message = await anthropic.messages.create({ model, max_tokens: 256, messages, tools })
    expect(message.content).toEqual([
      { type: 'text', text: 'Let me refund it.' },
      { type: 'tool_use', id: 'toolu_01X', name: 'refund', input: { invoice: 'inv_1' } },
    ])
    expect(message.stop_reason).toBe('tool_use')
  })

  it('streams text and tool_use with input_json_delta that messages.stream assembles in finalMessage()', async () => {
    const anthropic = await client({
      reply: [
        {
          text: 'Refunding now.',
          toolCalls: [{ name: 'refund', args: { invoice: 'inv_1', reason: 'duplicate charge' } }],
          usage: { inputTokens: 40, outputTokens: 25 },
        },
      ],
    })
    const stream = anthropic.messages.stream({ model, max_tokens: 256, messages, tools })
    const events: string[] = []
    const jsonDeltas: string[] = []
    stream.on('streamEvent', (event) => {
      events.push(event.type)
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') {
        jsonDeltas.push(event.delta.partial_json)
      }
    })
    const message = await stream.finalMessage()
    expect(message.content).toMatchObject([
      { type: 'text', text: 'Refunding now.' },
      { type: 'tool_use', name: 'refund', input: { invoice: 'inv_1', reason: 'duplicate charge' } },
    ])
    expect(message.content[1]?.type === 'tool_use' && message.content[1].id).toMatch(
      /^toolu_01[A-Za-z0-9]{22}$/,
    )
    expect(message.stop_reason).toBe('tool_use')
    expect(message.usage).toMatchObject({ input_tokens: 40, output_tokens: 25 })
    expect(events[0]).toBe('message_start')
    expect(events.slice(-2)).toEqual(['message_delta', 'message_stop'])
    expect(events).not.toContain('ping')
    expect(jsonDeltas.length).toBeGreaterThan(2)
  })

  it('surfaces the mid-stream error event as the SDK APIError', async () => {
    const anthropic = await client({ reply: [{ text: 'a b c d', streamError: { afterEvents: 3 } }] })
    const stream = anthropic.messages.stream({ model, max_tokens: 256, messages })
    const error = await stream.finalMessage().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(APIError)
    expect((error as APIError).message).toContain('overloaded_error')
  })

  it.each([
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [529, 'overloaded_error'],
  ])('surfaces HTTP %i as APIError with status and error type %s', async (status, type) => {
    const anthropic = await client({ reply: [{ error: { status } }] })
    const error = await anthropic.messages
      .create({ model, max_tokens: 256, messages })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(APIError)
    expect((error as APIError).status).toBe(status)
    expect((error as APIError).error).toMatchObject({ type: 'error', error: { type } })
    expect((error as APIError).requestID).toMatch(/^req_011C/)
  })
})
