import { createMemoryStore } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider, type Turn } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import OpenAI from 'openai'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { runTaped } from '../support/tape-run.js'

// Recording must be transparent to a caller's abort (an SDK timeout, a user's AbortController),
// before and after the response headers; a replay fails when the caller aborts again, not at once.
const boundary = installHttpBoundary()
const store = createMemoryStore()
let provider: FakeProvider
let turn: Turn = {}

beforeAll(async () => {
  provider = await startFakeProvider({ reply: () => turn })
  boundary.addModelEndpoints(provider.url)
})
afterAll(() => provider.close())

const unhandled: unknown[] = []
const onUnhandled = (error: unknown) => unhandled.push(error)
process.on('unhandledRejection', onUnhandled)
afterAll(() => {
  process.off('unhandledRejection', onUnhandled)
})
afterEach(async () => {
  // Rejections surface a turn of the event loop after the fact.
  await new Promise((resolve) => setTimeout(resolve, 50))
  expect(unhandled).toEqual([])
})

const ask = (client: OpenAI, options: OpenAI.RequestOptions = {}) =>
  client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, options)

/** Settles with the error, and says whether it settled before `abort` was called. */
function track(promise: Promise<unknown>) {
  const state = { settled: false, error: undefined as unknown }
  const done = promise.then(
    () => {
      state.settled = true
    },
    (error: unknown) => {
      state.settled = true
      state.error = error
    },
  )
  return { state, done }
}

it('records an SDK timeout before the headers as the SDK reports it live, and replays it when the timeout fires', async () => {
  turn = { text: 'late', headersDelayMs: 400 }
  const client = new OpenAI({
    apiKey: 'sk-test-dummy',
    baseURL: provider.openaiBaseURL,
    maxRetries: 0,
    timeout: 100,
  })
  const live = await ask(client).catch((e: unknown) => e)
  expect(live).toBeInstanceOf(OpenAI.APIConnectionTimeoutError)
  const recording = await runTaped(store, 'timeout.jsonl', 'auto', () => ask(client))
  expect(recording.error).toBeInstanceOf(OpenAI.APIConnectionTimeoutError)
  const replay = await runTaped(store, 'timeout.jsonl', 'replay', () => ask(client))
  expect(replay.error).toBeInstanceOf(OpenAI.APIConnectionTimeoutError)
  expect(replay.state).toMatchObject({ status: 'clean', replayed: 1 })
})

it("replays a user's abort before the headers only once the user aborts again", async () => {
  turn = { text: 'late', headersDelayMs: 400 }
  const client = new OpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL, maxRetries: 0 })
  const abortSoon = async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    return ask(client, { signal: controller.signal })
  }
  const recording = await runTaped(store, 'user-abort.jsonl', 'auto', abortSoon)
  expect(recording.error).toBeInstanceOf(OpenAI.APIUserAbortError)
  const replay = await runTaped(store, 'user-abort.jsonl', 'replay', async () => {
    const controller = new AbortController()
    const call = track(ask(client, { signal: controller.signal }))
    await new Promise((resolve) => setTimeout(resolve, 30))
    // Not failed yet: the recorded abort waits for this caller's own.
    expect(call.state.settled).toBe(false)
    controller.abort()
    await call.done
    throw call.state.error
  })
  expect(replay.error).toBeInstanceOf(OpenAI.APIUserAbortError)
  expect(replay.state).toMatchObject({ status: 'clean', replayed: 1 })
})

it('records a stream the user aborts after the first chunk, and replays its chunks, then the abort when the user aborts', async () => {
  // The server sends the role chunk and 'one ', then nothing until the client aborts: on a loaded
  // machine, a gap between chunks lets the rest arrive with the first, and the SDK reads it all.
  turn = { text: ['one ', 'two ', 'three ', 'four'], holdAfterEvents: 2 }
  const client = new OpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL, maxRetries: 0 })
  const readOneThenAbort = async () => {
    const controller = new AbortController()
    const stream = await client.chat.completions.create(
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'count' }], stream: true },
      { signal: controller.signal },
    )
    let text = ''
    try {
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? ''
        if (text) controller.abort()
      }
    } catch (error) {
      return { text, error: (error as Error).constructor.name }
    }
    return { text, error: 'none' }
  }
  // What the SDK does live, with no tape: the recording and the replay must do the same.
  const live = await readOneThenAbort()
  expect(live.text).toBe('one ')
  const recording = await runTaped(store, 'stream-abort.jsonl', 'auto', readOneThenAbort)
  expect(recording.error).toBeUndefined()
  expect(recording.result).toEqual(live)
  const replay = await runTaped(store, 'stream-abort.jsonl', 'replay', readOneThenAbort)
  expect(replay.result).toEqual(recording.result)
  expect(replay.state).toMatchObject({ status: 'clean', replayed: 1 })
})

it('fails a replayed abort with the recorded error when the caller never aborts', async () => {
  turn = { text: 'late', headersDelayMs: 400 }
  const client = new OpenAI({
    apiKey: 'sk-test-dummy',
    baseURL: provider.openaiBaseURL,
    maxRetries: 0,
    timeout: 100,
  })
  await runTaped(store, 'no-abort.jsonl', 'auto', () => ask(client))
  const patient = new OpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL, maxRetries: 0 })
  const replay = await runTaped(store, 'no-abort.jsonl', 'replay', () => ask(patient))
  // The SDK reads the recorded AbortError as its own timeout, as it did while recording.
  expect(replay.error).toBeInstanceOf(OpenAI.APIConnectionTimeoutError)
})
