import { createRequire } from 'node:module'
import {
  BedrockRuntimeClient,
  type BedrockRuntimeClientConfig,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  ModelStreamErrorException,
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
const body = JSON.stringify({
  anthropic_version: 'bedrock-2023-05-31',
  max_tokens: 256,
  messages: [{ role: 'user', content: 'Refund invoice inv_1' }],
})
const decode = (bytes: Uint8Array | undefined) => JSON.parse(new TextDecoder().decode(bytes))

describe('Bedrock InvokeModel with Claude', () => {
  it('answers Anthropic’s message body, with Bedrock’s ids', async () => {
    const bedrock = await client({
      reply: [
        {
          toolCalls: [{ name: 'refund', args: { invoice: 'inv_1' } }],
          usage: { inputTokens: 9, outputTokens: 4 },
        },
      ],
    })
    const answer = await bedrock.send(
      new InvokeModelCommand({ modelId, body, contentType: 'application/json' }),
    )
    const message = decode(answer.body)
    expect(message).toMatchObject({
      type: 'message',
      stop_reason: 'tool_use',
      usage: { input_tokens: 9, output_tokens: 4 },
      content: [{ type: 'tool_use', name: 'refund', input: { invoice: 'inv_1' } }],
    })
    expect(message.id).toMatch(/^msg_bdrk_01/)
    expect(message.content[0].id).toMatch(/^toolu_bdrk_01/)
    expect(provider?.requests[0]?.path).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/invoke')
  })

  it('streams each Anthropic event as a chunk of base64 bytes, the last with the invocation metrics', async () => {
    const bedrock = await client({
      reply: [{ text: 'Refunded.', usage: { inputTokens: 12, outputTokens: 3 } }],
    })
    const answer = await bedrock.send(new InvokeModelWithResponseStreamCommand({ modelId, body }))
    const events: { type: string; [key: string]: unknown }[] = []
    for await (const part of answer.body!) events.push(decode(part.chunk?.bytes))
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ])
    expect(events.at(-1)?.['amazon-bedrock-invocationMetrics']).toMatchObject({
      inputTokenCount: 12,
      outputTokenCount: 3,
    })
  })

  it('fails the stream with a mid-stream exception as the SDK class', async () => {
    const bedrock = await client({ reply: [{ text: 'a b c', streamError: { afterEvents: 2 } }] })
    const answer = await bedrock.send(new InvokeModelWithResponseStreamCommand({ modelId, body }))
    const error = await (async () => {
      for await (const _ of answer.body!);
    })().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ModelStreamErrorException)
  })
})
