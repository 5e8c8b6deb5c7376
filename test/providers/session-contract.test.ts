import { createMemoryStore, currentTape, isReplayMiss, parseCassette } from '@agent-tape/core'
import { installHttpBoundary } from '@agent-tape/http'
import { readSessionDecision, SESSION_CODECS, sumUsage } from '@agent-tape/http/internal'
import { readRecordedUsage, summarizeCassette, usageOfDecisions } from '@agent-tape/inspect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { providerRowsOf } from '../support/readme-section.js'
import { runTaped } from '../support/tape-run.js'
import { type Lookup, SESSION_CLIENTS, type SessionFake, type SessionSeen } from './session-clients.js'

// What every realtime API's sessions get alike, written once: a session with a tool call
// recorded and replayed with no connection, an instruction edit's miss at the frame that
// carries it, the credential kept out, the app's tool run live in live-tools mode, and a session
// the server cut or closed with an error replayed as the SDK saw it. What differs between the
// APIs comes from their description in session-clients.ts.

const boundary = installHttpBoundary()

it('has a client for every session codec', () => {
  expect(new Set(SESSION_CLIENTS.map((c) => c.api))).toEqual(new Set(SESSION_CODECS.map((c) => c.name)))
})

it("has a row for every session codec in the README's table of providers", () => {
  for (const codec of SESSION_CODECS) expect(providerRowsOf(codec.name), codec.name).toHaveLength(1)
})

/** The weather the app's tool returns, as `tape.tool` runs it (live-tools mode compares it). */
let forecast = { temp: 21 }
const lookup: Lookup = (city) => currentTape()!.tool('get_weather', { city }, async () => ({ ...forecast }))

describe.each(SESSION_CLIENTS)('$name', (client) => {
  const store = createMemoryStore()
  let fake: SessionFake
  let undeclare: () => void
  const decisionsOf = (file: string) => parseCassette(store.files[file]!, file).decisions
  const frameOf = (d: { kind: string; in: unknown }) =>
    d.kind === 'websocket' ? (d.in as { frame: string }).frame : d.kind

  beforeAll(async () => {
    fake = await client.start()
    undeclare = boundary.addModelEndpoints(fake.endpoint)
  })
  afterAll(async () => {
    undeclare()
    await fake.close()
  })

  let recorded: SessionSeen

  it('records a session with a tool call: a decision per client message, the call read like one over HTTP', async () => {
    forecast = { temp: 21 }
    const run = await runTaped(store, 'weather.jsonl', 'update', fake.weather('Be brief.', lookup))
    expect(run.error).toBeUndefined()
    expect(run.failure).toBeUndefined()
    recorded = run.result!
    expect(recorded.calls).toEqual(['get_weather({"city":"Paris"})'])
    expect(recorded.text).toBe('In Paris it is 21 degrees.')
    const decisions = decisionsOf('weather.jsonl')
    expect(decisions.map(frameOf)).toEqual(client.weatherFrames)
    expect(decisions.filter((d) => d.kind === 'websocket').map((d) => (d.in as { api: string }).api)).toEqual(
      client.weatherFrames.filter((f) => f !== 'tool').map(() => client.api),
    )
    const calls = decisions.flatMap((d) => readSessionDecision(d.in, d.out)?.answer.toolCalls ?? [])
    expect(calls).toEqual([{ id: expect.any(String), name: 'get_weather', arguments: '{"city":"Paris"}' }])
  })

  it("counts the tokens the server reported where a model request's are counted", () => {
    const cassette = parseCassette(store.files['weather.jsonl']!, 'weather.jsonl')
    expect(summarizeCassette('weather.jsonl', cassette).totals.tokens).toEqual(client.tokens)
    const usage = usageOfDecisions(cassette.decisions, readRecordedUsage)
    expect(usage.every((u) => u.api === client.api)).toBe(true)
    expect(sumUsage(usage)).toEqual(client.tokens)
  })

  it('replays it with no connection, handing the SDK the same messages', async () => {
    const before = fake.connections
    const run = await runTaped(store, 'weather.jsonl', 'replay', fake.weather('Be brief.', lookup))
    expect(run.failure).toBeUndefined()
    expect(run.state).toMatchObject({ status: 'clean', unused: 0 })
    expect(run.result).toEqual(recorded)
    expect(fake.connections).toBe(before)
  })

  it('misses an edit of one word of the instructions at the frame that carries them, with the field diff', async () => {
    const before = fake.connections
    const run = await runTaped(store, 'weather.jsonl', 'replay', fake.weather('Be concise.', lookup))
    expect(isReplayMiss(run.failure)).toBe(true)
    const message = run.failure!.message
    expect(message).toContain(`websocket ${client.setupFrame} (${client.api})`)
    expect(message).toContain(`${client.instructionField}: "Be brief." → "Be concise."`)
    // The session closed as a server error: the SDK goes no further.
    expect(run.result?.close?.code).toBe(1011)
    expect(run.result?.calls).toEqual([])
    expect(fake.connections).toBe(before)
  })

  it(`keeps the credential (${client.credential.where}) out of the cassette, and replays without it`, async () => {
    expect(fake.handshakes()).toContain(client.credential.key)
    expect(store.files['weather.jsonl']).not.toContain(client.credential.key)
    const run = await runTaped(
      store,
      'weather.jsonl',
      'replay',
      fake.weather('Be brief.', lookup, 'another-key-entirely'),
    )
    expect(run.failure).toBeUndefined()
    expect(run.result).toEqual(recorded)
  })

  it("in live-tools mode replays the model's messages and runs the app's tool for real: a changed result is drift", async () => {
    const before = fake.connections
    const same = await runTaped(store, 'weather.jsonl', 'live-tools', fake.weather('Be brief.', lookup))
    expect(same.failure).toBeUndefined()
    expect(same.state).toMatchObject({ status: 'clean', drifted: [] })
    forecast = { temp: 25 }
    const moved = await runTaped(store, 'weather.jsonl', 'live-tools', fake.weather('Be brief.', lookup))
    expect(moved.state.drifted).toEqual(['step 1, tool "get_weather"'])
    expect(moved.failure?.message).toContain('Tool drift at step 1, tool "get_weather"')
    // The app sends the tool's result in the session's next message, which the report names.
    expect(moved.failure?.message).toMatch(
      /this result is part of the next message of its session \(step \d, websocket (conversation\.item\.create|toolResponse|response\.create) \((openai-realtime|gemini-live|openai-responses-ws)\)\)/,
    )
    expect(moved.failure?.message).toContain('result.temp: 21 → 25')
    // The session goes on with the recorded result, so the model's answer still replays.
    expect(moved.result).toEqual(recorded)
    expect(fake.connections).toBe(before)
    forecast = { temp: 21 }
  })

  describe.each([
    ['cut mid-answer (the connection dropped)', 'cut'],
    ['closed by the server with an error', 'break'],
  ])('a session %s', (_, text) => {
    it('is recorded and replayed as the same close, after the same messages', async () => {
      const file = `${text}.jsonl`
      const recording = await runTaped(store, file, 'update', fake.ask(text))
      expect(recording.failure).toBeUndefined()
      if (text === 'cut') {
        expect(recording.result!.close?.code).toBe(1006)
        expect(recording.result!.text).toBe('In Paris ')
      } else {
        expect(recording.result!.close).toEqual(client.serverError.close)
        expect(recording.result!.errors).toEqual(client.serverError.errors)
      }
      const before = fake.connections
      const replay = await runTaped(store, file, 'replay', fake.ask(text))
      expect(replay.failure).toBeUndefined()
      expect(replay.state).toMatchObject({ status: 'clean', unused: 0 })
      expect(replay.result).toEqual(recording.result)
      expect(fake.connections).toBe(before)
    })
  })

  it('replays every recording with the server stopped', async () => {
    await fake.close()
    for (const [file, session] of [
      ['weather.jsonl', fake.weather('Be brief.', lookup)],
      ['cut.jsonl', fake.ask('cut')],
      ['break.jsonl', fake.ask('break')],
    ] as const) {
      const run = await runTaped(store, file, 'replay', session)
      expect(run.failure, file).toBeUndefined()
      expect(run.state.status, file).toBe('clean')
    }
  })
})
