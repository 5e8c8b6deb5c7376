import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { ApiError, FunctionCallingConfigMode, GoogleGenAI } from '@google/genai'
import { APICallError, generateText, streamText } from 'ai'
import { afterEach, describe, expect, it } from 'vitest'
import { googleJson } from './gemini.js'
import { type FakeProvider, startFakeProvider } from './index.js'
import type { FakeProviderOptions } from './server.js'

let provider: FakeProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

async function client(options: FakeProviderOptions): Promise<GoogleGenAI> {
  provider = await startFakeProvider(options)
  return new GoogleGenAI({ apiKey: 'test-gemini-key', httpOptions: { baseUrl: provider.url } })
}

const contents = 'What is the weather in Paris?'
const tools = [
  {
    functionDeclarations: [
      {
        name: 'get_weather',
        parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ],
  },
]

describe('Gemini API', () => {
  it('answers generateContent with text, usage and the model of the path, in pretty-printed JSON', async () => {
    const ai = await client({
      reply: () => ({ text: 'Sunny.', usage: { inputTokens: 11, outputTokens: 2 } }),
    })
    const response = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents })
    expect(response.text).toBe('Sunny.')
    expect(response.candidates?.[0]?.finishReason).toBe('STOP')
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: 11,
      candidatesTokenCount: 2,
      totalTokenCount: 13,
    })
    expect(response.modelVersion).toBe('gemini-2.5-flash')
    expect(response.responseId).toMatch(/^[A-Za-z0-9]{23}$/)
    const request = provider!.requests[0]!
    expect(request).toMatchObject({
      path: '/v1beta/models/gemini-2.5-flash:generateContent',
      endpoint: 'gemini',
    })
    expect(request.headers['x-goog-api-key']).toBe('test-gemini-key')
    expect(request.body).toMatchObject({ contents: [{ role: 'user', parts: [{ text: contents }] }] })
    const raw = await fetch(`${provider!.url}${request.path}`, { method: 'POST', body: '{}' })
    expect(await raw.text()).toMatch(/^\{\n {2}"candidates": \[\n/)
  })

  it('answers function calls, the first one signed, and sends no id unless scripted', async () => {
    const ai = await client({
      reply: [
        {
          toolCalls: [
            { name: 'get_weather', args: { city: 'Paris' } },
            { name: 'get_weather', args: { city: 'Lyon' } },
          ],
        },
      ],
    })
    const response = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents,
      config: { tools, toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } } },
    })
    expect(response.functionCalls).toEqual([
      { name: 'get_weather', args: { city: 'Paris' } },
      { name: 'get_weather', args: { city: 'Lyon' } },
    ])
    const parts = response.candidates?.[0]?.content?.parts ?? []
    expect(parts[0]?.thoughtSignature).toMatch(/==$/)
    expect(parts[1]?.thoughtSignature).toBeUndefined()
  })

  it('streams text chunks over SSE, spaced as Google writes them, usage and finish reason in the last', async () => {
    const ai = await client({
      reply: [{ text: 'It is sunny.', usage: { inputTokens: 20, outputTokens: 4 } }],
    })
    const stream = await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents })
    const chunks = []
    for await (const chunk of stream) chunks.push(chunk)
    expect(chunks.map((c) => c.text)).toEqual(['It ', 'is ', 'sunny.'])
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe('STOP')
    expect(chunks.at(-1)?.usageMetadata).toMatchObject({ promptTokenCount: 20, candidatesTokenCount: 4 })
    expect(chunks[0]?.usageMetadata?.candidatesTokenCount).toBeUndefined()
    expect(new Set(chunks.map((c) => c.responseId)).size).toBe(1)
    expect(provider!.requests[0]).toMatchObject({
      path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
      search: '?alt=sse',
    })
  })

  it('answers streamGenerateContent without alt=sse as one JSON array of chunks', async () => {
    provider = await startFakeProvider({ reply: [{ text: 'one two' }] })
    const res = await fetch(`${provider.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent`, {
      method: 'POST',
      body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    })
    expect(res.headers.get('content-type')).toBe('application/json')
    const chunks = (await res.json()) as { candidates: { content: { parts: { text: string }[] } }[] }[]
    expect(chunks.map((c) => c.candidates[0]!.content.parts[0]!.text)).toEqual(['one ', 'two'])
  })

  it('writes stream chunks on one line with Google’s spacing', () => {
    expect(googleJson({ a: [1, { b: 'x' }], c: null, d: undefined })).toBe('{"a": [1,{"b": "x"}],"c": null}')
  })

  it('surfaces a mid-stream error body as ApiError with its code, after the chunks before it', async () => {
    const ai = await client({
      // Google's error body is read as one when it arrives on its own, as it does after a pause.
      reply: [
        {
          text: 'one two three four',
          chunkDelayMs: 20,
          streamError: { afterEvents: 2, message: 'Overloaded.' },
        },
      ],
    })
    const seen: string[] = []
    const error = await (async () => {
      for await (const chunk of await ai.models.generateContentStream({
        model: 'gemini-2.5-flash',
        contents,
      }))
        seen.push(chunk.text ?? '')
    })().catch((e: unknown) => e)
    expect(seen).toEqual(['one ', 'two '])
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).status).toBe(503)
    expect((error as ApiError).message).toBe(
      'got status: UNAVAILABLE. {"error":{"code":503,"message":"Overloaded.","status":"UNAVAILABLE"}}',
    )
  })

  it.each([
    [429, 'RESOURCE_EXHAUSTED'],
    [500, 'INTERNAL'],
  ])('surfaces HTTP %i as ApiError with Google’s error body (%s)', async (status, name) => {
    const ai = await client({ reply: [{ error: { status } }] })
    const error = await ai.models
      .generateContent({ model: 'gemini-2.5-flash', contents })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).status).toBe(status)
    expect(JSON.parse((error as ApiError).message)).toMatchObject({ error: { code: status, status: name } })
    expect(provider?.requests).toHaveLength(1)
  })
})

describe('Vertex AI', () => {
  it('answers the project and location path with Bearer auth, adding createTime and a traffic type', async () => {
    provider = await startFakeProvider({ reply: [{ text: 'Hello.' }, { text: 'a b' }] })
    const ai = new GoogleGenAI({
      vertexai: true,
      project: 'my-project',
      location: 'us-central1',
      httpOptions: { baseUrl: provider.url },
      googleAuthOptions: {
        authClient: { getRequestHeaders: async () => new Headers({ authorization: 'Bearer ya29.test' }) },
      } as never,
    })
    const response = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents })
    expect(response.text).toBe('Hello.')
    expect(response.createTime).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/)
    const request = provider.requests[0]!
    expect(request.path).toBe(
      '/v1beta1/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent',
    )
    expect(request.endpoint).toBe('gemini-vertex')
    expect(request.headers.authorization).toBe('Bearer ya29.test')
    const res = await fetch(
      `${provider.url}${request.path.replace(':generateContent', ':streamGenerateContent')}?alt=sse`,
      {
        method: 'POST',
        body: '{}',
      },
    )
    expect(await res.text()).toMatch(
      /^data: \{"candidates": .*\r\n\r\ndata: .*"trafficType": "ON_DEMAND".*\r\n\r\n$/s,
    )
  })
})

describe('@ai-sdk/google', () => {
  const model = (p: FakeProvider) =>
    createGoogleGenerativeAI({ apiKey: 'test-gemini-key', baseURL: `${p.url}/v1beta` })('gemini-2.5-flash')

  it('reads text and usage from generateText and streamText', async () => {
    provider = await startFakeProvider({
      reply: () => ({ text: 'Hi there.', usage: { inputTokens: 7, outputTokens: 3 } }),
    })
    const generated = await generateText({ model: model(provider), prompt: 'hi' })
    expect(generated.text).toBe('Hi there.')
    expect(generated.usage).toMatchObject({ inputTokens: 7, outputTokens: 3 })
    const streamed = streamText({ model: model(provider), prompt: 'hi' })
    expect(await streamed.text).toBe('Hi there.')
    expect(provider.requests.map((r) => r.path + r.search)).toEqual([
      '/v1beta/models/gemini-2.5-flash:generateContent',
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    ])
    expect(provider.requests[0]!.headers['x-goog-api-key']).toBe('test-gemini-key')
  })

  it('surfaces an HTTP 429 as a retryable APICallError', async () => {
    provider = await startFakeProvider({ reply: () => ({ error: { status: 429 } }) })
    const error = await generateText({ model: model(provider), prompt: 'hi', maxRetries: 0 }).catch(
      (e: unknown) => e,
    )
    expect(APICallError.isInstance(error)).toBe(true)
    expect((error as APICallError).isRetryable).toBe(true)
    expect((error as APICallError).message).toBe('Resource has been exhausted (e.g. check quota).')
  })
})
