import { createRequire } from 'node:module'
import {
  BedrockRuntimeClient,
  type BedrockRuntimeClientConfig,
  ConverseCommand,
  ConverseStreamCommand,
  InternalServerException,
  ModelStreamErrorException,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime'
import { afterEach, describe, expect, it } from 'vitest'
import { type FakeProvider, startFakeProvider } from './index.js'
import type { FakeProviderOptions } from './server.js'

// The client speaks HTTP/2 by default and the fake provider HTTP/1.1: the SDK's own HTTP/1.1 handler.
const sdk = createRequire(createRequire(import.meta.url).resolve('@aws-sdk/client-bedrock-runtime'))
const { NodeHttpHandler } = sdk('@smithy/node-http-handler') as {
  NodeHttpHandler: new () => NonNullable<BedrockRuntimeClientConfig['requestHandler']>
}

let provider: FakeProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

async function client(options: FakeProviderOptions): Promise<BedrockRuntimeClient> {
  provider = await startFakeProvider(options)
  return new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: provider.url,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'fake-secret' },
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler(),
  })
}

const modelId = 'anthropic.claude-3-5-sonnet-20240620-v1:0'
const messages = [{ role: 'user' as const, content: [{ text: 'Refund invoice inv_1' }] }]
const toolConfig = {
  tools: [
    {
      toolSpec: {
        name: 'refund',
        description: 'Refund an invoice',
        inputSchema: { json: { type: 'object', properties: { invoice: { type: 'string' } } } },
      },
    },
  ],
}

describe('Bedrock Converse', () => {
  it('answers a message with its stop reason, usage and request id, the model id encoded in the path', async () => {
    const bedrock = await client({ reply: [{ text: 'Done.', usage: { inputTokens: 30, outputTokens: 2 } }] })
    const answer = await bedrock.send(new ConverseCommand({ modelId, messages }))
    expect(answer.output?.message).toEqual({ role: 'assistant', content: [{ text: 'Done.' }] })
    expect(answer.stopReason).toBe('end_turn')
    expect(answer.usage).toEqual({ inputTokens: 30, outputTokens: 2, totalTokens: 32 })
    expect(answer.$metadata.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/)
    const request = provider?.requests[0]
    expect(request?.path).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse')
    expect(request?.endpoint).toBe('bedrock-converse')
    expect(request?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\//)
  })

  it('answers tool uses with their input object and stop reason tool_use', async () => {
    const bedrock = await client({
      reply: [{ toolCalls: [{ id: 'tooluse_1', name: 'refund', args: { invoice: 'inv_1' } }] }],
    })
    const answer = await bedrock.send(new ConverseCommand({ modelId, messages, toolConfig }))
    expect(answer.output?.message?.content).toEqual([
      { toolUse: { toolUseId: 'tooluse_1', name: 'refund', input: { invoice: 'inv_1' } } },
    ])
    expect(answer.stopReason).toBe('tool_use')
  })

  it('streams text and tool input deltas in binary event-stream messages the SDK decodes', async () => {
    const bedrock = await client({
      reply: [
        {
          text: 'Refunding now.',
          toolCalls: [{ name: 'refund', args: { invoice: 'inv_1', reason: 'duplicate charge' } }],
          usage: { inputTokens: 40, outputTokens: 25 },
        },
      ],
    })
    const answer = await bedrock.send(new ConverseStreamCommand({ modelId, messages, toolConfig }))
    const kinds: string[] = []
    let text = ''
    let input = ''
    let usage: unknown
    for await (const event of answer.stream!) {
      kinds.push(Object.keys(event)[0]!)
      text += event.contentBlockDelta?.delta?.text ?? ''
      input += event.contentBlockDelta?.delta?.toolUse?.input ?? ''
      if (event.contentBlockStart)
        expect(event.contentBlockStart.start?.toolUse?.toolUseId).toMatch(/^tooluse_/)
      usage = event.metadata?.usage ?? usage
    }
    expect(text).toBe('Refunding now.')
    expect(JSON.parse(input)).toEqual({ invoice: 'inv_1', reason: 'duplicate charge' })
    expect(kinds[0]).toBe('messageStart')
    expect(kinds.slice(-2)).toEqual(['messageStop', 'metadata'])
    expect(usage).toEqual({ inputTokens: 40, outputTokens: 25, totalTokens: 65 })
    expect(provider?.requests[0]?.path).toMatch(/\/converse-stream$/)
  })

  it('fails the stream with the exception it sends mid-way, as the SDK class', async () => {
    const bedrock = await client({
      reply: [
        { text: 'a b c d', streamError: { afterEvents: 3 } },
        {
          text: 'a b c d',
          streamError: { afterEvents: 2, type: 'throttlingException', message: 'Slow down' },
        },
      ],
    })
    for (const [Class, message] of [
      [ModelStreamErrorException, 'The model stream was interrupted.'],
      [ThrottlingException, 'Slow down'],
    ] as const) {
      const answer = await bedrock.send(new ConverseStreamCommand({ modelId, messages }))
      const error = await (async () => {
        for await (const _ of answer.stream!);
      })().catch((e: unknown) => e)
      expect(error).toBeInstanceOf(Class)
      expect((error as Error).message).toBe(message)
    }
  })

  it.each([
    [400, ValidationException],
    [429, ThrottlingException],
    [500, InternalServerException],
  ] as const)(
    'answers HTTP %i in Bedrock’s error shape, which the SDK throws as %o',
    async (status, Class) => {
      const bedrock = await client({ reply: [{ error: { status, message: 'no' } }] })
      const error = await bedrock.send(new ConverseCommand({ modelId, messages })).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(Class)
      expect((error as ValidationException).message).toBe('no')
      expect((error as ValidationException).$metadata.httpStatusCode).toBe(status)
    },
  )
})
