import { createMemoryStore } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { modelLookalike, unconfiguredWarning } from '../../packages/http/src/unconfigured-model.js'
import { runTaped } from '../support/tape-run.js'

// A model served from loopback that nobody listed in modelEndpoints: the README's config as a
// newcomer writes it, pointed at a local model. Its calls pass through untaped; the tape says so.
installHttpBoundary()
const store = createMemoryStore()
let provider: FakeProvider

beforeAll(async () => {
  provider = await startFakeProvider({ reply: () => ({ text: 'Hello.' }) })
})
afterAll(() => provider.close())

const clients = () => ({
  chat: new OpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL, maxRetries: 0 }),
  anthropic: new Anthropic({ apiKey: 'sk-ant-test-dummy', baseURL: provider.url, maxRetries: 0 }),
})

const CALLS: Record<string, () => Promise<unknown>> = {
  'openai-chat': () =>
    clients().chat.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] }),
  'openai-responses': () => clients().chat.responses.create({ model: 'gpt-4o', input: 'Hi' }),
  'anthropic-messages': () =>
    clients().anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 16,
      messages: [{ role: 'user', content: 'Hi' }],
    }),
}

describe.each(Object.entries(CALLS))('a %s call to an unconfigured loopback model', (api, call) => {
  it('warns while recording, naming the option and the base URL to add', async () => {
    const recording = await runTaped(store, `${api}.jsonl`, 'auto', call)
    expect(recording.error).toBeUndefined()
    expect(recording.state.captured).toBe(0)
    expect(recording.state.warnings).toHaveLength(1)
    const warning = recording.state.warnings[0]!
    expect(warning).toContain(
      `looks like a model call (${api}), but ${new URL(provider.url).host} is not a model endpoint`,
    )
    expect(warning).toContain(`modelEndpoints: ['${provider.url}/v1']`)
  })

  it('fails the replay with the same advice when nothing answers there, instead of a bare ECONNREFUSED', async () => {
    const down = await startFakeProvider({ reply: () => ({ text: 'unused' }) })
    const url = down.url
    await down.close()
    const client: () => Promise<unknown> =
      api === 'anthropic-messages'
        ? () =>
            new Anthropic({ apiKey: 'x', baseURL: url, maxRetries: 0 }).messages.create({
              model: 'claude-sonnet-4-5',
              max_tokens: 16,
              messages: [{ role: 'user', content: 'Hi' }],
            })
        : api === 'openai-chat'
          ? () =>
              new OpenAI({ apiKey: 'x', baseURL: `${url}/v1`, maxRetries: 0 }).chat.completions.create({
                model: 'gpt-4o',
                messages: [{ role: 'user', content: 'Hi' }],
              })
          : () =>
              new OpenAI({ apiKey: 'x', baseURL: `${url}/v1`, maxRetries: 0 }).responses.create({
                model: 'gpt-4o',
                input: 'Hi',
              })
    await runTaped(store, `${api}-down.jsonl`, 'auto', async () => {})
    const replay = await runTaped(store, `${api}-down.jsonl`, 'replay', client)
    expect(replay.error).toBeDefined()
    expect(replay.failure?.message).toContain(`The model call to ${url}/v1/`)
    expect(replay.failure?.message).toContain('is not a model endpoint, so it was never recorded')
    expect(replay.failure?.message).toContain(`modelEndpoints: ['${url}/v1']`)
    expect((replay.failure as { code?: string }).code).toBe('ERR_TAPE_CONFIG')
  })
})

it('still replays when the unconfigured loopback model is up, with the warning', async () => {
  await runTaped(store, 'up.jsonl', 'auto', async () => {})
  const replay = await runTaped(store, 'up.jsonl', 'replay', CALLS['openai-chat']!)
  expect(replay.error).toBeUndefined()
  expect(replay.failure).toBeUndefined()
  expect(replay.state.warnings[0]).toContain('is not a model endpoint')
})

describe('modelLookalike', () => {
  const request = (path: string, body: unknown, method = 'POST') =>
    new Request(`http://127.0.0.1:4010${path}`, {
      method,
      ...(method === 'POST' ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    })
  it.each([
    ['/v1/chat/completions', { model: 'llama3', messages: [] }, 'openai-chat'],
    ['/openai/v1/chat/completions', { model: 'x', messages: [] }, 'openai-chat'],
    ['/v1/responses', { model: 'x', input: 'hi' }, 'openai-responses'],
    ['/v1/messages', { model: 'claude', messages: [] }, 'anthropic-messages'],
  ])('takes %s with a model field for %s', async (path, body, name) => {
    const req = request(path, body)
    expect((await modelLookalike(req, new URL(req.url)))?.name).toBe(name)
    // The body is read from a copy: the request can still be sent.
    expect(await req.text()).toBe(JSON.stringify(body))
  })
  it.each([
    ['a path no codec owns', request('/v1/embeddings', { model: 'x', input: 'hi' })],
    ['a body without a model', request('/v1/chat/completions', { messages: [] })],
    ['a body that is not JSON', request('/v1/chat/completions', 'model=gpt')],
    ['a GET', request('/v1/messages', undefined, 'GET')],
    ['a model that is not a string', request('/v1/messages', { model: 4 })],
  ])('leaves %s alone', async (_, req) => {
    expect(await modelLookalike(req, new URL(req.url))).toBeUndefined()
  })

  it('says a non-loopback host was taped as plain HTTP, with the base URL to configure', () => {
    const url = new URL('https://llm.internal.example/serving/v1/chat/completions?key=abc')
    const codec = { name: 'openai-chat' } as never
    const warning = unconfiguredWarning(url, codec, false)
    expect(warning).toContain('it was taped as plain HTTP')
    expect(warning).toContain("modelEndpoints: ['https://llm.internal.example/serving/v1']")
    expect(warning).not.toContain('abc')
  })
})
