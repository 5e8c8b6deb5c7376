import { createMemoryStore } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, type LanguageModel, stepCountIs, streamText, tool } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
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

const tools = {
  search: tool({
    description: 'Web search',
    inputSchema: z.object({ query: z.string() }),
    execute: async (a) => RESEARCH_TOOLS.search(a),
  }),
  fetch_page: tool({
    description: 'Fetch a page',
    inputSchema: z.object({ url: z.string() }),
    execute: async (a) => RESEARCH_TOOLS.fetch_page(a),
  }),
}

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
