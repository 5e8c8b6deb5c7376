import { createMemoryStore, isSecretLeakError, openTape, parseCassette, runWithTape } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import { readModelAnswer, readModelRequest, recordedUsage } from '@agent-tape/http/internal'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { ApiError, GoogleGenAI } from '@google/genai'
import { APICallError, generateText, stepCountIs, streamText } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AI_RESEARCH_TOOLS } from '../support/ai-tools.js'
import { geminiResearchScript, runGeminiAgent } from '../support/gemini-agent.js'
import { runTaped } from '../support/tape-run.js'

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
  it('records a function-calling loop and replays the same responses with zero connections', async () => {
    const rec = await runTaped(store, 'genai.jsonl', 'auto', () => runGeminiAgent(ai, QUESTION, false))
    expect(rec.error).toBeUndefined()
    expect(rec.result?.text).toBe(ANSWER)
    expect(rec.state).toMatchObject({ captured: 3, warnings: [] })
    const connections = provider.connections
    const replay = await runTaped(store, 'genai.jsonl', 'replay', () => runGeminiAgent(ai, QUESTION, false))
    expect(provider.connections).toBe(connections)
    expect(replay.state).toMatchObject({ status: 'clean', replayed: 3 })
    expect(replay.result).toEqual(rec.result)
    expect(replay.result?.responses[0]).toMatchObject({
      candidates: [
        {
          content: {
            parts: [{ functionCall: { name: 'search', args: { query: 'tape recorders history' } } }],
          },
        },
      ],
    })
    expect(store.files['genai.jsonl']).not.toContain(API_KEY)
  })

  it('keys the path, contents, system instruction, tools and config; reads the request and the answer', () => {
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

  it('replays a streamed loop chunk for chunk, and reads the stream', async () => {
    const rec = await runTaped(store, 'genai-stream.jsonl', 'auto', () => runGeminiAgent(ai, QUESTION, true))
    expect(rec.result?.text).toBe(ANSWER)
    const connections = provider.connections
    const replay = await runTaped(store, 'genai-stream.jsonl', 'replay', () =>
      runGeminiAgent(ai, QUESTION, true),
    )
    expect(provider.connections).toBe(connections)
    expect(replay.state).toMatchObject({ status: 'clean', replayed: 3 })
    expect(replay.result).toEqual(rec.result)
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

  it('replays a mid-stream error body as the same ApiError, after the same chunks', async () => {
    const failing = await startFakeProvider({
      reply: [
        {
          text: 'partial answer here',
          chunkDelayMs: 5,
          streamError: { afterEvents: 2, message: 'Overloaded.' },
        },
      ],
    })
    boundary.addModelEndpoints(failing.url)
    const client = new GoogleGenAI({ apiKey: API_KEY, httpOptions: { baseUrl: failing.url } })
    const run = async () => {
      const seen: string[] = []
      try {
        for await (const chunk of await client.models.generateContentStream({
          model: 'gemini-2.5-flash',
          contents: 'hi',
        }))
          seen.push(chunk.text ?? '')
        return { seen }
      } catch (error) {
        return {
          seen,
          error: `${(error as Error).name} ${(error as ApiError).status}: ${(error as Error).message}`,
        }
      }
    }
    const rec = await runTaped(store, 'genai-error.jsonl', 'auto', run)
    await failing.close()
    const replay = await runTaped(store, 'genai-error.jsonl', 'replay', run)
    expect(rec.result).toEqual({
      seen: ['partial ', 'answer '],
      error:
        'ApiError 503: got status: UNAVAILABLE. {"error":{"code":503,"message":"Overloaded.","status":"UNAVAILABLE"}}',
    })
    expect(replay.result).toEqual(rec.result)
    expect(replay.state.status).toBe('clean')
    const [decision] = decisionsOf('genai-error.jsonl')
    expect(readModelAnswer(decision!.in, decision!.out)).toMatchObject({
      text: 'partial answer ',
      error: 'stream error: UNAVAILABLE: Overloaded.',
    })
  })

  it('replays a stream cut off mid-way as the same failure after the same chunks', async () => {
    const cut = await startFakeProvider({
      reply: [{ text: ['one ', 'two ', 'three ', 'four'], cutAfterEvents: 2 }],
    })
    boundary.addModelEndpoints(cut.url)
    const client = new GoogleGenAI({ apiKey: API_KEY, httpOptions: { baseUrl: cut.url } })
    const run = async () => {
      const seen: string[] = []
      try {
        for await (const chunk of await client.models.generateContentStream({
          model: 'gemini-2.5-flash',
          contents: 'count',
        }))
          seen.push(chunk.text ?? '')
        return { seen }
      } catch (error) {
        return { seen, error: `${(error as Error).name}: ${(error as Error).message}` }
      }
    }
    const rec = await runTaped(store, 'genai-cut.jsonl', 'auto', run)
    await cut.close()
    expect(rec.result?.seen).toEqual(['one ', 'two '])
    expect(rec.result?.error).toBeDefined()
    const replay = await runTaped(store, 'genai-cut.jsonl', 'replay', run)
    expect(replay.result).toEqual(rec.result)
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
    expect(rec.state.captured).toBe(2)
    const replay = await runTaped(store, 'genai-retry.jsonl', 'replay', run)
    expect(replay.result).toBe('Recovered.')
    expect(replay.state).toMatchObject({ status: 'clean', replayed: 2 })
    const [error] = decisionsOf('genai-retry.jsonl')
    expect(readModelAnswer(error!.in, error!.out)).toMatchObject({
      status: 503,
      error: '503 UNAVAILABLE: The model is overloaded. Please try again later.',
    })
  })

  it('replays an HTTP error the SDK does not retry as the same ApiError', async () => {
    const failing = await startFakeProvider({ reply: [{ error: { status: 429 } }] })
    boundary.addModelEndpoints(failing.url)
    const client = new GoogleGenAI({ apiKey: API_KEY, httpOptions: { baseUrl: failing.url } })
    const run = () => client.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' })
    const rec = await runTaped(store, 'genai-429.jsonl', 'auto', run)
    await failing.close()
    const replay = await runTaped(store, 'genai-429.jsonl', 'replay', run)
    expect(rec.error).toBeInstanceOf(ApiError)
    expect(replay.error).toBeInstanceOf(ApiError)
    expect((replay.error as ApiError).status).toBe(429)
    expect((replay.error as ApiError).message).toBe((rec.error as ApiError).message)
  })

  it('refuses to write a stream whose text chunks split a secret between them', async () => {
    const secret = `sk-proj-${'Op3nAiK3y'.repeat(5)}`
    const leaky = await startFakeProvider({
      reply: [{ text: [`Here: ${secret.slice(0, 20)}`, `${secret.slice(20)} (keep it safe)`] }],
    })
    boundary.addModelEndpoints(leaky.url)
    const client = new GoogleGenAI({ apiKey: API_KEY, httpOptions: { baseUrl: leaky.url } })
    const tape = await openTape({ id: 'leak', cassettePath: 'leak.jsonl', store, mode: 'auto', env: {} })
    await runWithTape(tape, async () => {
      for await (const _ of await client.models.generateContentStream({
        model: 'gemini-2.5-flash',
        contents: 'key?',
      }));
    })
    await leaky.close()
    const error = await tape.finish().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isSecretLeakError(error)).toBe(true)
    expect((error as Error).message).toContain(
      'out.body.sse[*].candidates[].content.parts[].text (reassembled from 2 events)',
    )
    expect(store.files['leak.jsonl']).toBeUndefined()
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

describe('@ai-sdk/google with ai', () => {
  const tools = AI_RESEARCH_TOOLS
  const model = () =>
    createGoogleGenerativeAI({ apiKey: API_KEY, baseURL: `${provider.url}/v1beta` })('gemini-2.5-flash')
  const generate = (prompt: string) => async () => {
    const result = await generateText({ model: model(), tools, stopWhen: stepCountIs(5), prompt })
    return { text: result.text, steps: result.steps.length, usage: result.totalUsage }
  }
  const stream = (prompt: string) => async () => {
    const result = streamText({ model: model(), tools, stopWhen: stepCountIs(5), prompt, onError: () => {} })
    const parts: string[] = []
    for await (const part of result.fullStream)
      if (part.type === 'text-delta' || part.type === 'tool-call') parts.push(`${part.type}`)
    return { text: await result.text, parts, usage: await result.totalUsage }
  }

  it('generateText: records three steps and replays them with zero connections', async () => {
    const rec = await runTaped(store, 'ai-generate.jsonl', 'auto', generate(QUESTION))
    expect(rec.result).toMatchObject({ text: ANSWER, steps: 3 })
    const connections = provider.connections
    const replay = await runTaped(store, 'ai-generate.jsonl', 'replay', generate(QUESTION))
    expect(provider.connections).toBe(connections)
    expect(replay.result).toEqual(rec.result)
    expect(replay.state).toMatchObject({ status: 'clean', replayed: 3 })
    expect(store.files['ai-generate.jsonl']).not.toContain(API_KEY)
    const usage = decisionsOf('ai-generate.jsonl').map((d) => recordedUsage(d.in, d.out))
    expect(usage.at(-1)).toEqual({ input: 300, output: 9 })
    expect(rec.result?.usage.outputTokens).toBe(usage.reduce((n, u) => n + u!.output, 0))
  })

  it('streamText: replays the same parts, and a prompt edit misses with its diff', async () => {
    const rec = await runTaped(store, 'ai-stream.jsonl', 'auto', stream(QUESTION))
    expect(rec.result?.text).toBe(ANSWER)
    expect(rec.result?.parts).toEqual(['tool-call', 'tool-call', 'text-delta', 'text-delta', 'text-delta'])
    const connections = provider.connections
    const replay = await runTaped(store, 'ai-stream.jsonl', 'replay', stream(QUESTION))
    expect(replay.result).toEqual(rec.result)
    const miss = await runTaped(
      store,
      'ai-stream.jsonl',
      'replay',
      stream('When was the magnetic tape invented?'),
    )
    expect(provider.connections).toBe(connections)
    expect(miss.state.status).toBe('diverged')
    expect(miss.failure?.message).toContain('Replay miss at step 1, model request (gemini-2.5-flash)')
    expect(miss.failure?.message).toContain(
      'body.contents[0].parts[0].text: "When was magnetic tape invented?" → "When was the magnetic tape invented?"',
    )
  })

  it('streamText: replays a mid-stream error body as the stream the SDK read live', async () => {
    const failing = await startFakeProvider({
      reply: [{ text: 'partial answer here', chunkDelayMs: 5, streamError: { afterEvents: 2 } }],
    })
    boundary.addModelEndpoints(failing.url)
    const run = async () => {
      const google = createGoogleGenerativeAI({ apiKey: API_KEY, baseURL: `${failing.url}/v1beta` })
      const result = streamText({
        model: google('gemini-2.5-flash'),
        prompt: 'hi',
        maxRetries: 0,
        onError: () => {},
      })
      const parts: string[] = []
      for await (const part of result.fullStream)
        parts.push(part.type === 'error' ? `error: ${String(part.error)}` : part.type)
      return { parts, text: await result.text, finishReason: await result.finishReason }
    }
    const rec = await runTaped(store, 'ai-stream-error.jsonl', 'auto', run)
    await failing.close()
    const replay = await runTaped(store, 'ai-stream-error.jsonl', 'replay', run)
    expect(replay.state.status).toBe('clean')
    expect(replay.result).toEqual(rec.result)
    // The SDK reads server-sent events only: it skips the error body and ends the stream.
    expect(rec.result).toMatchObject({ text: 'partial answer ', finishReason: 'other' })
  })

  it('a missed generateText fails at once with the report, not after retries', async () => {
    const requests = provider.requests.length
    const miss = await runTaped(store, 'ai-generate.jsonl', 'replay', generate('When was tape invented?'))
    expect(provider.requests.length).toBe(requests)
    expect(APICallError.isInstance(miss.error)).toBe(true)
    expect((miss.error as APICallError).isRetryable).toBe(false)
    expect((miss.error as APICallError).message).toBe(miss.failure?.message)
  })
})
