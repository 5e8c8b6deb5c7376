import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AgentTapeError, createMemoryStore, currentTape, isReplayMiss, parseCassette } from '@agent-tape/core'
import type { LiveGateAnswer } from '@agent-tape/core/internal'
import { installHttpBoundary } from '@agent-tape/http'
import OpenAI from 'openai'
import { ResponsesWS } from 'openai/resources/responses/ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, viewedToolCalls } from '../cli/support/cli.js'
import type { NextEvent } from '../support/realtime-client.js'
import { responsesWeather, responsesWsSession } from '../support/responses-ws-client.js'
import { type ResponsesWsServer, startResponsesWsServer } from '../support/responses-ws-server.js'
import { runTaped } from '../support/tape-run.js'

// The Responses API's WebSocket mode through the SDK's ResponsesWS: each response.create is the
// body of a POST /v1/responses, so a session reads, counts and is priced as requests over HTTP.
// Recording, replay with no connection, the miss, the credential, live-tools and the endings are
// the session contract's (test/providers/session-contract.test.ts); these read its recordings.
const boundary = installHttpBoundary()
const store = createMemoryStore()
const API_KEY = `sk-proj-${'ResponsesK3y'.repeat(4)}`
let server: ResponsesWsServer
let client: OpenAI

beforeAll(async () => {
  server = await startResponsesWsServer()
  boundary.addModelEndpoints(server.baseURL)
  client = new OpenAI({ apiKey: API_KEY, baseURL: server.baseURL })
})
afterAll(() => server.close())

const session = (script: (rws: ResponsesWS, next: NextEvent) => Promise<void>) =>
  responsesWsSession(() => new ResponsesWS(client), script)

/** The weather conversation: a function call, its output from the app's tool, the answer. */
const weather = (instructions: string) =>
  session(
    responsesWeather(instructions, (city) =>
      currentTape()!.tool('get_weather', { city }, async () => ({ temp: 21 })),
    ),
  )

const cassette = (file: string) => parseCassette(store.files[file]!, file)

/** Millionths of a dollar as `show` prints them: two significant digits. */
const dollars = (micro: number) => `$${Number((micro / 1e6).toPrecision(2))}`

beforeAll(async () => {
  const run = await runTaped(store, 'weather.jsonl', 'update', weather('Be brief.'))
  expect(run.failure).toBeUndefined()
  expect(run.result!.calls).toEqual(['get_weather({"city":"Paris"})'])
  expect(run.result!.text).toBe('In Paris it is 21 degrees.')
})

it('keys the handshake and each response.create as the body of a POST /v1/responses', () => {
  const decisions = cassette('weather.jsonl').decisions
  expect(decisions[0]!.in).toEqual({
    api: 'openai-responses-ws',
    frame: 'open',
    url: '/v1/responses',
    protocols: [],
    headers: {},
  })
  // Each response.create asks the model for an answer: it starts a step, and the tool the app
  // ran for the first is of its step.
  expect(decisions.map((d) => [(d.in as { frame?: string }).frame ?? d.kind, d.step])).toEqual([
    ['open', 0],
    ['response.create', 1],
    ['tool', 1],
    ['response.create', 2],
  ])
  // As over HTTP, what never decides the answer (`store`) is left out of the key, and the
  // tools are in name order.
  const first = decisions[1]!.in as { message: Record<string, unknown> }
  expect(first.message).not.toHaveProperty('store')
  expect(first.message).toMatchObject({
    type: 'response.create',
    model: 'gpt-4.1-mini',
    instructions: 'Be brief.',
  })
  expect(store.files['weather.jsonl']).not.toContain(API_KEY)
})

it('reads in show, diff and view like requests over HTTP: the question, the call, the answer, priced', async () => {
  const root = mkdtempSync(join(tmpdir(), 'agent-tape-responses-ws-'))
  writeFileSync(join(root, 'weather.jsonl'), store.files['weather.jsonl']!)
  const shown = await runCli(['show', 'weather.jsonl'], root)
  expect(shown.code).toBe(0)
  const lines = shown.stdout.split('\n').map((line) => line.trim())
  expect(lines).toContainEqual(
    expect.stringMatching(/^#2 +step 1 +websocket response\.create \(openai-responses-ws\)/),
  )
  expect(lines).toContain('last      user: "Weather in Paris?"')
  expect(lines).toContainEqual(expect.stringMatching(/^call +get_weather \{"city":"Paris"\}$/))
  expect(lines).toContain('last      function_call_output: "{\\"temp\\":21}"')
  expect(lines).toContainEqual(expect.stringMatching(/^text +In Paris it is 21 degrees\.$/))
  expect(lines).toContainEqual(expect.stringMatching(/· 120 in \/ 30 out tokens · finish completed$/))
  // Priced by the model each response.create names (gpt-4.1-mini: $0.40 and $1.60 per million).
  expect(lines).toContain(`cost       ${dollars(2 * (120 * 0.4 + 30 * 1.6))}`)
  expect((await runCli(['verify', 'weather.jsonl'], root)).stdout).toContain(
    'ok    weather.jsonl  4 decisions',
  )

  // Another recording of the same session: frames at other times, new response ids, other
  // completion times. None is a difference; another word in the answer is the model's.
  const recordedAgain = (edit: (text: string) => string) =>
    store.files['weather.jsonl']!.split('\n').map((line, i) => {
      if (i === 0 || line === '') return line
      const record = JSON.parse(line)
      for (const frame of record.out?.frames ?? []) {
        frame.at += 7
        if (frame.text)
          frame.text = edit(
            frame.text
              .replace(/"resp_0+(\d)"/g, '"resp_Q8x2Lm0$1Zt"')
              .replace(
                /"status":"completed","output"/,
                `"status":"completed","completed_at":${1764700000 + i},"output"`,
              ),
          )
      }
      return JSON.stringify(record)
    })
  writeFileSync(join(root, 'again.jsonl'), recordedAgain((text) => text).join('\n'))
  expect(readFileSync(join(root, 'again.jsonl'), 'utf8')).toContain('completed_at')
  const again = await runCli(['diff', 'weather.jsonl', 'again.jsonl'], root)
  expect(again.stdout).toContain('4 → 4 decisions: 0 changed, 0 added, 0 removed, 4 unchanged')
  writeFileSync(
    join(root, 'moved.jsonl'),
    recordedAgain((text) => text.replace('"it is "', '"it was "')).join('\n'),
  )
  const moved = await runCli(['diff', 'weather.jsonl', 'moved.jsonl'], root)
  expect(moved.stdout).toContain('4 → 4 decisions: 1 changed, 0 added, 0 removed, 3 unchanged')
  expect(moved.stdout).toContain('~ #4  step 2  websocket response.create (openai-responses-ws)')

  const calls = await viewedToolCalls(root, 'weather.jsonl')
  expect(calls).toEqual([{ id: 'call_000000000001', name: 'get_weather', arguments: '{"city":"Paris"}' }])
})

it('misses a changed tool output at the response.create that sends it, naming the field', async () => {
  // A tool outside `tape.tool`, whose new answer only the next request shows.
  const untaped = session(responsesWeather('Be brief.', async () => ({ temp: 25 })))
  const run = await runTaped(store, 'weather.jsonl', 'replay', untaped)
  expect(isReplayMiss(run.failure)).toBe(true)
  expect(run.failure!.message).toContain('websocket response.create (openai-responses-ws)')
  expect(run.failure!.message).toContain('message.input[0].output: "{\\"temp\\":21}" → "{\\"temp\\":25}"')
  // The SDK raised the API's error event, and the session closed.
  expect(run.result!.errors).toEqual([expect.stringContaining('"code":"ERR_TAPE_MISS"')])
  expect(run.result!.close?.code).toBe(1011)
})

describe('a response.create that asks the model nothing', () => {
  it('(generate: false) starts no step, and a drift budget lets it through while it refuses the turn', async () => {
    const refusal = new AgentTapeError('ERR_TAPE_BUDGET', {
      what: 'Not sent: the model request at step 1 is over the budget',
      why: 'the budget is spent',
      fix: 'Raise the budget',
    })
    const asked: [number, boolean][] = []
    const prepared = session(async (rws, next) => {
      const body = { model: 'gpt-4.1-mini', instructions: 'Be brief.', store: false }
      // `generate` is newer than the SDK's types.
      rws.send({ type: 'response.create', ...body, input: 'Remember Paris.', generate: false } as never)
      const created = await next('response.completed')
      if (created.type === 'closed') return
      rws.send({
        type: 'response.create',
        ...body,
        previous_response_id: (created.response as { id: string }).id,
        input: 'Say hello.',
      })
      await next('response.completed')
    })
    const run = await runTaped(store, 'budget.jsonl', 'update', prepared, {
      liveGate: (decision): LiveGateAnswer => {
        asked.push([decision.step, decision.asksModel])
        return decision.asksModel ? { refused: refusal } : {}
      },
    })
    // The handshake, the prepared state (step 0), the turn (step 1): only the turn is refused.
    expect(asked).toEqual([
      [0, false],
      [0, false],
      [1, true],
    ])
    expect(run.failure).toBe(refusal)
    // The client hears it in the API's error event, then the close; the model never answered.
    expect(run.result!.errors).toEqual([expect.stringContaining('"code":"ERR_TAPE_BUDGET"')])
    expect(run.result!.close?.code).toBe(1011)
    expect(run.result!.text).toBe('')
    expect(store.files['budget.jsonl']).toBeUndefined()
  })
})
