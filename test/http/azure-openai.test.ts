import { createMemoryStore, parseCassette } from '@agent-tape/core'
import { isSecretParamName } from '@agent-tape/core/internal'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import { recordedUsage } from '@agent-tape/http/internal'
import OpenAI, { AzureOpenAI } from 'openai'
import type { ChatCompletion, ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { WEATHER_TOOLS, weatherScript } from '../support/openai-agent.js'
import { RESEARCH_TOOLS, researchScript } from '../support/scripts.js'
import { runTaped } from '../support/tape-run.js'

// An Azure OpenAI resource on loopback, declared in modelEndpoints as a user declares a private
// endpoint; a real resource (https://<resource>.openai.azure.com) needs no declaration.
// What every client of every API gets alike, AzureOpenAI on a deployment among them, is in
// test/providers/; here, what Azure does besides: resource hosts and Entra ID tokens, the
// deployment and api-version in the key, an api-key query parameter, the Responses API's paths.
const boundary = installHttpBoundary()
const store = createMemoryStore()
const API_KEY = `azk${'AzureTestKey0'.repeat(3)}`
const ENTRA_TOKEN = `eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.${'eyJhdWQiOiJjb2duaXRpdmUifQ'.repeat(2)}.c2lnbmF0dXJl`
let provider: FakeProvider

beforeAll(async () => {
  provider = await startFakeProvider({
    reply: (req) =>
      req.path.endsWith('/responses') ? researchScript(req.body) : weatherScript(req.body as never),
    seed: 'azure',
  })
  boundary.addModelEndpoints(`${provider.url}/openai`)
})
afterAll(() => provider.close())

const azure = (options: Partial<ConstructorParameters<typeof AzureOpenAI>[0]> = {}) =>
  new AzureOpenAI({
    apiKey: API_KEY,
    endpoint: provider.url,
    deployment: 'gpt-4o-prod',
    apiVersion: '2024-10-21',
    ...options,
  })

/** The weather agent on chat completions, keeping every completion it received. */
async function weather(client: OpenAI, question = 'Weather and time in Paris?') {
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: question }]
  const received: ChatCompletion[] = []
  for (let step = 0; step < 5; step++) {
    const completion = await client.chat.completions.create({
      model: 'gpt-4o',
      messages,
      tools: WEATHER_TOOLS,
    })
    received.push(completion)
    const message = completion.choices[0]!.message
    messages.push(message as ChatCompletionMessageParam)
    if (!message.tool_calls?.length) return { text: message.content, received }
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue
      messages.push({ role: 'tool', tool_call_id: call.id, content: `${call.function.name}: 18°C, 14:05` })
    }
  }
  throw new Error('step budget exhausted')
}

it('replays on any resource host, with an Entra ID token instead of the key: neither is in the key', async () => {
  const recording = await runTaped(store, 'deployment-JSON.jsonl', 'auto', () => weather(azure()))
  expect(recording.result?.text).toBe('It is 14:05 in Paris and 18°C with light rain.')
  for (const endpoint of [
    'https://contoso-eastus.openai.azure.com',
    'https://contoso.cognitiveservices.azure.com/',
  ]) {
    const client = azure({ apiKey: undefined, azureADTokenProvider: async () => ENTRA_TOKEN, endpoint })
    const connections = provider.connections
    const replay = await runTaped(store, 'deployment-JSON.jsonl', 'replay', () => weather(client))
    expect(replay.state, endpoint).toMatchObject({ status: 'clean', replayed: 3 })
    expect(provider.connections).toBe(connections)
  }
  // Recorded with the token: it is not stored either.
  const rec = await runTaped(store, 'entra.jsonl', 'auto', () =>
    weather(azure({ apiKey: undefined, azureADTokenProvider: async () => ENTRA_TOKEN })),
  )
  expect(rec.state.recorded).toBe(3)
  expect(provider.requests.at(-1)?.headers.authorization).toBe(`Bearer ${ENTRA_TOKEN}`)
  expect(store.files['entra.jsonl']).not.toContain(ENTRA_TOKEN)
  expect(store.files['entra.jsonl']).not.toContain('eyJ')
})

it('keys the deployment and the api-version: changing either is a miss that names the change', async () => {
  const deployment = await runTaped(store, 'deployment-JSON.jsonl', 'replay', () =>
    weather(azure({ deployment: 'gpt-4o-canary' })),
  )
  expect(deployment.error).toBeInstanceOf(OpenAI.BadRequestError)
  expect(deployment.failure?.message).toContain('Replay miss at step 1, model request (gpt-4o)')
  expect(deployment.failure?.message).toContain(
    // (A long string is clipped to the edit with some context; a path has no spaces to clip at.)
    'path: "…enai/deployments/gpt-4o-prod/chat/completions" → "…enai/deployments/gpt-4o-canary/chat/completions"',
  )
  const version = await runTaped(store, 'deployment-JSON.jsonl', 'replay', () =>
    weather(azure({ apiVersion: '2025-04-01-preview' })),
  )
  // The query is read by parameter name (its key and fingerprint keep the pairs as they were).
  expect(
    version.failure?.message.endsWith(
      '  Input changed (recorded → now):\n    query.api-version: "2024-10-21" → "2025-04-01-preview"',
    ),
  ).toBe(true)
})

it('never keys or stores an api-key sent as a query parameter', async () => {
  expect(isSecretParamName('api-key')).toBe(true)
  const client = new OpenAI({
    apiKey: 'unused',
    baseURL: `${provider.url}/openai/v1`,
    defaultQuery: { 'api-key': API_KEY },
    defaultHeaders: { 'api-key': API_KEY },
  })
  const rec = await runTaped(store, 'query-key.jsonl', 'auto', () => weather(client))
  expect(rec.state.recorded).toBe(3)
  expect(provider.requests.at(-1)?.search).toBe(`?api-key=${API_KEY}`)
  const text = store.files['query-key.jsonl']!
  expect(text).not.toContain(API_KEY)
  expect(parseCassette(text, 'query-key.jsonl').decisions[0]!.in).not.toHaveProperty('query')
})

it('records the Responses API, on the api-version path and on the v1 path, and replays it', async () => {
  const tools: OpenAI.Responses.FunctionTool[] = Object.keys(RESEARCH_TOOLS).map((name) => ({
    type: 'function',
    name,
    strict: false,
    parameters: { type: 'object', properties: { query: { type: 'string' }, url: { type: 'string' } } },
  }))
  const agent = async (client: OpenAI) => {
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'When was tape invented?' }]
    const responses: OpenAI.Responses.Response[] = []
    for (let step = 0; step < 5; step++) {
      const response = await client.responses.create({ model: 'gpt-4o-prod', input, tools })
      responses.push(response)
      const calls = response.output.filter((o) => o.type === 'function_call')
      if (calls.length === 0) return { text: response.output_text, responses }
      for (const call of calls) {
        input.push(call)
        const run = (RESEARCH_TOOLS as Record<string, (a: never) => string>)[call.name]!
        input.push({
          type: 'function_call_output',
          call_id: call.call_id,
          output: run(JSON.parse(call.arguments) as never),
        })
      }
    }
    throw new Error('step budget exhausted')
  }
  const clients: [string, () => OpenAI, string][] = [
    ['preview', () => azure({ apiVersion: '2025-03-01-preview' }), '/openai/responses'],
    [
      'v1',
      () => new OpenAI({ apiKey: API_KEY, baseURL: `${provider.url}/openai/v1` }),
      '/openai/v1/responses',
    ],
  ]
  for (const [name, client, path] of clients) {
    const file = `responses-${name}.jsonl`
    const rec = await runTaped(store, file, 'auto', () => agent(client()))
    expect(rec.result?.text).toBe('Magnetic tape recording was invented in 1928.')
    const connections = provider.connections
    const replay = await runTaped(store, file, 'replay', () => agent(client()))
    expect(provider.connections).toBe(connections)
    expect(replay.state).toMatchObject({ status: 'clean', replayed: 3 })
    expect(replay.result).toEqual(rec.result)
    const decisions = parseCassette(store.files[file]!, file).decisions
    expect(decisions[0]!.in).toMatchObject({ api: 'openai-responses', path })
    expect(recordedUsage(decisions[2]!.in, decisions[2]!.out)).toEqual({ input: 300, output: 9 })
    expect(store.files[file]).not.toContain(API_KEY)
  }
})
