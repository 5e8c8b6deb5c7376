import { Ollama } from 'ollama'
import { afterEach, describe, expect, it } from 'vitest'
import { type FakeProvider, startFakeProvider } from './index.js'
import { goJson } from './ollama.js'
import type { FakeProviderOptions } from './server.js'

let provider: FakeProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

async function client(options: FakeProviderOptions): Promise<Ollama> {
  provider = await startFakeProvider(options)
  return new Ollama({ host: provider.url })
}

const messages = [{ role: 'user', content: 'What is the weather in Paris?' }]
const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
]

describe('Ollama chat', () => {
  it('answers a JSON chat with the message, why it stopped, the counts and the timings', async () => {
    const ollama = await client({ reply: [{ text: 'Sunny.', usage: { inputTokens: 26, outputTokens: 3 } }] })
    const response = await ollama.chat({ model: 'llama3.2', messages, stream: false })
    expect(response).toMatchObject({
      model: 'llama3.2',
      message: { role: 'assistant', content: 'Sunny.' },
      done: true,
      done_reason: 'stop',
      prompt_eval_count: 26,
      eval_count: 3,
    })
    expect(response.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
    expect(response.total_duration).toBeGreaterThan(response.eval_duration)
    expect(provider?.requests[0]).toMatchObject({ path: '/api/chat', endpoint: 'ollama-chat' })
  })

  it('streams newline-delimited JSON by default, as the API does when the body says nothing', async () => {
    provider = await startFakeProvider({ reply: [{ text: 'a <b> & c' }] })
    const res = await fetch(`${provider.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'llama3.2', messages }),
    })
    expect(res.headers.get('content-type')).toBe('application/x-ndjson')
    const text = await res.text()
    expect(text.endsWith('\n')).toBe(true)
    // Written by Go's encoder: the bytes escape what JSON.stringify leaves as it is.
    expect(text).toContain('"content":"\\u003cb\\u003e "')
    const lines = text.trimEnd().split('\n')
    for (const line of lines) expect(goJson(JSON.parse(line))).toBe(line)
    expect(lines.map((l) => JSON.parse(l).message.content).join('')).toBe('a <b> & c')
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ done: true, done_reason: 'stop' })
  })

  it('streams text deltas through the client, the counts on the last part', async () => {
    const ollama = await client({
      reply: [{ text: ['It ', 'is ', 'sunny.'], usage: { inputTokens: 20, outputTokens: 4 } }],
    })
    const parts = []
    for await (const part of await ollama.chat({ model: 'llama3.2', messages, stream: true }))
      parts.push(part)
    expect(parts.map((p) => p.message.content)).toEqual(['It ', 'is ', 'sunny.', ''])
    expect(parts.slice(0, -1).every((p) => p.done === false)).toBe(true)
    expect(parts.at(-1)).toMatchObject({ done: true, prompt_eval_count: 20, eval_count: 4 })
  })

  it('answers tool calls whole, arguments as an object, with an id, in JSON and in a stream', async () => {
    const call = { name: 'get_weather', args: { city: 'Paris' } }
    const ollama = await client({
      reply: [{ toolCalls: [call] }, { toolCalls: [call, { ...call, args: { city: 'Lyon' } }] }],
    })
    const response = await ollama.chat({ model: 'qwen3', messages, tools, stream: false })
    expect(response.message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^call_[0-9a-z]{8}$/),
        function: { index: 0, name: 'get_weather', arguments: { city: 'Paris' } },
      },
    ])
    expect(response.done_reason).toBe('stop')
    const parts = []
    for await (const part of await ollama.chat({ model: 'qwen3', messages, tools, stream: true }))
      parts.push(part)
    expect(parts.flatMap((p) => p.message.tool_calls ?? []).map((c) => c.function.arguments)).toEqual([
      { city: 'Paris' },
      { city: 'Lyon' },
    ])
  })

  it('fails a request with Ollama’s error body, which the client throws as a ResponseError at once', async () => {
    const ollama = await client({ reply: [{ error: { status: 404, message: "model 'llama9' not found" } }] })
    const error = await ollama.chat({ model: 'llama9', messages }).catch((e: unknown) => e)
    expect(error).toMatchObject({
      name: 'ResponseError',
      status_code: 404,
      error: "model 'llama9' not found",
    })
    expect((error as Error).message).toBe("model 'llama9' not found")
    expect(provider?.requests).toHaveLength(1)
  })

  it('ends a stream with an error line, which the client throws after the parts before it', async () => {
    const ollama = await client({
      reply: [
        {
          text: ['one ', 'two ', 'three ', 'four'],
          streamError: { afterEvents: 2, message: 'out of memory' },
        },
      ],
    })
    const seen: string[] = []
    const consume = async () => {
      for await (const part of await ollama.chat({ model: 'llama3.2', messages, stream: true }))
        seen.push(part.message.content)
    }
    const error = await consume().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toBe('out of memory')
    expect(seen).toEqual(['one ', 'two '])
  })
})

describe('Ollama generate', () => {
  it('answers a prompt in `response`, in JSON and in a stream, with the context tokens at the end', async () => {
    const ollama = await client({
      reply: [{ text: 'Rayleigh scattering.' }, { text: ['Rayleigh ', 'scattering.'] }],
    })
    const response = await ollama.generate({ model: 'qwen3', prompt: 'Why is the sky blue?' })
    expect(response).toMatchObject({ response: 'Rayleigh scattering.', done: true, done_reason: 'stop' })
    expect(response.context.length).toBeGreaterThan(0)
    const parts = []
    for await (const part of await ollama.generate({ model: 'qwen3', prompt: 'Why?', stream: true }))
      parts.push(part)
    expect(parts.map((p) => p.response)).toEqual(['Rayleigh ', 'scattering.', ''])
    expect(parts.at(-1)).toMatchObject({ done: true, eval_count: expect.any(Number) })
    expect(provider?.requests.map((r) => r.endpoint)).toEqual(['ollama-generate', 'ollama-generate'])
  })

  it('answers an unknown /api/ path in Ollama’s error shape', async () => {
    provider = await startFakeProvider({ reply: [] })
    const res = await fetch(`${provider.url}/api/embed`, { method: 'POST', body: '{}' })
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ error: 'fake-provider: no endpoint for POST /api/embed' })
  })
})
