import { createMemoryStore, currentTape, parseCassette } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import OpenAI from 'openai'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runWeatherAgent, weatherScript } from '../support/openai-agent.js'
import { runTaped } from '../support/tape-run.js'

// What every client of every API gets alike (a tool loop recorded and replayed, streamed too, a
// prompt edit's miss, errors, cut streams, secrets) is in test/providers/; here, what the openai
// SDK's chat completions do besides: retries, gzip, a streaming agent's steps, a sub-agent.
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
