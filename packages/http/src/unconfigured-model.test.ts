import type { RunPlace } from '@agent-tape/core'
import { isAgentTapeError } from '@agent-tape/core'
import { describe, expect, it } from 'vitest'
import { endpointOf, modelLookalike, undeclaredModelError } from './unconfigured-model.js'

function post(href: string, body = ''): [Request, URL] {
  const request = new Request(href, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
  return [request, new URL(request.url)]
}

const tape = (action: 'record' | 'replay', runsIn: RunPlace = 'test') => ({
  id: 'test/agent.test.ts > local model',
  action,
  rerecordCommand: "npx vitest run test/agent.test.ts -t '^local model$' -- --update-cassettes",
  runsIn,
})

it('takes a POST to a path a codec owns, with a JSON body naming a model, for a model call', async () => {
  const chat = await modelLookalike(
    ...post('http://127.0.0.1:8000/v1/chat/completions', '{"model":"llama3"}'),
  )
  expect(chat?.name).toBe('openai-chat')
  const messages = await modelLookalike(...post('http://127.0.0.1:8000/v1/messages', '{"model":"claude"}'))
  expect(messages?.name).toBe('anthropic-messages')
  const responses = await modelLookalike(...post('http://10.0.0.5/api/v1/responses', '{"model":"gpt"}'))
  expect(responses?.name).toBe('openai-responses')
  for (const path of ['/api/chat', '/api/generate']) {
    const ollama = await modelLookalike(...post(`http://127.0.0.1:11434${path}`, '{"model":"llama3.2"}'))
    expect(ollama?.name).toBe('ollama')
  }
})

describe('a path that names the model (Gemini, Bedrock) is a model call whatever its body', () => {
  it.each([
    ['/v1beta/models/gemini-2.5-flash:generateContent', 'gemini', 'http://127.0.0.1:4000'],
    ['/v1beta/models/gemini-2.5-flash:streamGenerateContent', 'gemini', 'http://127.0.0.1:4000'],
    ['/gateway/v1/models/gemini-2.5-pro:generateContent', 'gemini', 'http://127.0.0.1:4000/gateway'],
    ['/v1beta/tunedModels/mine-1:generateContent', 'gemini', 'http://127.0.0.1:4000'],
    [
      '/v1/projects/p-1/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent',
      'gemini',
      'http://127.0.0.1:4000',
    ],
    [
      '/v1/projects/p-1/locations/europe-west4/endpoints/123:streamGenerateContent',
      'gemini',
      'http://127.0.0.1:4000',
    ],
    [
      '/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse',
      'bedrock-converse',
      'http://127.0.0.1:4000',
    ],
    ['/model/amazon.nova-pro-v1%3A0/converse-stream', 'bedrock-converse', 'http://127.0.0.1:4000'],
    ['/bedrock/model/meta.llama3-8b/invoke', 'bedrock-invoke', 'http://127.0.0.1:4000/bedrock'],
    ['/model/anthropic.claude-v2/invoke-with-response-stream', 'bedrock-invoke', 'http://127.0.0.1:4000'],
  ])('%s is %s, declared as %s', async (path, name, base) => {
    for (const body of ['{"contents":[]}', '', 'not json']) {
      const [request, url] = post(`http://127.0.0.1:4000${path}`, body)
      const codec = await modelLookalike(request, url)
      expect(codec?.name).toBe(name)
      expect(endpointOf(url, codec!)).toBe(base)
    }
  })

  it('but not a GET, nor a path that only starts like one', async () => {
    const get = new Request('http://127.0.0.1:4000/v1beta/models/gemini-2.5-flash:generateContent')
    expect(await modelLookalike(get, new URL(get.url))).toBeUndefined()
    for (const path of [
      '/v1beta/models/gemini-2.5-flash',
      '/v1beta/models/gemini-2.5-flash:countTokens',
      '/model/x/converse/extra',
      '/model/invoke',
      '/models/x/invoke',
    ])
      expect(
        await modelLookalike(...post(`http://127.0.0.1:4000${path}`, '{"model":"x"}')),
        path,
      ).toBeUndefined()
  })
})

it('takes nothing else for a model call: other paths and methods, no model, or a body that is not JSON', async () => {
  const none = async (href: string, body: string) =>
    expect(await modelLookalike(...post(href, body)), `${href} ${body}`).toBeUndefined()
  await none('http://127.0.0.1:8000/v1/embeddings', '{"model":"e"}')
  await none('http://127.0.0.1:11434/api/pull', '{"model":"llama3.2"}')
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

it('names the base URL before each codec’s API path, the query left out', async () => {
  const cases: [string, string][] = [
    ['http://127.0.0.1:8000/openai/v1/chat/completions?api-key=s3cret', 'http://127.0.0.1:8000/openai/v1'],
    ['http://[::1]:4000/v1/messages', 'http://[::1]:4000/v1'],
    ['http://localhost:4000/v1/responses', 'http://localhost:4000/v1'],
    ['http://127.0.0.1:11434/api/chat', 'http://127.0.0.1:11434'],
  ]
  for (const [href, base] of cases) {
    const [request, url] = post(href, '{"model":"m"}')
    expect(endpointOf(url, (await modelLookalike(request, url))!)).toBe(base)
  }
})

describe('the refusal', () => {
  it('says a replayed loopback call would have reached the server, and how to re-record', async () => {
    const [request, url] = post('http://127.0.0.1:11434/api/chat?token=s3cret', '{"model":"llama3.2"}')
    const error = undeclaredModelError(url, (await modelLookalike(request, url))!, tape('replay'), true)
    expect(isAgentTapeError(error) && error.code).toBe('ERR_TAPE_CONFIG')
    expect(error.message).toBe(
      `[agent-tape] Refused a model call to http://127.0.0.1:11434/api/chat (ollama): 127.0.0.1:11434 is not a model endpoint: tape "test/agent.test.ts > local model" is replaying, and loopback traffic that is not a model endpoint passes through untaped, so the replay would send it to that server. The request was not sent. Add its base URL to the modelEndpoints option (modelEndpoints: ['http://127.0.0.1:11434']) and re-record the test: npx vitest run test/agent.test.ts -t '^local model$' -- --update-cassettes, or, if the test must reach that server for real in every mode, add 127.0.0.1:11434 to allowHosts.`,
    )
  })

  it('says a recording would lack a loopback call, and to run the test again once declared', async () => {
    const [request, url] = post('http://127.0.0.1:4000/v1beta/models/gemini-2.5-flash:generateContent')
    const error = undeclaredModelError(url, (await modelLookalike(request, url))!, tape('record'), true)
    expect(error.message).toBe(
      `[agent-tape] Refused a model call to http://127.0.0.1:4000/v1beta/models/gemini-2.5-flash:generateContent (gemini): 127.0.0.1:4000 is not a model endpoint: tape "test/agent.test.ts > local model" is recording, and loopback traffic that is not a model endpoint passes through untaped, so the cassette would lack it and its replay would send it to that server. The request was not sent. Add its base URL to the modelEndpoints option (modelEndpoints: ['http://127.0.0.1:4000']) and run the test again, or, if the test must reach that server for real in every mode, add 127.0.0.1:4000 to allowHosts.`,
    )
  })

  it('says a call to another host would be taped as plain HTTP, without offering allowHosts', async () => {
    const [request, url] = post('https://llm.corp.example/v1/messages', '{"model":"m"}')
    const error = undeclaredModelError(url, (await modelLookalike(request, url))!, tape('record'), false)
    expect(error.message).toBe(
      `[agent-tape] Refused a model call to https://llm.corp.example/v1/messages (anthropic-messages): llm.corp.example is not a model endpoint: tape "test/agent.test.ts > local model" is recording, and it would be taped as plain HTTP: it would not advance the step, carry no token counts, and a replay miss would not be answered in the provider’s error shape. The request was not sent. Add its base URL to the modelEndpoints option (modelEndpoints: ['https://llm.corp.example/v1']) and run the test again.`,
    )
  })

  it('speaks of where it happens: a captured run (the call went out) and a recorded command (its flag)', async () => {
    const [request, url] = post('http://127.0.0.1:11434/api/chat', '{"model":"llama3.2"}')
    const codec = (await modelLookalike(request, url))!
    const served = undeclaredModelError(url, codec, tape('record', 'server'), true)
    expect(served.message).toBe(
      `[agent-tape] Did not record a model call to http://127.0.0.1:11434/api/chat (ollama): 127.0.0.1:11434 is not a model endpoint: loopback traffic that is not a model endpoint is not recorded, so the run "test/agent.test.ts > local model" could not be kept whole. The request was sent as the app made it. Add its base URL to the modelEndpoints of createCapture (modelEndpoints: ['http://127.0.0.1:11434']) and restart the server.`,
    )
    const recorded = undeclaredModelError(url, codec, tape('record', 'command'), true)
    expect(recorded.message).toContain('the command is recording')
    expect(recorded.message).toContain(
      'Pass --model-endpoint http://127.0.0.1:11434 to agent-tape record and record the command again.',
    )
    const replayed = undeclaredModelError(url, codec, tape('replay', 'command'), false)
    expect(replayed.message).toContain(
      'Pass --model-endpoint http://127.0.0.1:11434 to agent-tape replay, or record the command again with it:',
    )
    for (const error of [served, recorded, replayed]) expect(error.message).not.toContain('the test')
  })
})
