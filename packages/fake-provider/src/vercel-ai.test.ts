import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { APICallError, generateText, type LanguageModel, stepCountIs, streamText, tool } from 'ai'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { type FakeProvider, type ReceivedRequest, startFakeProvider, type Turn } from './index.js'

let provider: FakeProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

type ModelFactory = (p: FakeProvider) => LanguageModel
const models: Array<[string, ModelFactory]> = [
  [
    '@ai-sdk/openai responses',
    (p) => createOpenAI({ apiKey: 'sk-test', baseURL: p.openaiBaseURL })('gpt-4.1'),
  ],
  [
    '@ai-sdk/openai chat',
    (p) => createOpenAI({ apiKey: 'sk-test', baseURL: p.openaiBaseURL }).chat('gpt-4.1'),
  ],
  [
    '@ai-sdk/anthropic',
    (p) => createAnthropic({ apiKey: 'sk-ant-test', baseURL: `${p.anthropicBaseURL}/v1` })('claude-sonnet-5'),
  ],
]

const lookups: string[] = []
const tools = {
  lookup_invoice: tool({
    description: 'Look up an invoice',
    inputSchema: z.object({ id: z.string() }),
    execute: async ({ id }) => {
      lookups.push(id)
      return { id, amount: 42, status: 'paid' }
    },
  }),
}

const script: Turn[] = [
  {
    toolCalls: [{ name: 'lookup_invoice', args: { id: 'inv_1' } }],
    usage: { inputTokens: 50, outputTokens: 10 },
  },
  {
    toolCalls: [{ name: 'lookup_invoice', args: { id: 'inv_2' } }],
    usage: { inputTokens: 80, outputTokens: 10 },
  },
  { text: 'Both invoices are paid.', usage: { inputTokens: 120, outputTokens: 6 } },
]

/** The tool results the SDK sent back in the last request, in each provider's own shape. */
function toolResultsIn(request: ReceivedRequest | undefined): string {
  return JSON.stringify(request?.body.messages ?? request?.body.input)
}

describe.each(models)('Vercel ai with %s', (_name, model) => {
  it('runs generateText through two tool steps to the final answer', async () => {
    lookups.length = 0
    provider = await startFakeProvider({ reply: script })
    const result = await generateText({
      model: model(provider),
      tools,
      stopWhen: stepCountIs(5),
      prompt: 'Check',
    })
    expect(result.text).toBe('Both invoices are paid.')
    expect(result.steps.map((s) => s.finishReason)).toEqual(['tool-calls', 'tool-calls', 'stop'])
    expect(lookups).toEqual(['inv_1', 'inv_2'])
    expect(result.totalUsage).toMatchObject({ inputTokens: 250, outputTokens: 26 })
    expect(provider.requests).toHaveLength(3)
    expect(toolResultsIn(provider.requests[2])).toContain('inv_2')
    expect(toolResultsIn(provider.requests[2])).toContain('paid')
  })

  it('runs streamText through two tool steps, streaming the final text', async () => {
    lookups.length = 0
    provider = await startFakeProvider({ reply: script, chunkDelayMs: 1 })
    const result = streamText({ model: model(provider), tools, stopWhen: stepCountIs(5), prompt: 'Check' })
    const deltas: string[] = []
    for await (const delta of result.textStream) deltas.push(delta)
    expect(deltas.join('')).toBe('Both invoices are paid.')
    expect(deltas.length).toBeGreaterThan(1)
    expect(lookups).toEqual(['inv_1', 'inv_2'])
    expect(await result.finishReason).toBe('stop')
    expect((await result.steps).length).toBe(3)
    expect((await result.totalUsage).outputTokens).toBe(26)
    expect(provider.requests.every((r) => r.body.stream === true)).toBe(true)
  })

  it('surfaces an HTTP 429 as APICallError with the status when retries are off', async () => {
    provider = await startFakeProvider({ reply: [{ error: { status: 429 } }] })
    const error = await generateText({ model: model(provider), prompt: 'x', maxRetries: 0 }).catch(
      (e: unknown) => e,
    )
    expect(APICallError.isInstance(error)).toBe(true)
    expect((error as APICallError).statusCode).toBe(429)
    expect((error as APICallError).isRetryable).toBe(true)
  })

  it('surfaces a mid-stream error event as an error part of streamText', async () => {
    provider = await startFakeProvider({ reply: [{ text: 'one two three four five', streamError: {} }] })
    const errors: unknown[] = []
    const result = streamText({
      model: model(provider),
      prompt: 'x',
      onError: ({ error }) => void errors.push(error),
    })
    const parts: string[] = []
    for await (const part of result.fullStream) parts.push(part.type)
    expect(parts).toContain('error')
    expect(errors).toHaveLength(1)
  })
})
