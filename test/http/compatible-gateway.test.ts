import { createMemoryStore, parseCassette } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import { classifyUrl, findCodec } from '@agent-tape/http/internal'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { generateText, stepCountIs } from 'ai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AI_RESEARCH_TOOLS } from '../support/ai-tools.js'
import { researchScript } from '../support/scripts.js'
import { runTaped } from '../support/tape-run.js'

// A self-hosted gateway in front of OpenAI-compatible models, declared by its base URL as a user
// declares one: modelEndpoints: ['https://gateway.example/llm/v1']. What every client of every API
// gets alike, the ai SDK on a gateway among them, is in test/providers/; here, what a gateway
// adds: where compatible APIs are recognised, routing fields, hosted providers' hosts.
const boundary = installHttpBoundary()
const store = createMemoryStore()
const API_KEY = `sk-or-v1-${'9a7f3c1e'.repeat(8)}`
let provider: FakeProvider
let baseURL: string

beforeAll(async () => {
  provider = await startFakeProvider({ reply: (req) => researchScript(req.body), seed: 'gateway' })
  baseURL = `${provider.url}/llm/v1`
  boundary.addModelEndpoints(baseURL)
})
afterAll(() => provider.close())

describe('where OpenAI-compatible APIs are recognised', () => {
  it('by host for the hosted providers, by base URL for a gateway or a local server, by path for the API', () => {
    const cases: [string, string[], string][] = [
      ['https://openrouter.ai/api/v1/chat/completions', [], 'model'],
      ['https://api.groq.com/openai/v1/chat/completions', [], 'model'],
      ['https://api.x.ai/v1/chat/completions', [], 'model'],
      ['https://api.mistral.ai/v1/chat/completions', [], 'model'],
      ['https://api.together.xyz/v1/chat/completions', [], 'model'],
      ['https://api.perplexity.ai/chat/completions', [], 'model'],
      ['https://gateway.example/v1/chat/completions', [], 'external'],
      ['https://gateway.example/v1/chat/completions', ['https://gateway.example/v1'], 'model'],
      // vLLM (port 8000) and LM Studio (port 1234) on this machine.
      ['http://127.0.0.1:8000/v1/chat/completions', [], 'loopback'],
      ['http://127.0.0.1:8000/v1/chat/completions', ['http://127.0.0.1:8000/v1'], 'model'],
      ['http://localhost:1234/v1/chat/completions', ['http://localhost:1234/v1'], 'model'],
    ]
    for (const [href, endpoints, expected] of cases) {
      const url = new URL(href)
      expect(classifyUrl(url, endpoints), href).toBe(expected)
      expect(findCodec('POST', url.pathname)?.name, href).toBe('openai-chat')
    }
  })
})

const tools = AI_RESEARCH_TOOLS

// OpenRouter's own fields: which upstream providers may serve the call, and prompt transforms.
const routing = (order: string[]) => ({
  openrouter: { provider: { order, allow_fallbacks: false }, transforms: ['middle-out'] },
})

const gateway = () =>
  createOpenAICompatible({ name: 'openrouter', baseURL, apiKey: API_KEY, includeUsage: true })

const generate =
  (prompt: string, order = ['groq', 'together']) =>
  async () => {
    const result = await generateText({
      model: gateway()('meta-llama/llama-3.3-70b-instruct'),
      tools,
      stopWhen: stepCountIs(5),
      prompt,
      providerOptions: routing(order),
    })
    return {
      text: result.text,
      steps: result.steps.map((s) => ({ calls: s.toolCalls.map((c) => c.input), finish: s.finishReason })),
      usage: result.totalUsage,
      response: result.response.body,
    }
  }

it("keys a gateway's routing fields as the ai SDK sends them", async () => {
  const rec = await runTaped(store, 'compatible-generate.jsonl', 'auto', generate('When was tape invented?'))
  expect(rec.result?.text).toBe('Magnetic tape recording was invented in 1928.')
  const text = store.files['compatible-generate.jsonl']!
  const decisions = parseCassette(text, 'compatible-generate.jsonl').decisions
  expect(decisions[0]!.in).toMatchObject({
    api: 'openai-chat',
    path: '/llm/v1/chat/completions',
    body: {
      model: 'meta-llama/llama-3.3-70b-instruct',
      provider: { order: ['groq', 'together'], allow_fallbacks: false },
      transforms: ['middle-out'],
    },
  })
})

it('a change to the routing fields is a miss that names it', async () => {
  const miss = await runTaped(
    store,
    'compatible-generate.jsonl',
    'replay',
    generate('When was tape invented?', ['together', 'groq']),
  )
  expect(miss.state.status).toBe('diverged')
  expect(miss.failure?.message).toContain(
    'Replay miss at step 1, model request (meta-llama/llama-3.3-70b-instruct)',
  )
  expect(miss.failure?.message).toContain('body.provider.order')
})

it('the openai SDK on a gateway baseURL: extra body fields keyed as sent; the replay serves the hosted provider too', async () => {
  const ask = (client: OpenAI) => async () =>
    client.chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'When was tape invented?' }],
      // OpenRouter's fields, which the SDK sends as given.
      ...({ provider: { sort: 'price' }, transforms: [] } as object),
    })
  const local = new OpenAI({ apiKey: API_KEY, baseURL: `${provider.url}/api/v1` })
  boundary.addModelEndpoints(`${provider.url}/api/v1`)
  const rec = await runTaped(store, 'openai-gateway.jsonl', 'auto', ask(local))
  expect(rec.result?.choices[0]?.message.tool_calls?.[0]).toMatchObject({ function: { name: 'search' } })
  const decisions = parseCassette(store.files['openai-gateway.jsonl']!, 'openai-gateway.jsonl').decisions
  expect(decisions[0]!.in).toMatchObject({
    path: '/api/v1/chat/completions',
    body: { provider: { sort: 'price' }, transforms: [] },
  })
  // The key has no host: the same cassette answers the client pointed at OpenRouter itself.
  const connections = provider.connections
  const hosted = new OpenAI({ apiKey: 'sk-or-v1-other', baseURL: 'https://openrouter.ai/api/v1' })
  const replay = await runTaped(store, 'openai-gateway.jsonl', 'replay', ask(hosted))
  expect(replay.state).toMatchObject({ status: 'clean', replayed: 1 })
  expect(replay.result).toEqual(rec.result)
  expect(provider.connections).toBe(connections)
})

it('api.perplexity.ai is a model host: a call recorded elsewhere replays against it', async () => {
  const ask = (client: OpenAI) => async () =>
    (
      await client.chat.completions.create({
        model: 'sonar',
        messages: [{ role: 'user', content: 'Find tape history' }],
      })
    ).choices[0]?.message
  // Perplexity serves chat completions at the root: https://api.perplexity.ai/chat/completions.
  boundary.addModelEndpoints(`${provider.url}/chat/completions`)
  const rec = await runTaped(
    store,
    'perplexity.jsonl',
    'auto',
    ask(new OpenAI({ apiKey: API_KEY, baseURL: provider.url })),
  )
  expect(rec.state.recorded).toBe(1)
  const replay = await runTaped(
    store,
    'perplexity.jsonl',
    'replay',
    ask(new OpenAI({ apiKey: 'pplx-other', baseURL: 'https://api.perplexity.ai' })),
  )
  expect(replay.state).toMatchObject({ status: 'clean', replayed: 1 })
  expect(replay.result).toEqual(rec.result)
})
