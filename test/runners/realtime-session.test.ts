import { describe, expect, it } from 'vitest'
import { startRealtimeServer } from '../support/realtime-server.js'
import { RUNNERS, testFile } from './runners.js'

// A realtime session (OpenAI Realtime through the SDK's OpenAIRealtimeWS) in a real test run of
// each runner: recorded against the loopback server, then replayed in CI with no connection.
const CASSETTE = 'test/__cassettes__/realtime.test.ts/weather.jsonl'

const SESSION = [
  "import OpenAI from 'openai'",
  "import { OpenAIRealtimeWS } from 'openai/realtime/ws'",
  '',
  "it.tape('weather', async () => {",
  "  const client = new OpenAI({ baseURL: process.env.FAKE_PROVIDER_URL + '/v1' })",
  "  const rt = new OpenAIRealtimeWS({ model: 'gpt-realtime', options: { ca: process.env.REALTIME_CA } }, client)",
  '  const seen: string[] = []',
  "  const done = new Promise<void>((resolve) => rt.socket.on('close', () => resolve()))",
  "  rt.on('response.function_call_arguments.done', (e) => seen.push(e.name + '(' + e.arguments + ')'))",
  "  rt.on('response.done', () => rt.close())",
  "  await new Promise((resolve) => rt.socket.once('open', resolve))",
  "  rt.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] } })",
  "  rt.send({ type: 'response.create' })",
  '  await done',
  '  expect(seen).toEqual([\'get_weather({"city":"Paris"})\'])',
  '})',
]

describe.concurrent.each(RUNNERS)('$name', { timeout: 120_000 }, (runner) => {
  it('records a realtime session in a test and replays it in CI with no connection', async () => {
    const server = await startRealtimeServer()
    const project = runner.project()
    const env = { FAKE_PROVIDER_URL: server.baseURL.replace(/\/v1$/, ''), REALTIME_CA: server.ca }
    try {
      project.write('test/realtime.test.ts', testFile(runner, SESSION))
      const record = await project.runTests('test/realtime.test.ts', {
        ...env,
        OPENAI_API_KEY: `sk-proj-${'Fixture'.repeat(6)}`,
      })
      expect(record.code, record.output).toBe(0)
      const frames = project
        .read(CASSETTE)
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((line) => JSON.parse(line).in.frame)
      expect(frames).toEqual(['open', 'conversation.item.create', 'response.create'])
      const connections = server.connections
      const replay = await project.runTests('test/realtime.test.ts', { ...env, CI: 'true' })
      expect(replay.code, replay.output).toBe(0)
      expect(server.connections).toBe(connections)
    } finally {
      project.dispose()
      await server.close()
    }
  })
})
