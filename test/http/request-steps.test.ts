// What each step of deciding a request answers, seen from the caller: a miss in the provider's
// error shape or as an error, a damaged or failed recording replayed, a run that fails open
// letting through what it cannot record, and a recording read whole before the caller gets it.
import { createMemoryStore, openTape, runWithTape } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import { handleRequest } from '@agent-tape/http/internal'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type CountingServer, startCountingServer } from '../support/counting-server.js'
import { runTaped } from '../support/tape-run.js'

// Captured before the boundary patches it: what `perform` sends with, as the interception's own does.
const pureFetch = globalThis.fetch.bind(globalThis)
const boundary = installHttpBoundary()
let provider: FakeProvider
let other: CountingServer

beforeAll(async () => {
  provider = await startFakeProvider({
    reply: () => ({ text: 'Hello there, from the fake provider.' }),
    chunkDelayMs: 2,
  })
  other = await startCountingServer('other')
  boundary.addModelEndpoints(provider.url)
})
afterAll(async () => {
  await provider.close()
  await other.close()
})

const chat = (content: string, stream = false) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test-dummy' },
  body: JSON.stringify({ model: 'gpt-4o', stream, messages: [{ role: 'user', content }] }),
})

const EMPTY = '{"agentTape":1,"keyScheme":1,"test":"t","recordedAt":""}\n'

it('answers a replay miss of a model request with HTTP 400 in its provider’s error shape, holding the report', async () => {
  const store = createMemoryStore({ 'miss.jsonl': EMPTY })
  const run = await runTaped(store, 'miss.jsonl', 'replay', async () => {
    const response = await fetch(`${provider.openaiBaseURL}/chat/completions`, chat('hi'))
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: await response.json(),
    }
  })
  expect(run.result?.status).toBe(400)
  expect(run.result?.headers).toMatchObject({ 'x-agent-tape': 'replay-miss', 'x-should-retry': 'false' })
  const message = (run.result!.body as { error: { message: string } }).error.message
  expect(message).toBe(run.failure?.message)
  expect(message).toMatch(/^\[agent-tape\] /)
  expect(run.failure).toMatchObject({ code: 'ERR_TAPE_MISS' })
  expect(provider.requests).toHaveLength(0)
})

it('fails a replay miss as an error when the request is not read as its codec expects (a model path, a body that is not JSON)', async () => {
  const store = createMemoryStore({ 'text.jsonl': EMPTY })
  const run = await runTaped(store, 'text.jsonl', 'replay', () =>
    fetch(`${provider.openaiBaseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'not json',
    }),
  )
  expect(run.result).toBeUndefined()
  expect(String((run.error as Error).cause ?? run.error)).toContain('[agent-tape]')
  expect(run.failure).toMatchObject({ code: 'ERR_TAPE_MISS' })
  expect(run.failure?.message).toContain('Replay miss at step 0, http POST /v1/chat/completions:')
})

it('fails a replay miss of other HTTP as an error with the report, and sends nothing', async () => {
  const store = createMemoryStore({ 'other.jsonl': EMPTY })
  const tape = await openTape({ id: 'o', cassettePath: 'other.jsonl', store, mode: 'replay', env: {} })
  const config = { modelEndpoints: [], timing: 'instant' as const, tapeHosts: [`127.0.0.1:${other.port}`] }
  const before = other.connections
  const outcome = await runWithTape(tape, () =>
    handleRequest(new Request(`${other.origin}/items`), config, pureFetch),
  )
  await tape.finish()
  expect(outcome).toMatchObject({ type: 'error', error: { name: 'ReplayMiss', code: 'ERR_TAPE_MISS' } })
  expect((outcome as { error: Error }).error.message).toBe(tape.failure()?.message)
  expect(tape.failure()?.message).toContain(`GET ${other.origin}/items`)
  expect(other.connections).toBe(before)
})

it('refuses to replay a decision whose output is not a recorded HTTP response', async () => {
  const store = createMemoryStore()
  const recorded = await runTaped(store, 'damaged.jsonl', 'auto', () =>
    fetch(`${provider.openaiBaseURL}/chat/completions`, chat('damage me')).then((r) => r.json()),
  )
  expect(recorded.state.written).toBe(true)
  const lines = store.files['damaged.jsonl']!.trimEnd().split('\n')
  const decision = JSON.parse(lines[1]!) as { out: unknown }
  decision.out = { body: 'no status, no headers' }
  store.files['damaged.jsonl'] = `${[lines[0], JSON.stringify(decision)].join('\n')}\n`
  const replayed = await runTaped(store, 'damaged.jsonl', 'replay', () =>
    fetch(`${provider.openaiBaseURL}/chat/completions`, chat('damage me')),
  )
  const error = (replayed.error as Error).cause ?? replayed.error
  expect(error).toMatchObject({ name: 'AgentTapeError', code: 'ERR_TAPE_CORRUPT' })
  expect((error as Error).message).toBe(
    '[agent-tape] Cannot replay decision #1 of damaged.jsonl: its "out" is not a recorded HTTP response (it needs a numeric "status" and a "headers" object). Restore the cassette from version control, or re-record this test: rerecord.',
  )
})

it('replays a request that failed while recording as the same failure, without a connection', async () => {
  const store = createMemoryStore()
  const closed = await startCountingServer('closed')
  const url = `${closed.origin}/v1/chat/completions`
  const remove = boundary.addModelEndpoints(`${closed.origin}/v1`)
  await closed.close()
  try {
    const recorded = await runTaped(store, 'refused.jsonl', 'auto', () => fetch(url, chat('anyone?')))
    expect(recorded.state.written).toBe(true)
    expect(store.files['refused.jsonl']).toContain('"err":')
    const replayed = await runTaped(store, 'refused.jsonl', 'replay', () => fetch(url, chat('anyone?')))
    expect(replayed.state.status).toBe('clean')
    const live = recorded.error as Error
    const again = replayed.error as Error
    expect(again).toBeInstanceOf(Error)
    expect(store.files['refused.jsonl']).toContain(
      `"err":{"name":"${live.name}","message":"${live.message}"}`,
    )
    expect({ name: again.name, message: again.message }).toEqual({ name: live.name, message: live.message })
  } finally {
    remove()
  }
})

it('lets a request that a run failing open cannot read go out once, for real, and fails the run instead', async () => {
  const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`
  const body = `{"model":"gpt-4o","messages":[{"role":"user","content":${deep}}]}`
  const tape = await openTape({
    id: 'served',
    cassettePath: 'served.jsonl',
    store: createMemoryStore(),
    mode: 'update',
    env: {},
    failOpen: true,
  })
  const before = provider.requests.length
  const response = await runWithTape(tape, () =>
    fetch(`${provider.openaiBaseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    }),
  )
  expect(response.status).toBe(200)
  await response.arrayBuffer()
  expect(provider.requests.length).toBe(before + 1)
  await tape.finish()
  expect(tape.failure()?.message).toMatch(
    /^\[agent-tape\] Cannot key a decision of kind "llm": its input is nested deeper/,
  )
})

it('with streamWhileRecording off, hands the caller the whole recorded answer, as a replay would', async () => {
  const store = createMemoryStore()
  const config = { modelEndpoints: [provider.url], timing: 'instant' as const, streamWhileRecording: false }
  const tape = await openTape({ id: 'whole', cassettePath: 'whole.jsonl', store, mode: 'update', env: {} })
  const text = await runWithTape(tape, async () => {
    const outcome = await handleRequest(
      new Request(`${provider.openaiBaseURL}/chat/completions`, chat('stream it', true)),
      config,
      pureFetch,
    )
    if (outcome.type !== 'respond') throw new Error(`expected a response, got ${outcome.type}`)
    return outcome.response.text()
  })
  await tape.finish()
  // Every event the recording holds, the last included: the caller read the answer whole.
  const decision = JSON.parse(store.files['whole.jsonl']!.trimEnd().split('\n')[1]!) as {
    out: { body: { sse: unknown[] } }
  }
  expect(text.match(/^data: /gm)).toHaveLength(decision.out.body.sse.length)
  expect(text).toContain('"content":"provider."')
  expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true)
})
