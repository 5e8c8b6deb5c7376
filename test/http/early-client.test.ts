import { createMemoryStore } from '@agent-tape/core'
import { startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import OpenAI from 'openai'
import { expect, it } from 'vitest'
import { runTaped } from '../support/tape-run.js'

// Captured before the boundary is installed: the client keeps the fetch it saw at construction,
// which the fetch interception never sees (a client built at import time, before the test setup
// ran). Its requests still reach Node's global dispatcher, where the boundary takes them.
const earlyFetch = globalThis.fetch
const boundary = installHttpBoundary()

it('a fetch captured before installation is recorded and replayed like any other', async () => {
  const provider = await startFakeProvider({ reply: () => ({ text: 'Hello from the early client.' }) })
  boundary.addModelEndpoints(provider.url)
  const early = new OpenAI({
    apiKey: 'test-key',
    baseURL: provider.openaiBaseURL,
    fetch: earlyFetch,
    maxRetries: 0,
  })
  const ask = async () => {
    const completion = await early.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
    })
    return completion.choices[0]?.message.content
  }
  const store = createMemoryStore()
  const recording = await runTaped(store, 'early.jsonl', 'auto', ask)
  expect(recording.error).toBeUndefined()
  expect(recording.result).toBe('Hello from the early client.')
  expect(recording.state).toMatchObject({ status: 'recorded', recorded: 1, divergences: [] })
  const connections = provider.connections
  expect(connections).toBeGreaterThan(0)
  const replay = await runTaped(store, 'early.jsonl', 'replay', ask)
  await provider.close()
  expect(replay.result).toBe('Hello from the early client.')
  expect(replay.state).toMatchObject({ status: 'clean', replayed: 1 })
  expect(provider.connections).toBe(connections)
})
