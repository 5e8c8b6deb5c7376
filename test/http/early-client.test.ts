import { createMemoryStore } from '@agent-tape/core'
import { startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import OpenAI from 'openai'
import { expect, it } from 'vitest'
import { runTaped } from '../support/tape-run.js'

// Created before the boundary is installed: the client keeps the fetch it saw at construction,
// which the interception never sees (a client built at import time, before the test setup ran).
const earlyFetch = globalThis.fetch
const boundary = installHttpBoundary()

it('a request from a fetch captured before installation is stopped, explained and fails the test', async () => {
  const provider = await startFakeProvider({ reply: [{ text: 'should never be reached' }] })
  boundary.addModelEndpoints(provider.url)
  const early = new OpenAI({
    apiKey: 'sk-test-dummy',
    baseURL: provider.openaiBaseURL,
    fetch: earlyFetch,
    maxRetries: 0,
  })
  const run = await runTaped(createMemoryStore(), 'early.jsonl', 'auto', async () => {
    try {
      await early.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      return 'answered'
    } catch {
      return 'swallowed'
    }
  })
  await provider.close()
  expect(run.result).toBe('swallowed')
  expect(provider.connections).toBe(0)
  expect(run.state.status).toBe('recorded')
  expect(run.state.divergences).toHaveLength(1)
  expect(run.failure?.message).toBe(
    `[agent-tape] POST ${provider.openaiBaseURL}/chat/completions bypassed agent-tape: it was sent with a fetch function captured before the tape boundary was installed (an SDK client created at import time, before the test setup ran), so it could be neither recorded nor replayed, and it was stopped before reaching the network. Create the client inside the test or lazily, make sure the agent-tape setup runs first, or pass fetch: (...args) => globalThis.fetch(...args) to the client.`,
  )
})
