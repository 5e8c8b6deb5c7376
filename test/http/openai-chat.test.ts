import { createMemoryStore, currentTape, parseCassette } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import OpenAI from 'openai'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runWeatherAgent, weatherScript } from '../support/openai-agent.js'
import { runTaped } from '../support/tape-run.js'

const boundary = installHttpBoundary()
let provider: FakeProvider
let client: OpenAI
const store = createMemoryStore()
const API_KEY = `sk-proj-${'T3stKey'.repeat(6)}`

beforeAll(async () => {
  provider = await startFakeProvider({ reply: (req) => weatherScript(req.body as never), seed: 'chat' })
  boundary.addModelEndpoints(provider.url)
  client = new OpenAI({ apiKey: API_KEY, baseURL: provider.openaiBaseURL })
})
afterAll(() => provider.close())

it('records a tool-using run and replays it with zero connections', async () => {
  const rec = await runTaped(store, 'chat.jsonl', 'auto', () =>
    runWeatherAgent(client, 'Weather and time in Paris?', false),
  )
  expect(rec.error).toBeUndefined()
  expect(rec.result).toBe('It is 14:05 in Paris and 18°C with light rain.')
  expect(rec.state).toMatchObject({ action: 'record', recorded: 3, written: true })
  const connections = provider.connections
  const replay = await runTaped(store, 'chat.jsonl', 'replay', () =>
    runWeatherAgent(client, 'Weather and time in Paris?', false),
  )
  expect(replay.result).toBe(rec.result)
  expect(replay.state).toMatchObject({ status: 'clean', replayed: 3 })
  expect(provider.connections).toBe(connections)
  expect(store.files['chat.jsonl']).not.toContain(API_KEY)
  const first = parseCassette(store.files['chat.jsonl']!, 'chat.jsonl').decisions[0]!
  expect(first.in).toMatchObject({ api: 'openai-chat', method: 'POST', path: '/v1/chat/completions' })
})

it('a prompt edit misses at step 1 with the diff, without retries', async () => {
  const requests = provider.requests.length
  const miss = await runTaped(store, 'chat.jsonl', 'replay', () =>
    runWeatherAgent(client, 'Weather and time in Lyon?', false),
  )
  expect(provider.requests.length).toBe(requests)
  expect((miss.error as Error).message).toContain('Replay miss at step 1, model request (gpt-4o)')
  expect(miss.failure?.message).toContain(
    'body.messages[1].content: "Weather and time in Paris?" → "Weather and time in Lyon?"',
  )
})

it('replays a streamed run through the stream helper with identical text, tool calls, finish reason and usage', async () => {
  const run = async () => {
    const stream = client.chat.completions.stream({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [],
      stream_options: { include_usage: true },
    })
    const deltas: string[] = []
    stream.on('content', (delta) => deltas.push(delta))
    const completion = await stream.finalChatCompletion()
    return { deltas, completion }
  }
  const script = await startFakeProvider({
    reply: [
      {
        text: ['It is ', 'raining ', 'in Paris.'],
        toolCalls: [{ name: 'get_weather', args: { city: 'Paris' } }],
        finishReason: 'tool_calls',
        usage: { inputTokens: 21, outputTokens: 8 },
      },
    ],
  })
  boundary.addModelEndpoints(script.url)
  const streaming = new OpenAI({ apiKey: API_KEY, baseURL: script.openaiBaseURL })
  const original = client
  client = streaming
  try {
    const rec = await runTaped(store, 'stream.jsonl', 'auto', run)
    await script.close()
    const replay = await runTaped(store, 'stream.jsonl', 'replay', run)
    expect(replay.state.status).toBe('clean')
    expect(replay.result).toEqual(rec.result)
    const choice = replay.result!.completion.choices[0]!
    expect(replay.result!.deltas).toEqual(['It is ', 'raining ', 'in Paris.'])
    expect(choice.finish_reason).toBe('tool_calls')
    expect(choice.message.tool_calls?.[0]).toMatchObject({
      function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
    })
    expect(replay.result!.completion.usage).toMatchObject({ prompt_tokens: 21, completion_tokens: 8 })
  } finally {
    client = original
  }
})

it('replays a recorded 500 and the SDK retry after it instantly, without hanging', async () => {
  const flaky = await startFakeProvider({
    reply: [{ error: { status: 500, headers: { 'retry-after': '1' } } }, { text: 'recovered' }],
  })
  boundary.addModelEndpoints(flaky.url)
  const c = new OpenAI({ apiKey: API_KEY, baseURL: flaky.openaiBaseURL, maxRetries: 2 })
  const run = async () =>
    (await c.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }))
      .choices[0]!.message.content
  const rec = await runTaped(store, 'retry.jsonl', 'auto', run)
  await flaky.close()
  expect(rec.result).toBe('recovered')
  expect(rec.state.recorded).toBe(2)
  const started = performance.now()
  const replay = await runTaped(store, 'retry.jsonl', 'replay', run)
  expect(replay.result).toBe('recovered')
  expect(replay.state).toMatchObject({ status: 'clean', replayed: 2 })
  expect(performance.now() - started).toBeLessThan(900)
})

it('stores a gzipped JSON answer decoded, as JSON, and replays it', async () => {
  const gz = await startFakeProvider({ reply: [{ text: 'compressed hello' }], gzip: true })
  boundary.addModelEndpoints(gz.url)
  const c = new OpenAI({ apiKey: API_KEY, baseURL: gz.openaiBaseURL })
  const run = async () =>
    (await c.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'zip' }] }))
      .choices[0]!.message.content
  const rec = await runTaped(store, 'gzip.jsonl', 'auto', run)
  await gz.close()
  expect(rec.result).toBe('compressed hello')
  const out = parseCassette(store.files['gzip.jsonl']!, 'gzip.jsonl').decisions[0]!.out as {
    headers: object
    body: { json: unknown }
  }
  expect(out.body.json).toMatchObject({ object: 'chat.completion' })
  expect(out.headers).not.toHaveProperty('content-encoding')
  expect((await runTaped(store, 'gzip.jsonl', 'replay', run)).result).toBe('compressed hello')
})

it('replays a stream that was cut off mid-way as the same failure after the same deltas', async () => {
  const cut = await startFakeProvider({
    reply: [{ text: ['one ', 'two ', 'three ', 'four'], cutAfterEvents: 3 }],
  })
  boundary.addModelEndpoints(cut.url)
  const c = new OpenAI({ apiKey: API_KEY, baseURL: cut.openaiBaseURL, maxRetries: 0 })
  const run = async () => {
    const seen: string[] = []
    try {
      const stream = await c.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'count' }],
        stream: true,
      })
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '')
      return { seen, error: undefined }
    } catch (error) {
      return { seen, error: `${(error as Error).name}: ${(error as Error).message}` }
    }
  }
  const rec = await runTaped(store, 'cut.jsonl', 'auto', run)
  await cut.close()
  expect(rec.result?.error).toBeDefined()
  const replay = await runTaped(store, 'cut.jsonl', 'replay', run)
  expect(replay.result).toEqual(rec.result)
})

it('does not take a sequential streaming agent for concurrent branches: no overlap warning, run after run', async () => {
  for (let i = 0; i < 10; i++) {
    const rec = await runTaped(store, `sequential-${i}.jsonl`, 'auto', () =>
      runWeatherAgent(client, `Weather and time in city ${i}?`, true),
    )
    expect(rec.state.recorded).toBeGreaterThan(1)
    expect(rec.state.warnings).toEqual([])
  }
})

it('records a sub-agent called as a tool as that tool: its own model calls are part of the result', async () => {
  const summarize = async (text: string) =>
    (
      await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: text }],
      })
    ).choices[0]?.message.content
  const run = async () => {
    const tools = currentTape()!.tools({ summarize })
    const first = await runWeatherAgent(client, 'Weather in Paris?', false)
    return { first, summary: await tools.summarize(`Summarize: ${first}`) }
  }
  const rec = await runTaped(store, 'sub-agent.jsonl', 'auto', run)
  expect(rec.error).toBeUndefined()
  const kinds = rec.state.decisions.map((d) => d.kind)
  expect(kinds.at(-1)).toBe('tool')
  // The sub-agent's model call is not a decision: it did not take a step of the outer run.
  expect(
    rec.state.decisions
      .filter((d) => d.kind === 'llm')
      .every((d) => d.label.includes('gpt-4o-mini') === false),
  ).toBe(true)
  const connections = provider.connections
  const replay = await runTaped(store, 'sub-agent.jsonl', 'replay', run)
  expect(replay.result).toEqual(rec.result)
  expect(replay.state).toMatchObject({ status: 'clean', unused: 0 })
  expect(provider.connections).toBe(connections)
})
