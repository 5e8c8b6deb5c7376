import { createMemoryStore, parseCassette } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider, type Turn } from '@agent-tape/fake-provider'
import { installHttpBoundary, provideReplayKeys } from '@agent-tape/http'
import { readModelAnswer, recordedUsage } from '@agent-tape/http/internal'
import {
  ConverseStreamCommand,
  InvokeModelWithResponseStreamCommand,
  ThrottlingException,
} from '@aws-sdk/client-bedrock-runtime'
import { afterAll, beforeAll, expect, it } from 'vitest'
import {
  AWS_CREDENTIALS,
  bedrockClient,
  http2BedrockClient,
  MODEL_ID,
  runConverseAgent,
} from '../support/bedrock-agent.js'
import { researchScript } from '../support/scripts.js'
import { runTaped } from '../support/tape-run.js'

// What every client of every API gets alike is in test/providers/; here, what Bedrock does
// besides: SigV4 headers and response headers, replay keys for the default credential chain, the
// binary event stream's frames, exceptions by type, the default client over HTTP/2.
const boundary = installHttpBoundary()
const store = createMemoryStore()
const QUESTION = 'When was magnetic tape invented?'
const ENCODED_PATH = `/model/${encodeURIComponent(MODEL_ID)}`
let provider: FakeProvider

beforeAll(async () => {
  provider = await startFakeProvider({
    reply: (req) => researchScript(req.body),
    seed: 'bedrock',
    http2: true,
  })
  boundary.addModelEndpoints(provider.url, provider.http2Url!)
})
afterAll(() => provider.close())

/** A fake provider of its own for the turns a test scripts, closed after it. */
async function scripted<T>(reply: Turn[], run: (url: string) => Promise<T>): Promise<T> {
  const own = await startFakeProvider({ reply })
  boundary.addModelEndpoints(own.url)
  try {
    return await run(own.url)
  } finally {
    await own.close()
  }
}

function decisionsOf(file: string) {
  return parseCassette(store.files[file]!, file).decisions
}

/** An error as a caller sees it: its class, name, message, and what the SDK attached. */
function errorShape(error: unknown) {
  const e = error as Error & { $fault?: string; $metadata?: { httpStatusCode?: number; requestId?: string } }
  return {
    class: e?.constructor,
    name: e?.name,
    message: e?.message,
    fault: e?.$fault,
    status: e?.$metadata?.httpStatusCode,
    requestId: e?.$metadata?.requestId,
  }
}

it('keys the path as sent and the Converse body, never a SigV4 header, and stores no credential', async () => {
  const rec = await runTaped(store, 'converse.jsonl', 'auto', () =>
    runConverseAgent(bedrockClient(provider.url), QUESTION),
  )
  expect(rec.result?.text).toBe('Magnetic tape recording was invented in 1928.')
  const text = store.files['converse.jsonl']!
  const [first, , last] = decisionsOf('converse.jsonl')
  expect(first!.in).toEqual({
    api: 'bedrock-converse',
    method: 'POST',
    path: `${ENCODED_PATH}/converse`,
    body: expect.objectContaining({ messages: [{ role: 'user', content: [{ text: QUESTION }] }] }),
  })
  // Tools sorted by name in the key.
  const tools = (first!.in as { body: { toolConfig: { tools: { toolSpec: { name: string } }[] } } }).body
    .toolConfig.tools
  expect(tools.map((t) => t.toolSpec.name)).toEqual(['fetch_page', 'search'])
  expect(Object.keys((first!.out as { headers: object }).headers).sort()).toEqual([
    'content-type',
    'x-amzn-requestid',
  ])
  for (const value of [
    AWS_CREDENTIALS.accessKeyId,
    AWS_CREDENTIALS.secretAccessKey,
    AWS_CREDENTIALS.sessionToken,
  ])
    expect(text).not.toContain(value)
  for (const header of [
    'authorization',
    'x-amz-date',
    'x-amz-security-token',
    'x-amz-content-sha256',
    'amz-sdk-invocation-id',
    'amz-sdk-request',
    'AWS4-HMAC-SHA256',
  ])
    expect(text.toLowerCase()).not.toContain(header.toLowerCase())
  expect(recordedUsage(last!.in, last!.out)).toEqual({ input: 300, output: 9 })
  expect(readModelAnswer(last!.in, last!.out)).toMatchObject({
    text: 'Magnetic tape recording was invented in 1928.',
    finishReason: 'end_turn',
    usage: { input: 300, output: 9 },
  })
  expect(readModelAnswer(first!.in, first!.out)?.toolCalls).toEqual([
    {
      id: expect.stringMatching(/^tooluse_/),
      name: 'search',
      arguments: '{"query":"tape recorders history"}',
    },
  ])
})

it('replays with no credentials but the placeholders provideReplayKeys sets: the default chain signs with them', async () => {
  const set = provideReplayKeys(process.env)
  try {
    expect(set).toEqual(expect.arrayContaining(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']))
    // No `credentials`: the SDK's default chain finds the placeholders in the environment.
    const client = bedrockClient(provider.url, { credentials: undefined })
    const replay = await runTaped(store, 'converse.jsonl', 'replay', () => runConverseAgent(client, QUESTION))
    expect(replay.state).toMatchObject({ status: 'clean', replayed: 3 })
    expect(replay.result?.text).toBe('Magnetic tape recording was invented in 1928.')
  } finally {
    for (const name of set) delete process.env[name]
  }
})

it('ConverseStream: replays every event of the binary stream, stored as readable frames', async () => {
  const run = (url: string) => async () => {
    const answer = await bedrockClient(url).send(
      new ConverseStreamCommand({
        modelId: MODEL_ID,
        messages: [{ role: 'user', content: [{ text: 'hi' }] }],
      }),
    )
    const events: unknown[] = []
    for await (const event of answer.stream!) events.push(event)
    return { metadata: answer.$metadata, events }
  }
  const turn: Turn = {
    text: 'Tape arrived in 1928.',
    toolCalls: [{ name: 'search', args: { query: 'tape' } }],
    usage: { inputTokens: 21, outputTokens: 8 },
  }
  const rec = await scripted([turn], async (url) => {
    const recorded = await runTaped(store, 'converse-stream.jsonl', 'auto', run(url))
    const replayed = await runTaped(store, 'converse-stream.jsonl', 'replay', run(url))
    return { recorded, replayed }
  })
  expect(rec.recorded.error).toBeUndefined()
  expect(rec.replayed.state).toMatchObject({ status: 'clean', replayed: 1 })
  expect(rec.replayed.result).toEqual(rec.recorded.result)
  expect(rec.recorded.result?.events[0]).toEqual({ messageStart: { role: 'assistant' } })
  const [decision] = decisionsOf('converse-stream.jsonl')
  expect(decision!.in).toMatchObject({ api: 'bedrock-converse', path: `${ENCODED_PATH}/converse-stream` })
  const frames = (decision!.out as { body: { frames: { headers: object; json: unknown }[] } }).body.frames
  expect(frames[1]).toMatchObject({
    headers: {
      ':event-type': 'contentBlockDelta',
      ':content-type': 'application/json',
      ':message-type': 'event',
    },
    json: { contentBlockIndex: 0, delta: { text: 'Tape ' }, p: expect.any(String) },
  })
  expect(readModelAnswer(decision!.in, decision!.out)).toMatchObject({
    streamed: true,
    text: 'Tape arrived in 1928.',
    toolCalls: [{ name: 'search', arguments: '{"query":"tape"}' }],
    finishReason: 'tool_use',
    usage: { input: 21, output: 8 },
  })
})

it('InvokeModelWithResponseStream: replays every chunk, stored with the model’s events decoded', async () => {
  const body = JSON.stringify({
    anthropic_version: 'bedrock-2023-05-31',
    max_tokens: 256,
    messages: [{ role: 'user', content: 'hi' }],
  })
  const run = (url: string) => async () => {
    const answer = await bedrockClient(url).send(
      new InvokeModelWithResponseStreamCommand({ modelId: MODEL_ID, body }),
    )
    const chunks: unknown[] = []
    for await (const part of answer.body!)
      chunks.push(JSON.parse(new TextDecoder().decode(part.chunk?.bytes)))
    return { contentType: answer.contentType, chunks }
  }
  const turn: Turn = { text: 'Magnetic tape, 1928.', usage: { inputTokens: 11, outputTokens: 6 } }
  const { recorded, replayed } = await scripted([turn], async (url) => ({
    recorded: await runTaped(store, 'invoke-stream.jsonl', 'auto', run(url)),
    replayed: await runTaped(store, 'invoke-stream.jsonl', 'replay', run(url)),
  }))
  expect(recorded.error).toBeUndefined()
  expect(replayed.state).toMatchObject({ status: 'clean', replayed: 1 })
  expect(replayed.result).toEqual(recorded.result)
  expect(recorded.result?.chunks).toContainEqual(
    expect.objectContaining({
      type: 'content_block_delta',
      delta: { type: 'text_delta', text: 'Magnetic ' },
    }),
  )
  const [decision] = decisionsOf('invoke-stream.jsonl')
  const frames = (decision!.out as { body: { frames: { json: { bytes: unknown }; decoded?: string }[] } })
    .body.frames
  expect(frames[2]).toMatchObject({
    headers: { ':event-type': 'chunk' },
    json: {
      bytes: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Magnetic ' } },
    },
    decoded: 'bytes',
  })
  expect(readModelAnswer(decision!.in, decision!.out)).toMatchObject({
    streamed: true,
    text: 'Magnetic tape, 1928.',
    finishReason: 'end_turn',
    usage: { input: 11, output: 6 },
  })
})

// A 403 and a stream's default exception are in test/providers/; these are read by type.
it('replays HTTP 429 as the same ThrottlingException, with its message and request id', async () => {
  const run = (url: string) => () => runConverseAgent(bedrockClient(url, { maxAttempts: 1 }), QUESTION)
  const { recorded, replayed } = await scripted(
    [{ error: { status: 429, message: 'refused (429)' } }],
    async (url) => ({
      recorded: await runTaped(store, 'error-429.jsonl', 'auto', run(url)),
      replayed: await runTaped(store, 'error-429.jsonl', 'replay', run(url)),
    }),
  )
  expect(recorded.error).toBeInstanceOf(ThrottlingException)
  expect(errorShape(replayed.error)).toEqual(errorShape(recorded.error))
  expect(errorShape(replayed.error)).toMatchObject({ message: 'refused (429)', status: 429 })
  expect(replayed.state.status).toBe('clean')
  const [decision] = decisionsOf('error-429.jsonl')
  expect(readModelAnswer(decision!.in, decision!.out)?.error).toBe('429 refused (429)')
})

it('ConverseStream: replays a mid-stream throttlingException as the same error, after the same events', async () => {
  const run = (url: string) => async () => {
    const seen: unknown[] = []
    try {
      const answer = await bedrockClient(url, { maxAttempts: 1 }).send(
        new ConverseStreamCommand({
          modelId: MODEL_ID,
          messages: [{ role: 'user', content: [{ text: 'hi' }] }],
        }),
      )
      for await (const event of answer.stream!) seen.push(event)
    } catch (error) {
      return { seen, error: errorShape(error) }
    }
    return { seen, error: undefined }
  }
  const turn: Turn = {
    text: 'partial answer here',
    streamError: { afterEvents: 3, type: 'throttlingException', message: 'Try again later.' },
  }
  const { recorded, replayed } = await scripted([turn], async (url) => ({
    recorded: await runTaped(store, 'stream-error.jsonl', 'auto', run(url)),
    replayed: await runTaped(store, 'stream-error.jsonl', 'replay', run(url)),
  }))
  expect(recorded.result?.error).toMatchObject({ class: ThrottlingException, message: 'Try again later.' })
  expect(recorded.result?.seen).toHaveLength(3)
  expect(replayed.result).toEqual(recorded.result)
  expect(replayed.state.status).toBe('clean')
  const [decision] = decisionsOf('stream-error.jsonl')
  expect(readModelAnswer(decision!.in, decision!.out)?.error).toBe(
    'stream error: throttlingException: Try again later.',
  )
})

it('the default client, over HTTP/2, records and replays the same answers with zero connections', async () => {
  const client = http2BedrockClient(provider.http2Url!)
  const rec = await runTaped(store, 'http2.jsonl', 'auto', () => runConverseAgent(client, QUESTION))
  expect(rec.error).toBeUndefined()
  expect(rec.state).toMatchObject({ status: 'recorded', recorded: 3 })
  const connections = provider.connections
  const replay = await runTaped(store, 'http2.jsonl', 'replay', () => runConverseAgent(client, QUESTION))
  expect(provider.connections).toBe(connections)
  expect(replay.state).toMatchObject({ status: 'clean', replayed: 3 })
  expect(replay.result).toEqual(rec.result)
  // Over either protocol, the same request is the same decision: the HTTP/1.1 recording replays.
  expect(decisionsOf('http2.jsonl')[0]!.in).toEqual(decisionsOf('converse.jsonl')[0]!.in)
  const across = await runTaped(store, 'converse.jsonl', 'replay', () => runConverseAgent(client, QUESTION))
  expect(across.state).toMatchObject({ status: 'clean', replayed: 3 })
  expect(across.result?.text).toBe('Magnetic tape recording was invented in 1928.')
  expect(provider.connections).toBe(connections)
})
