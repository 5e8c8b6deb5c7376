import { createMemoryStore, currentTape } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, type LanguageModel, stepCountIs, streamText, tool } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { AI_RESEARCH_TOOLS } from '../support/ai-tools.js'
import { RESEARCH_TOOLS, researchScript } from '../support/scripts.js'
import { runTaped } from '../support/tape-run.js'

const boundary = installHttpBoundary()
const store = createMemoryStore()
let provider: FakeProvider

beforeAll(async () => {
  provider = await startFakeProvider({ reply: (req) => researchScript(req.body), seed: 'vercel' })
  boundary.addModelEndpoints(provider.url)
})
afterAll(() => provider.close())

const tools = AI_RESEARCH_TOOLS

const models: [string, () => LanguageModel][] = [
  [
    'openai responses',
    () => createOpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL })('gpt-4.1'),
  ],
  [
    'openai chat',
    () => createOpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL }).chat('gpt-4.1'),
  ],
  [
    'anthropic',
    () =>
      createAnthropic({ apiKey: 'sk-ant-dummy', baseURL: `${provider.anthropicBaseURL}/v1` })(
        'claude-sonnet-5',
      ),
  ],
]

describe.each(models)('Vercel ai over %s', (name, model) => {
  const generate = (prompt: string) => async () => {
    const result = await generateText({ model: model(), tools, stopWhen: stepCountIs(5), prompt })
    return { text: result.text, steps: result.steps.length, usage: result.totalUsage.outputTokens }
  }
  const stream = (prompt: string) => async () => {
    const result = streamText({ model: model(), tools, stopWhen: stepCountIs(5), prompt, onError: () => {} })
    const parts: string[] = []
    for await (const part of result.fullStream)
      if (part.type === 'text-delta' || part.type === 'tool-call') parts.push(part.type)
    return { text: await result.text, parts }
  }

  it('generateText: records three steps and replays them with zero connections', async () => {
    const file = `${name}-generate.jsonl`
    const rec = await runTaped(store, file, 'auto', generate('When was tape invented?'))
    expect(rec.result).toMatchObject({ text: 'Magnetic tape recording was invented in 1928.', steps: 3 })
    const connections = provider.connections
    const replay = await runTaped(store, file, 'replay', generate('When was tape invented?'))
    expect(provider.connections).toBe(connections)
    expect(replay.result).toEqual(rec.result)
    expect(replay.state).toMatchObject({ status: 'clean', replayed: 3 })
  })

  it('streamText: replays the same parts, and a prompt edit misses with its diff', async () => {
    const file = `${name}-stream.jsonl`
    const rec = await runTaped(store, file, 'auto', stream('When was tape invented?'))
    expect(rec.result?.text).toBe('Magnetic tape recording was invented in 1928.')
    const connections = provider.connections
    const replay = await runTaped(store, file, 'replay', stream('When was tape invented?'))
    expect(replay.result).toEqual(rec.result)
    const miss = await runTaped(store, file, 'replay', stream('When was the tape invented?'))
    expect(provider.connections).toBe(connections)
    expect(miss.state.status).toBe('diverged')
    expect(miss.failure?.message).toMatch(
      /Replay miss at step 1, model request \((gpt-4\.1|claude-sonnet-5)\)/,
    )
    expect(miss.failure?.message).toContain('"When was tape invented?" → "When was the tape invented?"')
  })
})

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
