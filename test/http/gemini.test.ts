import { createMemoryStore, parseCassette } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import { readModelAnswer, readModelRequest, recordedUsage } from '@agent-tape/http/internal'
import { ApiError, GoogleGenAI } from '@google/genai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { geminiResearchScript, runGeminiAgent } from '../support/gemini-agent.js'
import { runTaped } from '../support/tape-run.js'

// What every client of every API gets alike is in test/providers/; here, what Gemini does
// besides: the system instruction, thought signatures, pretty-printed answers and spaced chunks,
// Google's error shape, the SDK's own retries, Vertex AI's paths and tokens, a ?key= parameter.
const boundary = installHttpBoundary()
const store = createMemoryStore()
// Not shaped like a Google key, so that only the boundary keeps it out (the secret scan would not).
const API_KEY = `gemini-test-${'K3y'.repeat(8)}`
const QUESTION = 'When was magnetic tape invented?'
const ANSWER = 'Magnetic tape recording was invented in 1928.'
let provider: FakeProvider
let ai: GoogleGenAI

beforeAll(async () => {
  provider = await startFakeProvider({ reply: (req) => geminiResearchScript(req.body), seed: 'gemini' })
  boundary.addModelEndpoints(provider.url)
  ai = new GoogleGenAI({ apiKey: API_KEY, httpOptions: { baseUrl: provider.url } })
})
afterAll(() => provider.close())

const decisionsOf = (file: string) => parseCassette(store.files[file]!, file).decisions

describe('@google/genai', () => {
  it('keys the path, contents, system instruction, tools and config; reads the request and the answer', async () => {
    const rec = await runTaped(store, 'genai.jsonl', 'auto', () => runGeminiAgent(ai, QUESTION, false))
    expect(rec.result?.text).toBe(ANSWER)
    const [first, second, third] = decisionsOf('genai.jsonl')
    expect(first!.in).toEqual({
      api: 'gemini',
      method: 'POST',
      path: '/v1beta/models/gemini-2.5-flash:generateContent',
      body: {
        contents: [{ role: 'user', parts: [{ text: QUESTION }] }],
        systemInstruction: { role: 'user', parts: [{ text: 'Answer from what the tools find.' }] },
        tools: [
          {
            functionDeclarations: [
              expect.objectContaining({ name: 'fetch_page' }),
              expect.objectContaining({ name: 'search' }),
            ],
          },
        ],
        generationConfig: { temperature: 0 },
      },
    })
    // A thinking model's signature goes back with its function call, and is keyed with it.
    expect(JSON.stringify(second!.in)).toContain('"thoughtSignature"')
    expect(readModelRequest(third!.in)).toEqual({
      api: 'gemini',
      method: 'POST',
      path: '/v1beta/models/gemini-2.5-flash:generateContent',
      model: 'gemini-2.5-flash',
      messages: 5,
      tools: 2,
      last: {
        role: 'user',
        text: 'functionResponse fetch_page: {"output":"https://example.org/tape: Fritz Pfleumer patented magnetic tape in 1928."}',
      },
    })
    // Google pretty-prints its answers: stored as the text they were, read as the JSON they are.
    expect(first!.out).toMatchObject({
      status: 200,
      body: { text: expect.stringMatching(/^\{\n {2}"candidates"/) },
    })
    expect(readModelAnswer(first!.in, first!.out)).toEqual({
      status: 200,
      streamed: false,
      model: 'gemini-2.5-flash',
      text: '',
      toolCalls: [{ name: 'search', arguments: '{"query":"tape recorders history"}' }],
      finishReason: 'STOP',
      usage: { input: expect.any(Number), output: expect.any(Number) },
    })
    expect(recordedUsage(third!.in, third!.out)).toEqual({ input: 300, output: 9 })
  })

  it('keys a stream by alt=sse, and keeps its chunks as JSON with the spacing Google writes', async () => {
    const rec = await runTaped(store, 'genai-stream.jsonl', 'auto', () => runGeminiAgent(ai, QUESTION, true))
    expect(rec.result?.text).toBe(ANSWER)
    const last = decisionsOf('genai-stream.jsonl')[2]!
    expect(last.in).toMatchObject({
      query: [['alt', 'sse']],
      path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
    })
    // Chunks spaced as Google writes them are kept as JSON, with their spacing.
    const events = (last.out as { body: { sse: { json?: unknown; separators?: string[] }[] } }).body.sse
    expect(events).toHaveLength(3)
    expect(events.every((e) => e.json !== undefined && e.separators?.join('') === ',: ')).toBe(true)
    expect(readModelAnswer(last.in, last.out)).toMatchObject({
      streamed: true,
      text: ANSWER,
      toolCalls: [],
      finishReason: 'STOP',
      usage: { input: 300, output: 9 },
    })
  })

  it('a prompt edit misses at step 1 with the word-level diff, and the SDK does not retry', async () => {
    const requests = provider.requests.length
    const client = new GoogleGenAI({
      apiKey: API_KEY,
      httpOptions: { baseUrl: provider.url, retryOptions: { attempts: 3, initialDelay: 0.01 } },
    })
    const miss = await runTaped(store, 'genai.jsonl', 'replay', () =>
      runGeminiAgent(client, 'When was tape invented?', false),
    )
    expect(provider.requests.length).toBe(requests)
    expect(miss.state.status).toBe('diverged')
    expect(miss.error).toBeInstanceOf(ApiError)
    expect((miss.error as ApiError).status).toBe(400)
    expect(miss.failure?.message).toContain('Replay miss at step 1, model request (gemini-2.5-flash)')
    expect(miss.failure?.message).toContain(
      'body.contents[0].parts[0].text: "When was magnetic tape invented?" → "When was tape invented?"',
    )
    // The SDK's error carries the report in Google's error shape.
    expect(JSON.parse((miss.error as ApiError).message)).toMatchObject({
      error: { code: 400, status: 'FAILED_PRECONDITION', message: miss.failure?.message },
    })
  })

  it('replays an HTTP error and the retry the SDK made after it (its own backoff is waited: it reads no retry hint)', async () => {
    const flaky = await startFakeProvider({ reply: [{ error: { status: 503 } }, { text: 'Recovered.' }] })
    boundary.addModelEndpoints(flaky.url)
    const client = new GoogleGenAI({
      apiKey: API_KEY,
      httpOptions: { baseUrl: flaky.url, retryOptions: { attempts: 2, initialDelay: 0.1, jitter: 0 } },
    })
    const run = async () =>
      (await client.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' })).text
    const rec = await runTaped(store, 'genai-retry.jsonl', 'auto', run)
    await flaky.close()
    expect(rec.result).toBe('Recovered.')
    expect(rec.state.recorded).toBe(2)
    const replay = await runTaped(store, 'genai-retry.jsonl', 'replay', run)
    expect(replay.result).toBe('Recovered.')
    expect(replay.state).toMatchObject({ status: 'clean', replayed: 2 })
    const [error] = decisionsOf('genai-retry.jsonl')
    expect(readModelAnswer(error!.in, error!.out)).toMatchObject({
      status: 503,
      error: '503 UNAVAILABLE: The model is overloaded. Please try again later.',
    })
  })

  it('on Vertex AI, keys the project path and keeps the Bearer token out of the cassette', async () => {
    const token = `ya29.${'VertexT0ken'.repeat(4)}`
    const vertex = new GoogleGenAI({
      vertexai: true,
      project: 'tape-project',
      location: 'europe-west4',
      httpOptions: { baseUrl: provider.url },
      googleAuthOptions: {
        authClient: { getRequestHeaders: async () => new Headers({ authorization: `Bearer ${token}` }) },
      } as never,
    })
    const rec = await runTaped(store, 'vertex.jsonl', 'auto', () => runGeminiAgent(vertex, QUESTION, true))
    expect(rec.result?.text).toBe(ANSWER)
    const connections = provider.connections
    const replay = await runTaped(store, 'vertex.jsonl', 'replay', () =>
      runGeminiAgent(vertex, QUESTION, true),
    )
    expect(provider.connections).toBe(connections)
    expect(replay.state).toMatchObject({ status: 'clean', replayed: 3 })
    expect(replay.result).toEqual(rec.result)
    const text = store.files['vertex.jsonl']!
    expect(text).not.toContain(token)
    expect(text).not.toContain('ya29.')
    const [first] = decisionsOf('vertex.jsonl')
    expect(first!.in).toMatchObject({
      api: 'gemini',
      path: '/v1beta1/projects/tape-project/locations/europe-west4/publishers/google/models/gemini-2.5-flash:streamGenerateContent',
    })
    expect(readModelRequest(first!.in).model).toBe('gemini-2.5-flash')
  })
})

it('keeps a ?key= API key out of the key and the cassette, and alt=sse in both', async () => {
  const run = (alt: string) => async () => {
    const res = await fetch(
      `${provider.url}/v1beta/models/gemini-2.0-flash:streamGenerateContent?${alt}key=${API_KEY}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ parts: [{ text: QUESTION }] }] }),
      },
    )
    return res.text()
  }
  const rec = await runTaped(store, 'query-key.jsonl', 'auto', async () => [
    await run('alt=sse&')(),
    await run('')(),
  ])
  const connections = provider.connections
  const replay = await runTaped(store, 'query-key.jsonl', 'replay', async () => [
    await run('alt=sse&')(),
    await run('')(),
  ])
  expect(provider.connections).toBe(connections)
  expect(replay.result).toEqual(rec.result)
  expect(rec.result?.[0]).toMatch(/^data: \{"candidates": /)
  expect(store.files['query-key.jsonl']).not.toContain(API_KEY)
  const [streamed, json] = decisionsOf('query-key.jsonl')
  expect(streamed!.in).toMatchObject({ api: 'gemini', query: [['alt', 'sse']] })
  expect(json!.in).not.toHaveProperty('query')
})
