import { createMemoryStore, isAgentTapeError } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import Anthropic from '@anthropic-ai/sdk'
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime'
import { GoogleGenAI } from '@google/genai'
import { generateText } from 'ai'
import { Ollama } from 'ollama'
import OpenAI from 'openai'
import * as undici from 'undici7'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AWS_CREDENTIALS, bedrockClient, MODEL_ID } from '../support/bedrock-agent.js'
import { runTaped } from '../support/tape-run.js'

// A model served from loopback that nobody listed in modelEndpoints, as a newcomer points an SDK
// at a local model (Ollama, a LiteLLM proxy, a test server). Each client keeps its default
// retries, so an answer that made one retry would show as a second refusal.
const boundary = installHttpBoundary()
let provider: FakeProvider

beforeAll(async () => {
  provider = await startFakeProvider({ reply: () => ({ text: 'Hello.' }), http2: true })
})
afterAll(() => provider.close())

const hi = [{ role: 'user' as const, content: 'Hi' }]

interface Client {
  /** The codec the call looks like. */
  api: string
  /** The base URL the refusal must name, the one that, declared, makes the call a model request. */
  base(p: FakeProvider): string
  call(p: FakeProvider): Promise<unknown>
}

const CLIENTS: Record<string, Client> = {
  'openai chat completions (an OpenAI-compatible server, a LiteLLM proxy)': {
    api: 'openai-chat',
    base: (p) => p.openaiBaseURL,
    call: (p) =>
      new OpenAI({ apiKey: 'sk-local', baseURL: p.openaiBaseURL }).chat.completions.create({
        model: 'llama3.2',
        messages: hi,
      }),
  },
  'openai chat completions, streamed': {
    api: 'openai-chat',
    base: (p) => p.openaiBaseURL,
    call: async (p) => {
      const stream = await new OpenAI({
        apiKey: 'sk-local',
        baseURL: p.openaiBaseURL,
      }).chat.completions.create({ model: 'llama3.2', messages: hi, stream: true })
      for await (const _ of stream);
    },
  },
  'openai responses': {
    api: 'openai-responses',
    base: (p) => p.openaiBaseURL,
    call: (p) =>
      new OpenAI({ apiKey: 'sk-local', baseURL: p.openaiBaseURL }).responses.create({
        model: 'm',
        input: 'Hi',
      }),
  },
  'anthropic messages': {
    api: 'anthropic-messages',
    base: (p) => `${p.url}/v1`,
    call: (p) =>
      new Anthropic({ apiKey: 'sk-ant-local', baseURL: p.url }).messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 16,
        messages: hi,
      }),
  },
  'Vercel ai through an OpenAI-compatible provider': {
    api: 'openai-chat',
    base: (p) => p.openaiBaseURL,
    call: (p) =>
      generateText({
        model: createOpenAICompatible({ name: 'local', baseURL: p.openaiBaseURL })('llama3.2'),
        prompt: 'Hi',
      }),
  },
  "Ollama's own chat API (the ollama client)": {
    api: 'ollama',
    base: (p) => p.url,
    call: (p) => new Ollama({ host: p.url }).chat({ model: 'llama3.2', messages: hi }),
  },
  "Ollama's own generate API, streamed": {
    api: 'ollama',
    base: (p) => p.url,
    call: async (p) => {
      for await (const _ of await new Ollama({ host: p.url }).generate({
        model: 'llama3.2',
        prompt: 'Hi',
        stream: true,
      }));
    },
  },
  'Gemini generateContent (@google/genai)': {
    api: 'gemini',
    base: (p) => p.url,
    call: (p) =>
      new GoogleGenAI({ apiKey: 'local-key', httpOptions: { baseUrl: p.url } }).models.generateContent({
        model: 'gemini-2.5-flash',
        contents: 'Hi',
      }),
  },
  'Gemini streamGenerateContent (@google/genai)': {
    api: 'gemini',
    base: (p) => p.url,
    call: async (p) => {
      const ai = new GoogleGenAI({ apiKey: 'local-key', httpOptions: { baseUrl: p.url } })
      for await (const _ of await ai.models.generateContentStream({
        model: 'gemini-2.5-flash',
        contents: 'Hi',
      }));
    },
  },
  'Gemini through Vercel ai (@ai-sdk/google)': {
    api: 'gemini',
    base: (p) => p.url,
    call: (p) =>
      generateText({
        model: createGoogleGenerativeAI({ apiKey: 'local-key', baseURL: `${p.url}/v1beta` })(
          'gemini-2.5-flash',
        ),
        prompt: 'Hi',
      }),
  },
  'Bedrock Converse (AWS SDK over HTTP/1.1)': {
    api: 'bedrock-converse',
    base: (p) => p.url,
    call: (p) =>
      bedrockClient(p.url, { maxAttempts: 3 }).send(
        new ConverseCommand({ modelId: MODEL_ID, messages: [{ role: 'user', content: [{ text: 'Hi' }] }] }),
      ),
  },
  'Bedrock ConverseStream (AWS SDK over HTTP/1.1)': {
    api: 'bedrock-converse',
    base: (p) => p.url,
    call: async (p) => {
      const out = await bedrockClient(p.url, { maxAttempts: 3 }).send(
        new ConverseStreamCommand({
          modelId: MODEL_ID,
          messages: [{ role: 'user', content: [{ text: 'Hi' }] }],
        }),
      )
      for await (const _ of out.stream ?? []);
    },
  },
  'Bedrock Converse (AWS SDK over HTTP/2, its default)': {
    api: 'bedrock-converse',
    base: (p) => p.http2Url!,
    call: (p) =>
      new BedrockRuntimeClient({
        region: 'us-east-1',
        endpoint: p.http2Url!,
        credentials: AWS_CREDENTIALS,
      }).send(
        new ConverseCommand({ modelId: MODEL_ID, messages: [{ role: 'user', content: [{ text: 'Hi' }] }] }),
      ),
  },
  'Bedrock through Vercel ai (@ai-sdk/amazon-bedrock)': {
    api: 'bedrock-converse',
    base: (p) => p.url,
    call: (p) =>
      generateText({
        model: createAmazonBedrock({ region: 'us-east-1', baseURL: p.url, ...AWS_CREDENTIALS })(MODEL_ID),
        prompt: 'Hi',
      }),
  },
  'undici fetch (the global dispatcher)': {
    api: 'openai-chat',
    base: (p) => p.openaiBaseURL,
    call: async (p) => {
      const response = await undici.fetch(`${p.openaiBaseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'llama3.2', messages: hi }),
      })
      if (!response.ok) throw new Error(await response.text())
      return response.json()
    },
  },
}

function expectRefused(
  run: Awaited<ReturnType<typeof runTaped>>,
  client: Client,
  action: 'recording' | 'replaying',
  cassette: string,
) {
  const { failure } = run
  expect(run.error).toBeDefined()
  expect(isAgentTapeError(failure) && failure.code).toBe('ERR_TAPE_CONFIG')
  const base = client.base(provider)
  const host = new URL(base).host
  expect(failure?.message).toMatch(
    new RegExp(
      `^\\[agent-tape\\] Refused a model call to ${literal(base)}/\\S+ \\(${client.api}\\): ${literal(host)} is not a model endpoint: tape "${literal(cassette)}" is ${action}, and loopback traffic`,
    ),
  )
  expect(failure?.message).toContain(
    `The request was not sent. Add its base URL to the modelEndpoints option (modelEndpoints: ['${base}'])`,
  )
  // One refusal: the SDK took the answer as final and did not retry.
  expect(run.state.divergences).toHaveLength(1)
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')

describe.each(Object.entries(CLIENTS))('%s to a loopback model nobody declared', (name, client) => {
  it('is refused while recording, sending nothing', async () => {
    const requests = provider.requests.length
    const run = await runTaped(createMemoryStore(), name, 'update', () => client.call(provider))
    expectRefused(run, client, 'recording', name)
    expect(provider.requests.length).toBe(requests)
  })

  it('is refused in replay with ERR_TAPE_CONFIG, sending nothing', async () => {
    const store = createMemoryStore()
    await runTaped(store, name, 'update', async () => {})
    const requests = provider.requests.length
    const run = await runTaped(store, name, 'replay', () => client.call(provider))
    expectRefused(run, client, 'replaying', name)
    expect(run.state.status).toBe('diverged')
    expect(provider.requests.length).toBe(requests)
  })

  it('records and replays, with no request, once the base URL the refusal names is declared', async () => {
    const remove = boundary.addModelEndpoints(client.base(provider))
    try {
      const store = createMemoryStore()
      const recording = await runTaped(store, name, 'update', () => client.call(provider))
      expect(recording.error).toBeUndefined()
      expect(recording.state.recorded).toBeGreaterThan(0)
      const requests = provider.requests.length
      const replay = await runTaped(store, name, 'replay', () => client.call(provider))
      expect(replay.error).toBeUndefined()
      expect(replay.state.status).toBe('clean')
      expect(provider.requests.length).toBe(requests)
    } finally {
      remove()
    }
  })
})

const chat = CLIENTS['openai chat completions (an OpenAI-compatible server, a LiteLLM proxy)']!

it('lets the call through for real in every mode when its host is in allowHosts', async () => {
  const remove = boundary.addAllowedHosts(new URL(provider.url).host)
  try {
    const store = createMemoryStore()
    const recording = await runTaped(store, 'allowed', 'update', () => chat.call(provider))
    expect(recording).toMatchObject({ error: undefined, state: { recorded: 0 } })
    const requests = provider.requests.length
    const replay = await runTaped(store, 'allowed', 'replay', () => chat.call(provider))
    expect(replay).toMatchObject({ error: undefined, state: { status: 'clean' } })
    expect(provider.requests.length).toBe(requests + 1)
  } finally {
    remove()
  }
})

it('lets a tool call a loopback model for real while recording (a sub-agent), and replays the tool', async () => {
  const store = createMemoryStore()
  const agent = () => currentTool(() => chat.call(provider))
  const recording = await runTaped(store, 'sub-agent', 'update', agent)
  expect(recording.error).toBeUndefined()
  expect(recording.state.recorded).toBe(1)
  const requests = provider.requests.length
  const replay = await runTaped(store, 'sub-agent', 'replay', agent)
  expect(replay).toMatchObject({ error: undefined, state: { status: 'clean', replayed: 1 } })
  expect(provider.requests.length).toBe(requests)
})

/** Runs `fn` as the tool `summarize` of the current tape. */
async function currentTool<T>(fn: () => Promise<T>): Promise<T> {
  const { currentTape } = await import('@agent-tape/core/internal')
  return currentTape()!.tool('summarize', {}, fn)
}

it('passes every call outside tapes and in live mode, and a loopback request that is no model call', async () => {
  const requests = provider.requests.length
  await chat.call(provider)
  const live = await runTaped(createMemoryStore(), 'live', 'live', () => chat.call(provider))
  expect(live.error).toBeUndefined()
  // A POST to a model path without a model in its body is an ordinary test server's request.
  const plain = await runTaped(createMemoryStore(), 'plain', 'update', async () => {
    const response = await fetch(`${provider.openaiBaseURL}/chat/completions`, { method: 'POST', body: '{}' })
    return response.status
  })
  expect(plain.error).toBeUndefined()
  expect(plain.state).toMatchObject({ recorded: 0, divergences: [] })
  expect(provider.requests.length).toBe(requests + 3)
})
