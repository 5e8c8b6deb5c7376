import { createMemoryStore, parseCassette } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { runResearchAgent } from '../support/anthropic-agent.js'
import { researchScript } from '../support/scripts.js'
import { runTaped } from '../support/tape-run.js'

// What every client of every API gets alike is in test/providers/; here, what Anthropic's stream
// and SDKs do besides: named events and pings kept as sent, the version header keyed, retry hints.
const boundary = installHttpBoundary()
const store = createMemoryStore()
const API_KEY = `sk-ant-api03-${'AnthrTestKey'.repeat(5)}`
let provider: FakeProvider
let client: Anthropic

beforeAll(async () => {
  provider = await startFakeProvider({ reply: (req) => researchScript(req.body), seed: 'anthropic' })
  boundary.addModelEndpoints(provider.url)
  client = new Anthropic({ apiKey: API_KEY, baseURL: provider.anthropicBaseURL })
})
afterAll(() => provider.close())

it('keeps the named events and ping byte for byte, and the anthropic-version header in the key', async () => {
  const rec = await runTaped(store, 'research.jsonl', 'auto', () =>
    runResearchAgent(client, 'When was magnetic tape invented?'),
  )
  expect(rec.state.recorded).toBe(3)
  const decisions = parseCassette(store.files['research.jsonl']!, 'research.jsonl').decisions
  const first = decisions[0]!
  expect(first.in).toMatchObject({
    api: 'anthropic-messages',
    path: '/v1/messages',
    headers: { 'anthropic-version': expect.any(String) },
  })
  const events = (first.out as { body: { sse: { event?: string; data?: string }[] } }).body.sse
  expect(events.map((e) => e.event)).toEqual(
    expect.arrayContaining([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'message_delta',
      'message_stop',
    ]),
  )
  expect(events.find((e) => e.event === 'ping')?.data).toBe('{"type": "ping"}')
  expect(store.files['research.jsonl']).not.toContain(API_KEY)
})

it.each([
  ['@anthropic-ai/sdk', 'anthropic'],
  ['openai', 'openai'],
] as const)(
  'replays retries of %s at once: the SDK takes the replayed retry hint instead of its own backoff',
  async (_, sdk) => {
    let calls = 0
    const flaky = await startFakeProvider({
      // Two overloaded answers that ask for a 1 s wait, then the answer.
      reply: () =>
        ++calls <= 2 ? { error: { status: 529, headers: { 'retry-after': '1' } } } : { text: 'Recovered.' },
    })
    boundary.addModelEndpoints(flaky.url)
    const anthropic = new Anthropic({ apiKey: API_KEY, baseURL: flaky.anthropicBaseURL, maxRetries: 2 })
    const openai = new OpenAI({ apiKey: 'sk-test-dummy', baseURL: flaky.openaiBaseURL, maxRetries: 2 })
    const ask = async () =>
      sdk === 'anthropic'
        ? (
            await anthropic.messages.create({
              model: 'claude-sonnet-4-5',
              max_tokens: 16,
              messages: [{ role: 'user', content: 'hi' }],
            })
          ).content
        : (
            await openai.chat.completions.create({
              model: 'gpt-4o',
              messages: [{ role: 'user', content: 'hi' }],
            })
          ).choices[0]?.message.content
    // The SDKs' own backoff (private in their types), used when no usable retry hint came with the error.
    const prototype = (sdk === 'anthropic' ? Anthropic.prototype : OpenAI.prototype) as unknown as {
      calculateDefaultRetryTimeoutMillis(retriesRemaining: number, maxRetries: number): number
    }
    const backoff = vi.spyOn(prototype, 'calculateDefaultRetryTimeoutMillis')
    try {
      const rec = await runTaped(store, `retries-${sdk}.jsonl`, 'auto', ask)
      expect(rec.state.recorded).toBe(3)
      const started = performance.now()
      const replay = await runTaped(store, `retries-${sdk}.jsonl`, 'replay', ask)
      const elapsed = performance.now() - started
      expect(replay.result).toEqual(rec.result)
      expect(replay.state).toMatchObject({ status: 'clean', replayed: 3 })
      // The SDK never fell back to its own backoff (0.5 to 8 s), and did not wait the recorded 2 s.
      expect(backoff).not.toHaveBeenCalled()
      expect(elapsed).toBeLessThan(1000)
    } finally {
      backoff.mockRestore()
      await flaky.close()
    }
  },
)
