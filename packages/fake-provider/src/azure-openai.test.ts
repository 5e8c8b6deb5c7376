import OpenAI, { AzureOpenAI } from 'openai'
import { afterEach, expect, it } from 'vitest'
import { type FakeProvider, startFakeProvider } from './index.js'

let provider: FakeProvider | undefined
afterEach(async () => {
  await provider?.close()
  provider = undefined
})

const messages = [{ role: 'user' as const, content: 'Hi' }]

async function azure(reply: Parameters<typeof startFakeProvider>[0]['reply']): Promise<AzureOpenAI> {
  provider = await startFakeProvider({ reply })
  return new AzureOpenAI({
    apiKey: 'azure-test-key',
    endpoint: provider.url,
    deployment: 'gpt-4o-prod',
    apiVersion: '2024-10-21',
    maxRetries: 0,
  })
}

it('answers chat on a deployment path with Azure’s filter results, and sees the api-key header', async () => {
  const client = await azure([{ text: 'Hello.' }])
  const completion = await client.chat.completions.create({ model: 'gpt-4o', messages })
  expect(completion.choices[0]?.message.content).toBe('Hello.')
  expect(completion).toMatchObject({
    prompt_filter_results: [{ prompt_index: 0 }],
    choices: [{ content_filter_results: { hate: { filtered: false } } }],
  })
  expect(provider?.requests[0]).toMatchObject({
    path: '/openai/deployments/gpt-4o-prod/chat/completions',
    search: '?api-version=2024-10-21',
    endpoint: 'azure-openai-chat',
  })
  expect(provider?.requests[0]?.headers['api-key']).toBe('azure-test-key')
  expect(provider?.requests[0]?.headers.authorization).toBeUndefined()
})

it('streams chat on a deployment path behind a first chunk with no choices, as Azure does', async () => {
  const client = await azure([{ text: 'It is sunny.', usage: { inputTokens: 5, outputTokens: 4 } }])
  const stream = await client.chat.completions.create({
    model: 'gpt-4o',
    messages,
    stream: true,
    stream_options: { include_usage: true },
  })
  const chunks = []
  for await (const chunk of stream) chunks.push(chunk)
  expect(chunks[0]).toMatchObject({ id: '', choices: [], prompt_filter_results: [{ prompt_index: 0 }] })
  expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('It is sunny.')
  expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 4 })
})

it('answers the Responses API and the v1 paths, which are OpenAI’s under /openai', async () => {
  const client = await azure([{ text: 'One.' }, { text: 'Two.' }, { text: 'Three.' }])
  const response = await client.responses.create({ model: 'gpt-4o-prod', input: 'Count' })
  expect(response.output_text).toBe('One.')
  const v1 = new OpenAI({ apiKey: 'azure-test-key', baseURL: `${provider!.url}/openai/v1`, maxRetries: 0 })
  const chat = await v1.chat.completions.create({ model: 'gpt-4o-prod', messages })
  expect(chat.choices[0]?.message.content).toBe('Two.')
  expect((await v1.responses.create({ model: 'gpt-4o-prod', input: 'Count' })).output_text).toBe('Three.')
  expect(provider?.requests.map((r) => [r.path, r.endpoint])).toEqual([
    ['/openai/responses', 'openai-responses'],
    ['/openai/v1/chat/completions', 'openai-chat'],
    ['/openai/v1/responses', 'openai-responses'],
  ])
})
