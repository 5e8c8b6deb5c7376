import { request as httpRequest } from 'node:http'
import { connect as http2Connect, type IncomingHttpHeaders } from 'node:http2'
import Anthropic, { AnthropicError } from '@anthropic-ai/sdk'
import OpenAI, { APIConnectionError, APIError } from 'openai'
import { afterEach, expect, it } from 'vitest'
import { type FakeProvider, startFakeProvider } from './index.js'

let provider: FakeProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

const messages = [{ role: 'user' as const, content: 'hi' }]
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${provider?.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })

it('listens on 127.0.0.1 with an ephemeral port and derives both SDK base URLs', async () => {
  provider = await startFakeProvider({ reply: [] })
  expect(provider.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  expect(provider.url).not.toMatch(/:0$/)
  expect(provider.openaiBaseURL).toBe(`${provider.url}/v1`)
  expect(provider.anthropicBaseURL).toBe(provider.url)
})

it('counts accepted TCP connections, and none before the first request', async () => {
  provider = await startFakeProvider({ reply: () => ({ text: 'ok' }) })
  expect(provider.connections).toBe(0)
  const send = () =>
    new Promise<void>((resolve, reject) => {
      const req = httpRequest(`${provider?.openaiBaseURL}/chat/completions`, { method: 'POST', agent: false })
      req.on('response', (res) => res.resume().on('end', resolve))
      req.on('error', reject)
      req.end(JSON.stringify({ model: 'm', messages }))
    })
  await send()
  await send()
  expect(provider.connections).toBe(2)
  expect(provider.requests).toHaveLength(2)
})

it('records method, path, query, headers, parsed and raw body of every request', async () => {
  provider = await startFakeProvider({ reply: () => ({ text: 'ok' }) })
  await post('/v1/chat/completions?api-version=1', { model: 'm', messages }, { 'x-custom': 'yes' })
  await post('/v1/unknown', { a: 1 })
  const [first, second] = provider.requests
  expect(first).toMatchObject({
    index: 0,
    method: 'POST',
    path: '/v1/chat/completions',
    search: '?api-version=1',
    body: { model: 'm', messages },
    rawBody: JSON.stringify({ model: 'm', messages }),
    endpoint: 'openai-chat',
  })
  expect(first?.headers['x-custom']).toBe('yes')
  expect(second).toMatchObject({ index: 1, path: '/v1/unknown', endpoint: undefined })
})

it('answers an unknown path with a provider-shaped 404 that forbids retries', async () => {
  provider = await startFakeProvider({ reply: () => ({ text: 'never' }) })
  const res = await post('/v1/embeddings', { input: 'x' })
  expect(res.status).toBe(404)
  expect(res.headers.get('x-should-retry')).toBe('false')
  expect(await res.json()).toMatchObject({ error: { message: expect.stringContaining('/v1/embeddings') } })
})

it('answers a body that is not a JSON object with a 400', async () => {
  provider = await startFakeProvider({ reply: () => ({ text: 'never' }) })
  const res = await post('/v1/messages', '{not json')
  expect(res.status).toBe(400)
  expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } })
})

it('answers past the end of a script with a 500 the SDK does not retry', async () => {
  provider = await startFakeProvider({ reply: [{ text: 'only one' }] })
  const openai = new OpenAI({ apiKey: 'sk-test', baseURL: provider.openaiBaseURL, maxRetries: 2 })
  await openai.chat.completions.create({ model: 'm', messages })
  const error = await openai.chat.completions.create({ model: 'm', messages }).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(APIError)
  expect((error as APIError).status).toBe(500)
  expect((error as APIError).message).toContain('script exhausted')
  expect(provider.requests).toHaveLength(2)
})

it('passes an error thrown by reply() back as a 500 naming it', async () => {
  provider = await startFakeProvider({
    reply: () => {
      throw new Error('unexpected prompt')
    },
  })
  const res = await post('/v1/responses', { model: 'm', input: 'x' })
  expect(res.status).toBe(500)
  expect(await res.json()).toMatchObject({
    error: { message: 'fake-provider: reply failed: unexpected prompt' },
  })
})

it('frames Chat Completions chunks as data-only SSE ending in data: [DONE]', async () => {
  provider = await startFakeProvider({ reply: [{ text: 'a b' }] })
  const res = await post('/v1/chat/completions', { model: 'm', messages, stream: true })
  expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
  expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/)
  const body = await res.text()
  expect(body.endsWith('\n\ndata: [DONE]\n\n')).toBe(true)
  expect(body).not.toContain('event:')
  const frames = body.split('\n\n').filter(Boolean)
  expect(frames.every((f) => f.startsWith('data: '))).toBe(true)
  expect(JSON.parse(frames[0]!.slice(6))).toMatchObject({
    object: 'chat.completion.chunk',
    obfuscation: expect.any(String),
  })
})

it('omits obfuscation when include_obfuscation is false', async () => {
  provider = await startFakeProvider({ reply: [{ text: 'a b' }] })
  const res = await post('/v1/chat/completions', {
    model: 'm',
    messages,
    stream: true,
    stream_options: { include_obfuscation: false },
  })
  expect(await res.text()).not.toContain('obfuscation')
})

it('sends named Anthropic events with the ping serialized as the API does', async () => {
  provider = await startFakeProvider({ reply: [{ text: 'hi' }] })
  const res = await post('/v1/messages', { model: 'm', max_tokens: 5, messages, stream: true })
  expect(res.headers.get('request-id')).toMatch(/^req_011C/)
  const body = await res.text()
  expect(body).toContain('event: ping\ndata: {"type": "ping"}\n\n')
  const names = [...body.matchAll(/^event: (.+)$/gm)].map((m) => m[1])
  expect(names).toEqual([
    'message_start',
    'content_block_start',
    'ping',
    'content_block_delta',
    'content_block_stop',
    'message_delta',
    'message_stop',
  ])
})

it('gzips JSON only when the client accepts gzip', async () => {
  provider = await startFakeProvider({ gzip: true, reply: () => ({ text: 'z' }) })
  const raw = await new Promise<string | undefined>((resolve, reject) => {
    const req = httpRequest(`${provider?.url}/v1/messages`, { method: 'POST' }, (res) => {
      res.resume()
      resolve(res.headers['content-encoding'])
    })
    req.on('error', reject)
    req.end(JSON.stringify({ model: 'm', max_tokens: 5, messages }))
  })
  expect(raw).toBeUndefined()
  const res = await post('/v1/messages', { model: 'm', max_tokens: 5, messages })
  expect(res.headers.get('content-encoding')).toBe('gzip')
  expect(await res.json()).toMatchObject({ content: [{ type: 'text', text: 'z' }] })
})

it('spaces stream events by chunkDelayMs so a stream takes real time', async () => {
  provider = await startFakeProvider({ chunkDelayMs: 20, reply: [{ text: 'one two three four' }] })
  const started = performance.now()
  const res = await post('/v1/chat/completions', { model: 'm', messages, stream: true })
  const headersAt = performance.now() - started
  await res.text()
  const total = performance.now() - started
  // 7 events (role, 4 deltas, finish, [DONE]) at 20 ms each; headers come before the first delay.
  expect(total).toBeGreaterThanOrEqual(130)
  expect(headersAt).toBeLessThan(total / 2)
})

it('cuts an OpenAI stream mid-way and iteration rejects with undici terminated error', async () => {
  provider = await startFakeProvider({ reply: [{ text: 'a b c d e f', cutAfterEvents: 3 }] })
  const openai = new OpenAI({ apiKey: 'sk-test', baseURL: provider.openaiBaseURL, maxRetries: 0 })
  const stream = await openai.chat.completions.create({ model: 'm', messages, stream: true })
  let received = 0
  const error = await (async () => {
    for await (const _ of stream) received += 1
  })().catch((e: unknown) => e)
  // openai-node lets undici's error through: TypeError 'terminated', cause UND_ERR_SOCKET.
  expect(error).toBeInstanceOf(TypeError)
  expect(error).not.toBeInstanceOf(APIError)
  expect((error as Error).message).toBe('terminated')
  expect(((error as Error).cause as { code?: string }).code).toBe('UND_ERR_SOCKET')
  expect(received).toBe(3)
})

it('cuts an Anthropic stream mid-way and finalMessage() rejects', async () => {
  provider = await startFakeProvider({ reply: [{ text: 'a b c d e f', cutAfterEvents: 4 }] })
  const anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: provider.anthropicBaseURL, maxRetries: 0 })
  const stream = anthropic.messages.stream({ model: 'claude-sonnet-5', max_tokens: 5, messages })
  const error = await stream.finalMessage().catch((e: unknown) => e)
  expect(error).toBeInstanceOf(AnthropicError)
  expect((error as Error).message).toBe('terminated')
  expect(stream.currentMessage?.content).toEqual([{ type: 'text', text: 'a ' }])
})

it('cuts a stream after its headers and before any event: create() resolves, iteration rejects', async () => {
  provider = await startFakeProvider({ reply: [{ text: 'x', cutAfterEvents: 0 }] })
  const openai = new OpenAI({ apiKey: 'sk-test', baseURL: provider.openaiBaseURL, maxRetries: 0 })
  const stream = await openai.chat.completions.create({ model: 'm', messages, stream: true })
  const error = await (async () => {
    for await (const _ of stream) {
    }
  })().catch((e: unknown) => e)
  expect(error).toBeInstanceOf(TypeError)
  expect(error).not.toBeInstanceOf(APIConnectionError)
  expect((error as Error).message).toBe('terminated')
})

it('holds a stream after holdAfterEvents until the client aborts, so the client reads nothing later', async () => {
  provider = await startFakeProvider({
    reply: [{ text: ['a ', 'b ', 'c'], holdAfterEvents: 2 }, { text: 'ok' }],
  })
  const openai = new OpenAI({ apiKey: 'sk-test', baseURL: provider.openaiBaseURL, maxRetries: 0 })
  const controller = new AbortController()
  const stream = await openai.chat.completions.create(
    { model: 'm', messages, stream: true },
    { signal: controller.signal },
  )
  let text = ''
  // The role chunk, then 'a ': the two events before the hold. openai-node ends the loop on an abort.
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? ''
    if (text) controller.abort()
  }
  expect(text).toBe('a ')
  const after = await post('/v1/chat/completions', { model: 'm', messages })
  expect(after.status).toBe(200)
})

it('makes the same ids from the same seed', async () => {
  const ids = async () => {
    const p = await startFakeProvider({
      seed: 'demo',
      reply: () => ({ toolCalls: [{ name: 't', args: {} }] }),
    })
    const body = await (await fetch(`${p.url}/v1/messages`, { method: 'POST', body: '{"model":"m"}' })).json()
    await p.close()
    return body as { id: string; content: Array<{ id: string }> }
  }
  const [a, b] = [await ids(), await ids()]
  expect(a.id).toBe(b.id)
  expect(a.content[0]?.id).toBe(b.content[0]?.id)
  expect(a.content[0]?.id).toMatch(/^toolu_01[A-Za-z0-9]{22}$/)
})

it('keeps serving after a client cancels a stream mid-way, and closes with the stream abandoned', async () => {
  provider = await startFakeProvider({ chunkDelayMs: 10, reply: () => ({ text: 'a b c d e f g h i j' }) })
  const res = await post('/v1/chat/completions', { model: 'm', messages, stream: true })
  const reader = res.body!.getReader()
  const first = await reader.read()
  await reader.cancel()
  expect(new TextDecoder().decode(first.value)).toMatch(/^data: /)
  const after = await post('/v1/chat/completions', { model: 'm', messages })
  expect(after.status).toBe(200)
  await expect(provider.close()).resolves.toBeUndefined()
  provider = undefined
})

/** One HTTP/2 request on a session of its own: the response headers and the body as text. */
function http2Post(origin: string, path: string, body: unknown) {
  return new Promise<{ headers: IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const session = http2Connect(origin)
    session.on('error', reject)
    const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/json' })
    let headers: IncomingHttpHeaders = {}
    let text = ''
    stream.on('response', (h) => {
      headers = h
    })
    stream.on('data', (chunk: Buffer) => {
      text += chunk
    })
    stream.on('end', () => {
      session.close()
      resolve({ headers, text })
    })
    stream.on('error', reject)
    stream.end(JSON.stringify(body))
  })
}

it('answers HTTP/2 over cleartext on a port of its own when asked, JSON and streamed', async () => {
  provider = await startFakeProvider({ http2: true, reply: [{ text: 'over h2' }, { text: 'a b' }] })
  expect(provider.http2Url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  expect(provider.http2Url).not.toBe(provider.url)
  const json = await http2Post(provider.http2Url!, '/v1/chat/completions', { model: 'm', messages })
  expect(json.headers[':status']).toBe(200)
  expect(JSON.parse(json.text)).toMatchObject({ choices: [{ message: { content: 'over h2' } }] })
  const sse = await http2Post(provider.http2Url!, '/v1/chat/completions', {
    model: 'm',
    messages,
    stream: true,
  })
  expect(sse.headers['content-type']).toBe('text/event-stream; charset=utf-8')
  expect(sse.text.endsWith('data: [DONE]\n\n')).toBe(true)
  expect(provider.connections).toBe(2)
  // The request line is not among the headers.
  expect(Object.keys(provider.requests[0]!.headers).filter((name) => name.startsWith(':'))).toEqual([])
  expect(provider.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions' })
})

it('has no HTTP/2 port unless asked', async () => {
  provider = await startFakeProvider({ reply: [] })
  expect(provider.http2Url).toBeUndefined()
})
