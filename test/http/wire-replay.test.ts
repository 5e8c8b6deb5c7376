import { createMemoryStore, currentTape, type Normalizer, parseCassette } from '@agent-tape/core'
import { tapeInternals } from '@agent-tape/core/internal'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runResearchAgent } from '../support/anthropic-agent.js'
import { runWeatherAgent, weatherScript } from '../support/openai-agent.js'
import { researchScript } from '../support/scripts.js'
import { runTaped } from '../support/tape-run.js'

// Replay by wire fingerprint through the real SDKs: a run that sends what it recorded takes
// every model decision by its fingerprint (the tape counts them), from a client with another
// API key too; a changed request misses with the very report the keyed path gives (a normalizer
// that never fires turns fingerprints off).

const boundary = installHttpBoundary()
const store = createMemoryStore()
const KEYED: Normalizer[] = [{ name: 'never', kinds: ['none'], pattern: /x/g, replacement: 'x' }]
let openaiServer: FakeProvider
let anthropicServer: FakeProvider

beforeAll(async () => {
  openaiServer = await startFakeProvider({ reply: (req) => weatherScript(req.body as never), seed: 'wire-o' })
  anthropicServer = await startFakeProvider({ reply: (req) => researchScript(req.body), seed: 'wire-a' })
  boundary.addModelEndpoints(openaiServer.url, anthropicServer.url)
})
afterAll(async () => {
  await openaiServer.close()
  await anthropicServer.close()
})

const openai = (apiKey: string) => new OpenAI({ apiKey, baseURL: openaiServer.openaiBaseURL })

/** Two model turns; the second one asks `followUp`. */
async function twoTurns(client: OpenAI, followUp: string): Promise<string> {
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You answer questions about cities.' },
    { role: 'user', content: 'Weather in Paris?' },
  ]
  const first = await client.chat.completions.create({ model: 'gpt-4o', messages })
  messages.push(first.choices[0]!.message as OpenAI.ChatCompletionMessageParam)
  messages.push({ role: 'user', content: followUp })
  const second = await client.chat.completions.create({ model: 'gpt-4o', messages })
  return second.choices[0]!.message.content ?? ''
}

/** Runs `fn` on its tape and returns the tape's count of decisions taken by fingerprint. */
function counting<T>(fn: () => Promise<T>): () => Promise<{ result: T; wireReplays: number }> {
  return async () => {
    const result = await fn()
    return { result, wireReplays: tapeInternals(currentTape()!).wireReplays() }
  }
}

it('replays an openai run by the fingerprints it recorded, whatever the API key', async () => {
  const rec = await runTaped(store, 'weather.jsonl', 'update', () =>
    runWeatherAgent(openai('sk-recording-key-0001'), 'Weather and time in Paris?', false),
  )
  expect(rec.error).toBeUndefined()
  const cassette = parseCassette(store.files['weather.jsonl']!, 'weather.jsonl')
  const models = cassette.decisions.filter((d) => d.kind === 'llm')
  expect(models).toHaveLength(3)
  expect(models.every((d) => /^[0-9a-f]{16}$/.test(d.wire ?? ''))).toBe(true)
  expect(store.files['weather.jsonl']).toMatch(/"ms":\d+,"at":\d+,"wire":"[0-9a-f]{16}","in":/)

  const replay = await runTaped(
    store,
    'weather.jsonl',
    'replay',
    counting(() => runWeatherAgent(openai('sk-another-key-0002'), 'Weather and time in Paris?', false)),
  )
  expect(replay.error).toBeUndefined()
  expect(replay.result).toEqual({ result: rec.result, wireReplays: 3 })
  expect(replay.state).toMatchObject({ status: 'clean', replayed: 3, missed: 0, unused: 0 })
  expect(replay.state.decisions.map((d) => [d.seq, d.key, d.label, d.status])).toEqual(
    models.map((d) => [d.seq, d.key, 'model request (gpt-4o)', 'replayed']),
  )
})

it('misses an openai request changed after a step taken by fingerprint with the keyed path report', async () => {
  const rec = await runTaped(store, 'turns.jsonl', 'update', () =>
    twoTurns(openai('sk-recording-key-0001'), 'And in Lyon?'),
  )
  expect(rec.error).toBeUndefined()
  const changed = () => twoTurns(openai('sk-recording-key-0001'), 'And in Nice?')
  let wireReplays = -1
  const wired = await runTaped(store, 'turns.jsonl', 'replay', async () => {
    try {
      return await changed()
    } finally {
      wireReplays = tapeInternals(currentTape()!).wireReplays()
    }
  })
  const keyed = await runTaped(store, 'turns.jsonl', 'replay', changed, { normalizers: KEYED })
  expect(wireReplays).toBe(1)
  expect(wired.error).toBeInstanceOf(OpenAI.BadRequestError)
  expect(wired.failure?.message).toContain('Replay miss at step 2, model request (gpt-4o)')
  expect(wired.failure?.message).toContain('body.messages[3].content: "And in Lyon?" → "And in Nice?"')
  expect(wired.failure?.message).toBe(keyed.failure?.message)
  expect(wired.state.decisions).toEqual(keyed.state.decisions)
})

it('replays an @anthropic-ai/sdk streamed run by fingerprint, and misses a changed question as the keyed path does', async () => {
  const client = new Anthropic({
    apiKey: 'sk-ant-api03-recording-key',
    baseURL: anthropicServer.anthropicBaseURL,
  })
  const question = 'When was magnetic tape invented?'
  const rec = await runTaped(store, 'research.jsonl', 'update', () => runResearchAgent(client, question))
  expect(rec.error).toBeUndefined()
  const other = new Anthropic({
    apiKey: 'sk-ant-api03-another-key',
    baseURL: anthropicServer.anthropicBaseURL,
  })
  const replay = await runTaped(
    store,
    'research.jsonl',
    'replay',
    counting(() => runResearchAgent(other, question)),
  )
  expect(replay.state).toMatchObject({ status: 'clean', replayed: 3 })
  expect(replay.result?.wireReplays).toBe(3)
  expect(replay.result?.result.finals).toEqual(rec.result?.finals)

  const changed = () => runResearchAgent(client, 'When was tape invented?')
  const wired = await runTaped(store, 'research.jsonl', 'replay', changed)
  const keyed = await runTaped(store, 'research.jsonl', 'replay', changed, { normalizers: KEYED })
  expect(wired.error).toBeInstanceOf(Anthropic.BadRequestError)
  expect(wired.failure?.message).toContain(
    'body.messages[0].content: "When was magnetic tape invented?" → "When was tape invented?"',
  )
  expect(wired.failure?.message).toBe(keyed.failure?.message)
  expect(wired.state.decisions).toEqual(keyed.state.decisions)
})
