import { isAgentTapeError } from '@agent-tape/core'
import { expect, it } from 'vitest'
import { modelLookalike, unconfiguredFailure, unconfiguredWarning } from './unconfigured-model.js'

function post(href: string, body: string): [Request, URL] {
  const request = new Request(href, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
  return [request, new URL(request.url)]
}

it('takes a POST to a path a codec owns, with a JSON body naming a model, for a model call', async () => {
  const chat = await modelLookalike(
    ...post('http://127.0.0.1:8000/v1/chat/completions', '{"model":"llama3"}'),
  )
  expect(chat?.name).toBe('openai-chat')
  const messages = await modelLookalike(...post('http://127.0.0.1:8000/v1/messages', '{"model":"claude"}'))
  expect(messages?.name).toBe('anthropic-messages')
  const responses = await modelLookalike(...post('http://10.0.0.5/api/v1/responses', '{"model":"gpt"}'))
  expect(responses?.name).toBe('openai-responses')
})

it('takes a local Ollama chat or generate call for a model call, and names its origin as the base URL', async () => {
  for (const path of ['/api/chat', '/api/generate']) {
    const [request, url] = post(`http://127.0.0.1:11434${path}`, '{"model":"llama3.2","stream":false}')
    const codec = await modelLookalike(request, url)
    expect(codec?.name).toBe('ollama')
    expect(unconfiguredWarning(url, codec!, true)).toBe(
      `[agent-tape] A request to http://127.0.0.1:11434${path} looks like a model call (ollama), but 127.0.0.1:11434 is not a model endpoint: loopback traffic that is not a model endpoint passes through untaped, so the call is not in the cassette and the replay will need that server running. Add its base URL to the modelEndpoints option (modelEndpoints: ['http://127.0.0.1:11434']) and re-record.`,
    )
  }
  // Listing models or pulling one is no model call.
  expect(
    await modelLookalike(...post('http://127.0.0.1:11434/api/pull', '{"model":"llama3.2"}')),
  ).toBeUndefined()
})

it('takes nothing else for a model call: other paths and methods, no model, or a body that is not JSON', async () => {
  const none = async (href: string, body: string) =>
    expect(await modelLookalike(...post(href, body))).toBeUndefined()
  await none('http://127.0.0.1:8000/v1/embeddings', '{"model":"e"}')
  await none('http://127.0.0.1:8000/v1/chat/completions/', '{"model":"llama3"}')
  await none('http://127.0.0.1:8000/v1/chat/completions', '{"messages":[]}')
  await none('http://127.0.0.1:8000/v1/chat/completions', '{"model":42}')
  await none('http://127.0.0.1:8000/v1/chat/completions', 'null')
  await none('http://127.0.0.1:8000/v1/chat/completions', '{"model":')
  await none('http://127.0.0.1:8000/v1/chat/completions', '')
  const get = new Request('http://127.0.0.1:8000/v1/responses')
  expect(await modelLookalike(get, new URL(get.url))).toBeUndefined()
})

it('reads a copy of the body, so the request can still be sent', async () => {
  const [request, url] = post('http://127.0.0.1:8000/v1/chat/completions', '{"model":"llama3"}')
  await modelLookalike(request, url)
  expect(request.bodyUsed).toBe(false)
  expect(await request.json()).toEqual({ model: 'llama3' })
})

it('warns that a loopback model call passed through untaped, naming the base URL to configure', async () => {
  const [request, url] = post(
    'http://127.0.0.1:8000/openai/v1/chat/completions?api-key=s3cret',
    '{"model":"m"}',
  )
  const codec = (await modelLookalike(request, url))!
  expect(unconfiguredWarning(url, codec, true)).toBe(
    "[agent-tape] A request to http://127.0.0.1:8000/openai/v1/chat/completions looks like a model call (openai-chat), but 127.0.0.1:8000 is not a model endpoint: loopback traffic that is not a model endpoint passes through untaped, so the call is not in the cassette and the replay will need that server running. Add its base URL to the modelEndpoints option (modelEndpoints: ['http://127.0.0.1:8000/openai/v1']) and re-record.",
  )
})

it('warns that any other model call was taped as plain HTTP', async () => {
  const [request, url] = post('https://llm.corp.example/v1/messages', '{"model":"m"}')
  const codec = (await modelLookalike(request, url))!
  expect(unconfiguredWarning(url, codec, false)).toBe(
    "[agent-tape] A request to https://llm.corp.example/v1/messages looks like a model call (anthropic-messages), but llm.corp.example is not a model endpoint: it was taped as plain HTTP: it does not advance the step, carries no token counts, and a replay miss is not answered in the provider’s error shape. Add its base URL to the modelEndpoints option (modelEndpoints: ['https://llm.corp.example/v1']) and re-record.",
  )
})

it('fails a replayed loopback model call that found no server with a config error carrying the cause', async () => {
  const [request, url] = post('http://[::1]:11434/v1/chat/completions', '{"model":"m"}')
  const codec = (await modelLookalike(request, url))!
  const cause = new TypeError('fetch failed')
  const error = unconfiguredFailure(url, codec, cause)
  expect(isAgentTapeError(error)).toBe(true)
  expect(error.code).toBe('ERR_TAPE_CONFIG')
  expect(error.cause).toBe(cause)
  expect(error.message).toBe(
    "[agent-tape] The model call to http://[::1]:11434/v1/chat/completions (openai-chat) failed in replay: [::1]:11434 is not a model endpoint, so it was never recorded: loopback traffic that is not a model endpoint passes through untaped, and nothing answered there (fetch failed). Add its base URL to the modelEndpoints option (modelEndpoints: ['http://[::1]:11434/v1']) and re-record the test.",
  )
  expect(unconfiguredFailure(url, codec, 'ECONNREFUSED').message).toContain(
    'nothing answered there (ECONNREFUSED)',
  )
})
