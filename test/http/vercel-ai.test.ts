import { createMemoryStore, currentTape } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, stepCountIs, tool } from 'ai'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { z } from 'zod'
import { RESEARCH_TOOLS, researchScript } from '../support/scripts.js'
import { runTaped } from '../support/tape-run.js'

// What every client of every API gets alike, the ai SDK over each provider among them, is in
// test/providers/; here, what the ai SDK does besides: its tools' call context, its retries.
const boundary = installHttpBoundary()
const store = createMemoryStore()
let provider: FakeProvider

beforeAll(async () => {
  provider = await startFakeProvider({ reply: (req) => researchScript(req.body), seed: 'vercel' })
  boundary.addModelEndpoints(provider.url)
})
afterAll(() => provider.close())

it("keys a tool wrapped with tape.tools on its input, not on the ai SDK's { toolCallId, messages } argument", async () => {
  const seen: unknown[][] = []
  const search = async (...args: unknown[]) => {
    seen.push(args)
    return RESEARCH_TOOLS.search(args[0] as { query: string })
  }
  const run = (question: string) => async () => {
    const taped = currentTape()!.tools({ search })
    const result = await generateText({
      model: createOpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL })('gpt-4.1'),
      tools: {
        search: tool({
          description: 'Web search',
          inputSchema: z.object({ query: z.string() }),
          // The SDK calls execute(input, { toolCallId, messages, abortSignal }).
          execute: taped.search,
        }),
      },
      stopWhen: stepCountIs(3),
      prompt: question,
    })
    return result.text
  }
  const recording = await runTaped(store, 'ai-tool-args.jsonl', 'auto', run('Search the web for tapes.'))
  expect(recording.error).toBeUndefined()
  // The tool itself got both arguments, the SDK's call context included.
  expect(seen[0]).toHaveLength(2)
  expect(seen[0]![1]).toMatchObject({ toolCallId: expect.any(String), messages: expect.any(Array) })
  const cassette = (await store.read('ai-tool-args.jsonl'))!
  const toolLines = cassette
    .split('\n')
    .filter((l) => l.includes('"kind":"tool"'))
    .map((l) => JSON.parse(l) as { in: { name: string; args: unknown[] } })
  expect(toolLines.length).toBeGreaterThan(0)
  for (const line of toolLines) {
    expect(line.in.args).toEqual([{ query: expect.any(String) }])
    expect(JSON.stringify(line.in)).not.toContain('toolCallId')
  }
  const replay = await runTaped(store, 'ai-tool-args.jsonl', 'replay', run('Search the web for tapes.'))
  expect(replay.failure).toBeUndefined()
  expect(replay.result).toBe(recording.result)
})

it('replays retries of the ai SDK at once, without its own 2 s backoff', async () => {
  let calls = 0
  const flaky = await startFakeProvider({
    reply: () =>
      ++calls <= 2 ? { error: { status: 529, headers: { 'retry-after': '1' } } } : { text: 'Recovered.' },
  })
  boundary.addModelEndpoints(flaky.url)
  const ask = async () =>
    (
      await generateText({
        model: createOpenAI({ apiKey: 'sk-test-dummy', baseURL: flaky.openaiBaseURL }).chat('gpt-4.1'),
        prompt: 'hi',
        maxRetries: 2,
      })
    ).text
  try {
    const rec = await runTaped(store, 'ai-retries.jsonl', 'auto', ask)
    expect(rec.result).toBe('Recovered.')
    expect(rec.state.recorded).toBe(3)
    const started = performance.now()
    const replay = await runTaped(store, 'ai-retries.jsonl', 'replay', ask)
    expect(replay.result).toBe('Recovered.')
    expect(replay.state).toMatchObject({ status: 'clean', replayed: 3 })
    // Live it waited the 2 s the provider asked for; without a hint it would back off 2 s, then 4 s.
    expect(performance.now() - started).toBeLessThan(1000)
  } finally {
    await flaky.close()
  }
})
