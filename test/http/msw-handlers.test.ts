import { createMemoryStore } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { tapeHandlers } from '@agent-tape/http/msw'
import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import OpenAI from 'openai'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startCountingServer } from '../support/counting-server.js'
import { runWeatherAgent, weatherScript } from '../support/openai-agent.js'
import { runTaped } from '../support/tape-run.js'

// A team that already mocks its own API with MSW adds the tape's handlers to the same server,
// and does not install the http boundary: one interceptor, not two.
let provider: FakeProvider
let client: OpenAI
const store = createMemoryStore()
const server = setupServer()

beforeAll(async () => {
  provider = await startFakeProvider({ reply: (req) => weatherScript(req.body as never) })
  // The tape's handlers first: they take model requests only, so the team's mock still answers.
  server.use(
    ...tapeHandlers({ modelEndpoints: [provider.url] }),
    http.get('https://accounts.internal.example/api/me', () => HttpResponse.json({ id: 'u_1', plan: 'pro' })),
  )
  server.listen({ onUnhandledRequest: 'error' })
  client = new OpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL })
})
afterAll(async () => {
  server.close()
  await provider.close()
})

const run = async () => {
  const me = await (await fetch('https://accounts.internal.example/api/me')).json()
  const answer = await runWeatherAgent(client, 'Weather and time in Paris?', true)
  return { me, answer }
}

it('records and replays model requests through MSW, next to the team’s own mocks', async () => {
  const rec = await runTaped(store, 'msw.jsonl', 'auto', run)
  expect(rec.error).toBeUndefined()
  expect(rec.result).toEqual({
    me: { id: 'u_1', plan: 'pro' },
    answer: 'It is 14:05 in Paris and 18°C with light rain.',
  })
  expect(rec.state.recorded).toBe(3)
  expect(provider.requests).toHaveLength(3)
  const connections = provider.connections
  const replay = await runTaped(store, 'msw.jsonl', 'replay', run)
  expect(replay.result).toEqual(rec.result)
  expect(replay.state).toMatchObject({ status: 'clean', replayed: 3 })
  expect(provider.connections).toBe(connections)
})

it('leaves onUnhandledRequest: "error" in charge of requests nobody handles', async () => {
  const result = await runTaped(store, 'unhandled.jsonl', 'auto', async () => {
    await fetch('http://127.0.0.1:9/not-mocked')
  })
  expect(String(result.error)).toBe(
    'InternalError: [MSW] Cannot bypass a request when using the "error" strategy for the "onUnhandledRequest" option.',
  )
  expect(result.state.recorded).toBe(0)
})

it('records a host listed in hosts as other HTTP, and replays it with no connection', async () => {
  const api = await startCountingServer('inventory')
  const listed = setupServer(...tapeHandlers({ hosts: [`127.0.0.1:${api.port}`] }))
  server.close()
  listed.listen({ onUnhandledRequest: 'error' })
  try {
    const stock = async () => (await fetch(`${api.origin}/stock/42`)).json()
    const recording = await runTaped(store, 'hosts.jsonl', 'auto', stock)
    expect(recording.result).toEqual({ server: 'inventory', path: '/stock/42' })
    expect(recording.state).toMatchObject({ status: 'recorded', recorded: 1 })
    const replay = await runTaped(store, 'hosts.jsonl', 'replay', stock)
    expect(replay.result).toEqual(recording.result)
    expect(replay.state).toMatchObject({ status: 'clean', replayed: 1 })
    expect(api.connections).toBe(1)
  } finally {
    listed.close()
    server.listen({ onUnhandledRequest: 'error' })
    await api.close()
  }
})

it('refuses a misspelt handler option instead of leaving the host untaped', () => {
  expect(() => tapeHandlers({ host: ['api.internal'] } as never)).toThrow(
    'Unknown option "host" (did you mean "hosts"?) in the tapeHandlers() options',
  )
})
