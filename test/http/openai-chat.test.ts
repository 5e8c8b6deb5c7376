import { createMemoryStore, parseCassette } from '@agent-tape/core'
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
  expect(rec.state).toMatchObject({ action: 'record', captured: 3, written: true })
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
