import { describe, expect, it } from 'vitest'
import type { RequestClass } from './endpoints.js'
import { readRequestBytes } from './request-body.js'
import { decideRequest, readRequestParts, wireHead } from './request-input.js'

const CHAT = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Weather in Paris?' }] }

/** The decision of a request, as the boundary makes it: its parts read, its body's bytes with them. */
async function decide(request: Request, url: URL, requestClass: RequestClass, consumeBody = false) {
  const body = await readRequestBytes(request, consumeBody)
  return decideRequest(readRequestParts(request, url, requestClass, body))
}

function json(url: string, body: unknown, headers: Record<string, string> = {}): [Request, URL] {
  const request = new Request(url, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  })
  return [request, new URL(request.url)]
}

it('keys a model request by API, method and path, without the host or port', async () => {
  const [a, urlA] = json('http://127.0.0.1:41234/v1/chat/completions', CHAT)
  const [b, urlB] = json('https://api.openai.com/v1/chat/completions', CHAT)
  const first = await decide(a, urlA, 'model')
  expect(first.kind).toBe('llm')
  expect(first.codec?.name).toBe('openai-chat')
  expect(first.input).toEqual({
    api: 'openai-chat',
    method: 'POST',
    path: '/v1/chat/completions',
    body: first.codec!.canonicalBody(CHAT),
  })
  expect((await decide(b, urlB, 'model')).input).toEqual(first.input)
})

it('keys the behaviour headers of a model request, and never its credentials', async () => {
  const [request, url] = json('https://api.anthropic.com/v1/messages', CHAT, {
    'x-api-key': 'sk-ant-secret',
    authorization: 'Bearer sk-secret',
    'anthropic-version': '2023-06-01',
    'anthropic-beta': 'tools-2024-04-04',
    'user-agent': 'Anthropic/JS 0.50.0',
  })
  const { input } = await decide(request, url, 'model')
  expect(input.headers).toEqual({ 'anthropic-version': '2023-06-01', 'anthropic-beta': 'tools-2024-04-04' })
  expect(JSON.stringify(input)).not.toContain('secret')
})

it('keys the query of a model request sorted, without credential parameters', async () => {
  const [request, url] = json(
    'https://res.openai.azure.com/openai/deployments/gpt/chat/completions?api-version=2024-06-01&api-key=k1&b=2&a=1',
    CHAT,
  )
  const { input } = await decide(request, url, 'model')
  expect(input.path).toBe('/openai/deployments/gpt/chat/completions')
  expect(input.query).toEqual([
    ['a', '1'],
    ['api-version', '2024-06-01'],
    ['b', '2'],
  ])
})

it('keys a model request no codec owns, or one whose body is not JSON, as HTTP by path', async () => {
  const [embeddings, url] = json('http://127.0.0.1:9/v1/embeddings?x=1', { model: 'e', input: 'hi' })
  expect(await decide(embeddings, url, 'model')).toEqual({
    kind: 'http',
    codec: undefined,
    input: {
      method: 'POST',
      url: '/v1/embeddings',
      query: [['x', '1']],
      body: { json: { model: 'e', input: 'hi' } },
    },
  })
  const text = new Request('http://127.0.0.1:9/v1/chat/completions', { method: 'POST', body: 'not json' })
  const decision = await decide(text, new URL(text.url), 'model')
  expect(decision.kind).toBe('http')
  expect(decision.input).toEqual({ method: 'POST', url: '/v1/chat/completions', body: { text: 'not json' } })
  // A GET to a codec's path (a listing, say) has no body: HTTP as well.
  const list = new Request('https://api.openai.com/v1/responses')
  expect(await decide(list, new URL(list.url), 'model')).toMatchObject({
    kind: 'http',
    input: { method: 'GET', url: '/v1/responses' },
  })
})

it('keys other HTTP by origin and path, leaving out the fragment and credential parameters', async () => {
  const request = new Request('https://Search.Example.com:8443/v1/find/?q=tape&q=cassette&token=t0k#top')
  const { kind, input } = await decide(request, new URL(request.url), 'external')
  expect(kind).toBe('http')
  expect(input).toEqual({
    method: 'GET',
    url: 'https://search.example.com:8443/v1/find/',
    query: [
      ['q', 'cassette'],
      ['q', 'tape'],
    ],
  })
  expect(JSON.stringify(input)).not.toMatch(/t0k|top/)
})

it('tells a path with a trailing slash and a default port apart from neither', async () => {
  const key = async (href: string) => {
    const request = new Request(href)
    return (await decide(request, new URL(request.url), 'external')).input.url
  }
  expect(await key('https://api.example.com:443/items')).toBe('https://api.example.com/items')
  expect(await key('https://api.example.com/items/')).toBe('https://api.example.com/items/')
  expect(await key('http://[::1]:8080/items')).toBe('http://[::1]:8080/items')
})

it('keys the accept and content type of other HTTP, without a multipart boundary', async () => {
  const form = new FormData()
  form.set('a', '1')
  const request = new Request('https://files.example.com/upload', {
    method: 'post',
    body: form,
    headers: { accept: 'application/json', 'x-trace': 'abc' },
  })
  const { input } = await decide(request, new URL(request.url), 'external')
  expect(input).toMatchObject({
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'multipart/form-data' },
    body: { contentType: 'multipart/form-data', bytes: expect.any(Number) },
  })
  expect(input.headers).not.toHaveProperty('x-trace')
})

it('keys a repeated accept header as the joined value a server sees', async () => {
  const headers = new Headers()
  headers.append('accept', 'text/html')
  headers.append('accept', 'application/json')
  const request = new Request('https://api.example.com/', { headers })
  const { input } = await decide(request, new URL(request.url), 'external')
  expect(input.headers).toEqual({ accept: 'text/html, application/json' })
})

it('upper-cases the method (a Request leaves "patch" as it is), and consumes the body only when asked', async () => {
  const request = new Request('https://api.example.com/things', {
    method: 'patch',
    body: '{"a":1}',
    headers: { 'content-type': 'application/json' },
  })
  expect(request.method).toBe('patch')
  const decision = await decide(request, new URL(request.url), 'external')
  expect(decision.input).toMatchObject({ method: 'PATCH', body: { json: { a: 1 } } })
  expect(request.bodyUsed).toBe(false)
  await decide(request, new URL(request.url), 'external', true)
  expect(request.bodyUsed).toBe(true)
})

describe('wireHead', () => {
  const parts = (url: string, headers: Record<string, string> = {}, requestClass: RequestClass = 'model') => {
    const request = new Request(url, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json', ...headers },
    })
    return readRequestParts(request, new URL(request.url), requestClass, Buffer.from('{}'))
  }

  it('covers every part a decision is computed from but the body', () => {
    const base = parts('https://api.openai.com/v1/chat/completions?api-version=1', { 'openai-beta': 'a' })
    const other = parts(
      'https://gw.example.com/v2/embeddings?api-version=2',
      { 'openai-beta': 'b' },
      'external',
    )
    const differing = Object.keys(base).filter((name) => name !== 'body')
    expect(differing).toEqual(['requestClass', 'method', 'url', 'codec', 'query', 'headers', 'contentType'])
    for (const name of differing) {
      const changed = { ...base, [name]: (other as unknown as Record<string, unknown>)[name] }
      if (name === 'method') changed.method = 'PUT'
      if (name === 'contentType') changed.contentType = 'application/json; charset=utf-8'
      expect(wireHead(changed), name).not.toBe(wireHead(base))
    }
  })

  it('leaves out credentials, and a model request host, as the key does', () => {
    const a = parts('http://127.0.0.1:4100/v1/chat/completions?api-version=1&api-key=first', {
      authorization: 'Bearer sk-first',
    })
    const b = parts('http://127.0.0.1:4200/v1/chat/completions?api-key=second&api-version=1', {
      authorization: 'Bearer sk-second',
      'user-agent': 'OpenAI/JS 9',
    })
    expect(wireHead(a)).toBe(wireHead(b))
    const external = (host: string) => wireHead(parts(`https://${host}/v1/search`, {}, 'external'))
    expect(external('a.example.com')).not.toBe(external('b.example.com'))
  })
})
