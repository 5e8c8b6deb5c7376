import { describe, expect, it } from 'vitest'
import { readModelAnswer, readModelRequest } from '../read-exchange.js'
import { recordedUsage } from '../usage.js'
import { bedrockConverseCodec, modelInPath } from './bedrock-converse.js'
import { bedrockInvokeCodec } from './bedrock-invoke.js'
import { findCodec, isModelHost, isVolatileField, KEY_VARIABLES, PROVIDER_ID } from './index.js'

const PATH = '/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0'
const frame = (type: string, json: unknown, message = 'event') => ({
  t: 0,
  headers: { [message === 'event' ? ':event-type' : ':exception-type']: type, ':message-type': message },
  json,
})

describe('Bedrock Runtime', () => {
  it('serves from the regional, FIPS, China and dual-stack hosts, and owns its four operations', () => {
    for (const host of [
      'bedrock-runtime.us-east-1.amazonaws.com',
      'bedrock-runtime-fips.us-gov-west-1.amazonaws.com',
      'bedrock-runtime.cn-north-1.amazonaws.com.cn',
      'bedrock-runtime.eu-west-1.api.aws',
    ])
      expect(isModelHost(host), host).toBe(true)
    for (const host of [
      'bedrock.us-east-1.amazonaws.com',
      'bedrock-runtime.us-east-1.amazonaws.com.evil.test',
    ])
      expect(isModelHost(host), host).toBe(false)
    expect(findCodec('POST', `${PATH}/converse`)?.name).toBe('bedrock-converse')
    expect(findCodec('POST', `${PATH}/converse-stream`)?.name).toBe('bedrock-converse')
    expect(findCodec('POST', `${PATH}/invoke`)?.name).toBe('bedrock-invoke')
    expect(findCodec('POST', `${PATH}/invoke-with-response-stream`)?.name).toBe('bedrock-invoke')
    expect(findCodec('GET', `${PATH}/converse`)).toBeUndefined()
    expect(modelInPath(`${PATH}/converse`)).toBe('anthropic.claude-3-5-sonnet-20240620-v1:0')
  })

  it('sets placeholders for the SigV4 credentials in replay, masks its ids, padding and timings', () => {
    expect(KEY_VARIABLES).toEqual(expect.arrayContaining(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']))
    expect(
      'tooluse_kZJMlvQmRJ6eAyJE msg_bdrk_01ABCDEFGHIJ toolu_bdrk_01ABCDEFGHIJ'.replace(PROVIDER_ID, '<id>'),
    ).toBe('<id> <id> <id>')
    for (const field of ['p', 'latencyMs', 'x-amzn-requestid', 'x-amzn-bedrock-invocation-latency'])
      expect(isVolatileField(field), field).toBe(true)
  })

  it('answers a miss with a ValidationException: the message in the body, the type in a header', () => {
    expect(bedrockConverseCodec.errorBody('the report')).toEqual({ message: 'the report' })
    expect(bedrockInvokeCodec.errorHeaders).toEqual({ 'x-amzn-errortype': 'ValidationException' })
  })
})

describe('Converse', () => {
  it('keys the body without request metadata and service tier, tools sorted by name', () => {
    const body = {
      messages: [{ role: 'user', content: [{ text: 'hi' }] }],
      requestMetadata: { team: 'a' },
      serviceTier: { type: 'priority' },
      inferenceConfig: { maxTokens: 8 },
      toolConfig: {
        tools: [
          { toolSpec: { name: 'search' } },
          { cachePoint: { type: 'default' } },
          { toolSpec: { name: 'add' } },
        ],
        toolChoice: { auto: {} },
      },
    }
    expect(bedrockConverseCodec.canonicalBody(body)).toEqual({
      messages: body.messages,
      inferenceConfig: { maxTokens: 8 },
      toolConfig: {
        tools: [
          { toolSpec: { name: 'add' } },
          { cachePoint: { type: 'default' } },
          { toolSpec: { name: 'search' } },
        ],
        toolChoice: { auto: {} },
      },
    })
  })

  it('reads the model from the path, the tools, and a tool result as the last turn', () => {
    const request = readModelRequest({
      api: 'bedrock-converse',
      method: 'POST',
      path: `${PATH}/converse`,
      body: {
        messages: [
          { role: 'user', content: [{ text: 'Weather?' }] },
          {
            role: 'assistant',
            content: [{ toolUse: { toolUseId: 't', name: 'weather', input: { city: 'Oslo' } } }],
          },
          { role: 'user', content: [{ toolResult: { toolUseId: 't', content: [{ json: { c: 18 } }] } }] },
        ],
        toolConfig: { tools: [{ toolSpec: { name: 'weather' } }, { cachePoint: { type: 'default' } }] },
      },
    })
    expect(request).toMatchObject({
      model: 'anthropic.claude-3-5-sonnet-20240620-v1:0',
      messages: 3,
      tools: 1,
      last: { role: 'user', text: 'toolResult: {"c":18}' },
    })
  })

  it('reads a streamed answer, its usage from the metadata event, and an exception in the stream', () => {
    const input = { api: 'bedrock-converse', path: `${PATH}/converse-stream`, body: {} }
    const frames = [
      frame('messageStart', { role: 'assistant', p: 'ab' }),
      frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Let me ' } }),
      frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'look.' } }),
      frame('contentBlockStart', {
        contentBlockIndex: 1,
        start: { toolUse: { toolUseId: 'tooluse_1', name: 'a' } },
      }),
      frame('contentBlockStart', {
        contentBlockIndex: 2,
        start: { toolUse: { toolUseId: 'tooluse_2', name: 'b' } },
      }),
      frame('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '{"x":' } } }),
      frame('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '1}' } } }),
      frame('messageStop', { stopReason: 'tool_use' }),
      frame('metadata', {
        usage: { inputTokens: 12, outputTokens: 5, totalTokens: 17 },
        metrics: { latencyMs: 9 },
      }),
    ]
    const out = { status: 200, headers: {}, body: { frames } }
    expect(readModelAnswer(input, out)).toEqual({
      status: 200,
      streamed: true,
      text: 'Let me look.',
      toolCalls: [
        { id: 'tooluse_1', name: 'a', arguments: '{"x":1}' },
        { id: 'tooluse_2', name: 'b', arguments: '{}' },
      ],
      finishReason: 'tool_use',
      usage: { input: 12, output: 5 },
    })
    const failed = {
      ...out,
      body: { frames: [frames[1], frame('throttlingException', { message: 'Slow down' }, 'exception')] },
    }
    expect(readModelAnswer(input, failed)?.error).toBe('stream error: throttlingException: Slow down')
  })
})

describe('InvokeModel', () => {
  const input = { api: 'bedrock-invoke', path: `${PATH}/invoke-with-response-stream`, body: {} }

  it('reads a model that takes a prompt, and the model from the path', () => {
    expect(readModelRequest({ ...input, body: { prompt: 'Hello', max_gen_len: 8 } })).toMatchObject({
      model: 'anthropic.claude-3-5-sonnet-20240620-v1:0',
      messages: 1,
      last: { role: 'user', text: 'Hello' },
    })
  })

  it('reads Claude’s events from the chunks, decoded or still base64, and counts tokens by the invocation metrics otherwise', () => {
    const chunk = (event: unknown) => frame('chunk', { bytes: event, p: 'a' })
    const base64 = (event: unknown) => Buffer.from(JSON.stringify(event)).toString('base64')
    const frames = [
      chunk({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      chunk({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi ' } }),
      chunk(base64({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'there' } })),
      chunk({ type: 'message_delta', delta: { stop_reason: 'end_turn' } }),
      chunk({
        type: 'message_stop',
        'amazon-bedrock-invocationMetrics': { inputTokenCount: 7, outputTokenCount: 2 },
      }),
    ]
    const out = { status: 200, headers: {}, body: { frames } }
    expect(readModelAnswer(input, out)).toMatchObject({
      text: 'Hi there',
      finishReason: 'end_turn',
      usage: { input: 7, output: 2 },
    })
    expect(recordedUsage(input, out)).toEqual({ input: 7, output: 2 })
  })
})
